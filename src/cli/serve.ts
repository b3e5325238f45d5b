/**
 * `devserver serve`: the sandbox, the SDK server and a transport (stdio, or
 * Streamable HTTP), wired together. The main thread creates the tool
 * workers and the supervisor first; once their modules have loaded
 * (`sandbox.started`) it drops read, run, env, write, ffi and sys — and net
 * too over stdio; HTTP keeps net to listen — and only then reads its first
 * line of input or accepts its first connection: from then on only the
 * workers can touch the workspace.
 *
 * @module
 */

import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { createDevServer, type DevServer, longestCallMs } from "../app.ts";
import { type Config, ConfigError, isLoopbackHost } from "../config/load.ts";
import { REFUSAL_CODES } from "../contract/refusal.ts";
import { workspacePhrase } from "../contract/text.ts";
import { log, logEnabled, logRecord } from "../log.ts";
import { dropMainThreadPermissions, reportPermissions } from "../isolation/permissions.ts";
import { redactSecrets } from "../secrets/find.ts";
import { TOOL_SPECS } from "../tools/specs.ts";
import { LATE, raceDeadline } from "../transport/deadline.ts";
import { type HttpServer, type Readiness, serveHttp } from "../transport/http.ts";
import { recordFields } from "../transport/http_log.ts";
import { HttpMetrics } from "../transport/http_metrics.ts";
import { LineTransport } from "../transport/stdio.ts";
import type { SandboxOptions } from "../isolation/sandbox.ts";
import type { ParsedArgs } from "./args.ts";

/** Serves until the client closes stdin (stdio) or a signal arrives (http); resolves with the exit code. */
export function runServe(config: Config, _args: ParsedArgs): Promise<number> {
  return config.transport === "http" ? serveOverHttp(config) : serveOverStdio(config);
}

/**
 * Builds the server and waits for the workers' modules to load (under the
 * main thread's read grant), then drops the main thread's permissions:
 * everything but net when `keepNet` (HTTP), everything over stdio.
 */
async function startServer(
  config: Config,
  options: Partial<SandboxOptions>,
  keepNet: boolean,
): Promise<DevServer> {
  const server = createDevServer(config, options);
  await server.sandbox.started;
  await dropMainThreadPermissions(keepNet);
  const held = await reportPermissions();
  log(
    "debug",
    "main thread permissions after start: " +
      Object.entries(held).map(([name, state]) => `${name}=${state}`).join(" "),
  );
  return server;
}

/** The JSON-RPC methods the metrics name (any other is counted as `other`). */
const KNOWN_METHODS = [
  "server/discover",
  "initialize",
  "notifications/initialized",
  "notifications/cancelled",
  "ping",
  "tools/list",
  "tools/call",
];

/** How long a `/readyz` probe of the tool worker may take before it counts as not ready. */
export const READINESS_TIMEOUT_MS = 5000;

/** How long one `/readyz` answer is reused, so unauthenticated probes cannot load the workers. */
export const READINESS_REUSE_MS = 1000;

/**
 * The `/readyz` checks: git found at start, and a listing of the root
 * through a tool worker. Probes at the same time share one listing, and an
 * answer is reused for {@linkcode READINESS_REUSE_MS}: `/readyz` needs no
 * token, so a flood of it must not become a flood of tool calls.
 */
export function readinessProbe(server: DevServer, gitFound: boolean): () => Promise<Readiness> {
  let last: { at: number; answer: Promise<Readiness> } | undefined;
  const probe = async (): Promise<Readiness> => {
    const listing = server.dispatcher.call("list_directory", {})
      .then((result) => result.isError !== true)
      .catch(() => false);
    const answer = await raceDeadline(listing, READINESS_TIMEOUT_MS);
    const workspace = answer === true;
    const checks = { workspace_readable: workspace, tool_worker: answer !== LATE, git: gitFound };
    return { ready: Object.values(checks).every(Boolean), checks };
  };
  return () => {
    const now = performance.now();
    if (last === undefined || now - last.at > READINESS_REUSE_MS) {
      const answer = probe();
      last = { at: now, answer };
      // Reuse from when the answer is known, not from when it was asked.
      answer.then(() => {
        if (last?.answer === answer) last.at = performance.now();
      });
    }
    return last.answer;
  };
}

/**
 * Serves `config` over Streamable HTTP until SIGINT or SIGTERM, then stops
 * accepting, gives calls in flight `MCP_HTTP__SHUTDOWN_MS` and resolves 0.
 * Prints `listening on http://HOST:PORT/mcp` to stderr once bound.
 */
export async function serveOverHttp(
  config: Config,
  options: Partial<SandboxOptions> = {},
): Promise<number> {
  // Production refuses HTTP without a token at configuration (src/config/load.ts).
  if (!isLoopbackHost(config.httpHost) && config.bearerToken === undefined) {
    log(
      "warn",
      `listening on the non-loopback address ${config.httpHost} without a bearer token: ` +
        "anyone who can reach it can read the workspace; set MCP_HTTP__BEARER_TOKEN",
    );
  }
  const server = await startServer(config, options, true);
  const metrics = config.httpMetrics
    ? new HttpMetrics({
      methods: KNOWN_METHODS,
      tools: TOOL_SPECS.map((t) => t.name),
      refusalCodes: REFUSAL_CODES,
      workerRestarts: () => server.sandbox.replacedWorkers,
    })
    : undefined;
  let http: HttpServer;
  try {
    http = serveHttp({
      hostname: config.httpHost,
      port: config.httpPort,
      factory: server.factory,
      legacy: config.legacyClients === "serve" ? "stateless" : "reject",
      policy: {
        allowedHosts: config.httpAllowedHosts,
        allowedOrigins: config.httpAllowedOrigins,
      },
      bearerToken: config.bearerToken,
      maxBodyBytes: config.httpMaxBodyBytes,
      requestTimeoutMs: config.httpRequestTimeoutMs,
      maxConcurrentCalls: config.httpMaxConcurrentCalls,
      maxQueuedCalls: config.httpMaxQueuedCalls,
      metrics,
      readiness: readinessProbe(server, server.gitFound),
      onRequest: (record) => {
        if (record.outcome === "refused" && record.method === "tools/call") {
          if (typeof record.errorCode === "string") metrics?.countRefusal(record.errorCode);
        }
        // The record's line is built only when it is written (not at the default level, warn).
        if (!logEnabled("info")) return;
        logRecord(
          "info",
          recordFields(record, { arguments: config.logArguments, redact: redactSecrets }),
        );
      },
      onError: (error) => log("debug", `http: ${error.name}`),
    });
  } catch (error) {
    server.close();
    if (error instanceof Deno.errors.AddrInUse) {
      throw new ConfigError(
        `cannot listen on ${config.httpHost}:${config.httpPort}: the port is in use`,
      );
    }
    if (
      error instanceof Deno.errors.AddrNotAvailable || error instanceof Deno.errors.PermissionDenied
    ) {
      throw new ConfigError(
        `cannot listen on ${config.httpHost}:${config.httpPort}: ${error.name}`,
      );
    }
    throw error;
  }
  console.error(`devserver: listening on ${http.url}`);
  log("info", `serving ${workspacePhrase(config.workspaceName)} over http`);
  const stop = Promise.withResolvers<string>();
  const onSignal = (name: string) => () => stop.resolve(name);
  const handlers = (["SIGINT", "SIGTERM"] as const).map((signal) => {
    const handler = onSignal(signal);
    Deno.addSignalListener(signal, handler);
    return [signal, handler] as const;
  });
  const why = await Promise.race([stop.promise, http.finished.then(() => "closed")]);
  log("info", `${why}: stopping; calls in flight have ${config.httpShutdownMs} ms`);
  await http.shutdown(config.httpShutdownMs);
  for (const [signal, handler] of handlers) Deno.removeSignalListener(signal, handler);
  server.close();
  log("info", "stopped");
  return 0;
}

/**
 * Serves `config` over stdin/stdout until stdin closes. `options` lets the
 * security suite serve a substitute tool worker through the real program.
 */
export async function serveOverStdio(
  config: Config,
  options: Partial<SandboxOptions> = {},
): Promise<number> {
  const server = await startServer(config, options, false);
  log("info", `serving ${workspacePhrase(config.workspaceName)} over ${config.transport}`);
  const closed = Promise.withResolvers<void>();
  const transport = new LineTransport(Deno.stdin.readable, Deno.stdout.writable, {
    maxLineBytes: config.maxLineBytes,
    drainMs: longestCallMs(config),
  });
  const handle = serveStdio(server.factory, {
    legacy: config.legacyClients,
    transport,
    onerror: (error) => log("debug", error.message),
  });
  const previousOnClose = transport.onclose;
  transport.onclose = () => {
    previousOnClose?.();
    closed.resolve();
  };
  await closed.promise;
  await handle.close().catch(() => {});
  server.close();
  return 0;
}
