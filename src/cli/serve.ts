/**
 * `devserver serve`: the sandbox, the SDK server and the stdio transport,
 * wired together. The main thread creates the tool workers and the
 * supervisor first; once their modules have loaded (`sandbox.started`) it
 * drops read, run, env, write, ffi, sys and net, and only then reads its
 * first line of input: from then on only the workers can touch the workspace.
 *
 * @module
 */

import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { createDevServer, longestCallMs } from "../app.ts";
import type { Config } from "../config/load.ts";
import { workspacePhrase } from "../contract/text.ts";
import { log } from "../log.ts";
import { dropMainThreadPermissions, reportPermissions } from "../isolation/permissions.ts";
import { LineTransport } from "../transport/stdio.ts";
import type { SandboxOptions } from "../isolation/sandbox.ts";
import type { ParsedArgs } from "./args.ts";

/** Serves until the client closes stdin; resolves with the exit code. */
export function runServe(config: Config, _args: ParsedArgs): Promise<number> {
  return serveOverStdio(config);
}

/**
 * Serves `config` over stdin/stdout until stdin closes. `options` lets the
 * security suite serve a substitute tool worker through the real program.
 */
export async function serveOverStdio(
  config: Config,
  options: Partial<SandboxOptions> = {},
): Promise<number> {
  const server = createDevServer(config, options);
  await server.sandbox.started; // the workers' modules load under our read grant
  await dropMainThreadPermissions(false);
  const held = await reportPermissions();
  log(
    "debug",
    "main thread permissions after start: " +
      Object.entries(held).map(([name, state]) => `${name}=${state}`).join(" "),
  );
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
