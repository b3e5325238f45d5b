/**
 * `devserver conform`: the conformance checker against a server started
 * from a command line (`--stdio`), or, with no target, against this server
 * in-process: the real server factory behind our `LineTransport`, reached
 * through a pair of in-memory streams, exactly as `serve` wires stdin and
 * stdout.
 *
 * @module
 */

import { workspacePhrase } from "../contract/text.ts";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { createDevServer, type DevServer, longestCallMs } from "../app.ts";
import type { Config } from "../config/load.ts";
import { formatJson, formatJunit, formatTable } from "../conform/report.ts";
import type { HttpEndpoint } from "../conform/http.ts";
import {
  type ConformanceReport,
  runConformance,
  runHttpConformance,
  type RunOptions,
  unknownCheckIds,
} from "../conform/runner.ts";
import { shellWords } from "../conform/shell_words.ts";
import { spawnTarget, type StreamTarget } from "../conform/target.ts";
import { LineTransport } from "../transport/stdio.ts";
import { type ParsedArgs, UsageError } from "./args.ts";
import { configFor } from "./config.ts";

/** Runs `conform`; resolves with the exit code (0 conformant, 1 not, 2 usage or connection error). */
export async function runConform(args: ParsedArgs): Promise<number> {
  if (args.rest.length > 0) {
    throw new UsageError(`conform takes no arguments (got "${args.rest[0]}"); see --stdio`);
  }
  if (args.json && args.junit !== undefined) {
    throw new UsageError("give --json or --junit, not both");
  }
  const only = args.only?.split(",").map((id) => id.trim().toUpperCase()).filter((id) => id);
  if (only !== undefined) {
    if (only.length === 0) throw new UsageError("--only needs check ids, e.g. --only C001,C013");
    const unknown = unknownCheckIds(only);
    if (unknown.length) throw new UsageError(`--only: no check ${unknown.join(", ")}`);
  }
  const options: RunOptions = { only, strict: args.strict };
  let target: StreamTarget;
  let cleanup = () => {};
  const stdio = args.stdio !== undefined || args.stdioArgv !== undefined;
  if (args.http !== undefined && stdio) throw new UsageError("give --stdio or --http, not both");
  if ((args.header !== undefined || args.token !== undefined) && args.http === undefined) {
    throw new UsageError("--header and --token go with --http");
  }
  if (args.http !== undefined) {
    const endpoint = httpEndpoint(args.http, args.header ?? [], args.token);
    const report = await runHttpConformance(endpoint, options);
    return await print(report, args);
  }
  if (stdio) {
    const argv = args.stdioArgv ?? splitCommand(args.stdio!);
    try {
      target = spawnTarget(argv, args.cwd);
    } catch (error) {
      console.error(
        `devserver: cannot start ${JSON.stringify(argv[0])}: ${(error as Error).message}`,
      );
      return 2;
    }
  } else {
    const inProcess = await inProcessTarget(configFor(args));
    target = inProcess.target;
    cleanup = inProcess.close;
  }
  let report;
  try {
    report = await runConformance(target, options);
  } finally {
    cleanup();
  }
  return await print(report, args);
}

/** The endpoint of `--http URL --header K:V… --token T`. */
export function httpEndpoint(url: string, headers: string[], token?: string): HttpEndpoint {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--http: not a URL: ${url}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UsageError(`--http: not an http(s) URL: ${url}`);
  }
  const all: Record<string, string> = {};
  for (const header of headers) {
    const colon = header.indexOf(":");
    const name = colon > 0 ? header.slice(0, colon).trim() : "";
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError(`--header: expected NAME:VALUE, got ${JSON.stringify(header)}`);
    }
    all[name] = header.slice(colon + 1).trim();
  }
  if (token !== undefined) all["Authorization"] = `Bearer ${token}`;
  return { url: parsed.href, headers: all };
}

async function print(report: ConformanceReport, args: ParsedArgs): Promise<number> {
  if (args.junit === "-") {
    console.log(formatJunit(report).trimEnd());
  } else if (args.junit !== undefined) {
    try {
      await Deno.writeTextFile(args.junit, formatJunit(report));
    } catch (error) {
      // The devserver permission set grants write (ADR-045); a run without it, or a bad path, ends here.
      console.error(`devserver: cannot write ${args.junit}: ${(error as Error).message}`);
      return 2;
    }
    console.log(formatTable(report));
  } else {
    console.log(args.json ? formatJson(report) : formatTable(report));
  }
  if (report.connectionError) return 2;
  return report.conformant ? 0 : 1;
}

function splitCommand(line: string): string[] {
  let argv: string[];
  try {
    argv = shellWords(line);
  } catch (error) {
    throw new UsageError(`--stdio: ${(error as Error).message}`);
  }
  if (argv.length === 0) throw new UsageError("--stdio needs a command");
  return argv;
}

/**
 * This server in-process: the sandbox and factory `serve` builds, a
 * `LineTransport` over two in-memory pipes, and `serveStdio` on top.
 */
export async function inProcessTarget(
  config: Config,
): Promise<{ target: StreamTarget; close: () => void }> {
  const server = createDevServer(config);
  await server.sandbox.started;
  const { target, close } = connectInProcess(server, config);
  return {
    target,
    close: () => {
      close();
      server.close();
    },
  };
}

/** One connection to an already built server: as `serve` wires stdin and stdout, over memory. */
export function connectInProcess(
  server: DevServer,
  config: Config,
): { target: StreamTarget; close: () => void } {
  const toServer = new TransformStream<Uint8Array, Uint8Array>();
  // The server's output goes straight into the checker's readable, which ends when the transport closes.
  let output!: ReadableStreamDefaultController<Uint8Array>;
  let outputOpen = true;
  const readable = new ReadableStream<Uint8Array>({ start: (c) => void (output = c) });
  const fromServer = new WritableStream<Uint8Array>({
    write: (chunk) => {
      if (outputOpen) output.enqueue(chunk);
    },
  });
  const transport = new LineTransport(toServer.readable, fromServer, {
    maxLineBytes: config.maxLineBytes,
    drainMs: longestCallMs(config),
  });
  const ended = Promise.withResolvers<{ code: number | null }>();
  const handle = serveStdio(server.factory, { legacy: config.legacyClients, transport });
  const previous = transport.onclose;
  transport.onclose = () => {
    previous?.();
    if (outputOpen) {
      outputOpen = false;
      output.close();
    }
    ended.resolve({ code: 0 });
  };
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    handle.close().catch(() => {});
  };
  return {
    target: {
      description: `devserver (in-process, ${workspacePhrase(config.workspaceName)})`,
      input: toServer.writable,
      output: readable,
      ended: ended.promise,
      stderr: () => "",
      kill: async () => {
        await transport.close().catch(() => {});
      },
    },
    close,
  };
}
