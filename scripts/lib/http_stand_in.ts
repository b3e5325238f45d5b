/**
 * A stand-in for `devserver serve --transport http` while that transport is
 * being built on another branch: the SDK's `createMcpHandler` over this
 * server's real factory and sandbox, on a loopback port, honouring the same
 * contract the load-balancer check and the HTTP benchmark rely on —
 * `MCP_SERVER__CURSOR_KEY_FILE` (at least 32 bytes, shared by instances so
 * they accept each other's cursors) and a stderr line
 * `listening on http://HOST:PORT/mcp`. `scripts/lib/http_instance.ts`
 * chooses between it and the real program.
 *
 * Usage: deno run -A scripts/lib/http_stand_in.ts --workspace DIR [--port N]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { loadConfig } from "../../src/config/load.ts";
import { sandboxSettings } from "../../src/app.ts";
import { startSandbox } from "../../src/isolation/sandbox.ts";
import { ToolDispatcher } from "../../src/protocol/dispatch.ts";
import { createServerFactory } from "../../src/protocol/server.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { workspace: { type: "string" }, port: { type: "string", default: "0" } },
});
if (values.workspace === undefined) throw new Error("--workspace DIR is required");
// The setting the real transport adds; this tree's configuration does not know it yet.
const keyFile = Deno.env.get("MCP_SERVER__CURSOR_KEY_FILE");
const env = Deno.env.toObject();
delete env.MCP_SERVER__CURSOR_KEY_FILE;
const config = loadConfig(env, {
  workspaceFlag: values.workspace,
  cwd: values.workspace,
});
const settings = sandboxSettings(config);
const cursorKey = keyFile === undefined ? settings.cursorKey : Deno.readFileSync(keyFile);
const sandbox = startSandbox({ ...settings, cursorKey }, {
  toolWorkerUrl: new URL("../../src/tool_worker.ts", import.meta.url),
});
await sandbox.started;
const dispatcher = new ToolDispatcher(sandbox, { redactSecrets: config.redactSecrets });
const handler = createMcpHandler(createServerFactory(dispatcher), { legacy: "reject" });
const http = Deno.serve(
  {
    hostname: "127.0.0.1",
    port: Number(values.port),
    onListen: ({ hostname, port }) =>
      console.error(`devserver stand-in: listening on http://${hostname}:${port}/mcp`),
  },
  (request) => {
    // The DNS-rebinding defence the real transport puts first: loopback names only.
    const refused = refuseForeign(request);
    if (refused) return refused;
    const path = new URL(request.url).pathname;
    if (path === "/healthz") return new Response("ok\n");
    if (path !== "/mcp") return new Response("Not Found", { status: 404 });
    return handler.fetch(request);
  },
);
function refuseForeign(request: Request): Response | undefined {
  const local = (host: string) => /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i.test(host);
  const host = request.headers.get("host") ?? "";
  const origin = request.headers.get("origin");
  let originHost = "";
  try {
    originHost = origin === null ? "" : new URL(origin).host;
  } catch { /* refused below */ }
  const what = !local(host) ? "Host" : origin !== null && !local(originHost) ? "Origin" : undefined;
  if (what === undefined) return undefined;
  return Response.json({ error: `${what} not allowed` }, { status: 403 });
}

const stop = async () => {
  await http.shutdown();
  sandbox.close();
  Deno.exit(0);
};
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
