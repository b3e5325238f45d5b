/**
 * Cancellation and progress through the real program over real pipes, as
 * raw JSON lines: `devserver serve` (its configuration, sandbox, permission
 * drop, SDK and stdio transport) with the security suite's hang worker in
 * place of the tool worker, so a call can be really slow. The worker's
 * `count` loop writes how it stopped to stderr: proof the flag stopped it.
 */

import assert from "node:assert/strict";
import { devserverRunFlags } from "../../scripts/lib/program.ts";
import { makeWorkspace } from "../helpers/fixtures.ts";
import { META, RawServer, type RpcResponse } from "./support.ts";

const SERVE_HANG_WORKER = new URL("../security/fixtures/serve_hang_worker.ts", import.meta.url)
  .pathname;

function hangServer(root: string, env: Record<string, string> = {}): RawServer {
  return new RawServer(root, { MCP_SANDBOX__TOOL_TIMEOUT_MS: "20000", ...env }, {
    args: ["run", ...devserverRunFlags(), SERVE_HANG_WORKER, root],
  });
}

/** Sends `tools/call read_file {path}` (the hang worker's job `path`) without waiting. */
async function startCall(
  server: RawServer,
  path: string,
  meta: Record<string, unknown> = {},
  era: "modern" | "legacy" = "modern",
): Promise<number> {
  const id = server.nextId();
  const envelope = era === "modern" ? { ...META, ...meta } : meta;
  await server.send({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "read_file", arguments: { path }, _meta: envelope },
  });
  return id;
}

function cancel(server: RawServer, requestId: number): Promise<void> {
  return server.send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId, reason: "the user pressed stop" },
  });
}

/** A line of stdout: a response, or a notification such as `notifications/progress`. */
type Line = RpcResponse & {
  method?: string;
  params?: { progressToken?: unknown; progress: number; message?: string };
};

function parsed(server: RawServer): Line[] {
  return server.lines.map((line) => JSON.parse(line));
}

/** The first answer: generous, since a loaded machine can take seconds to start the program. */
async function firstAnswer(server: RawServer): Promise<void> {
  const id = server.nextId();
  await server.send({ jsonrpc: "2.0", id, method: "server/discover", params: { _meta: META } });
  assert.ok((await server.responseFor(id, 30_000)).result);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("attack: a cancelled call over stdio gets no response, its loop stops, later requests are still answered, and end of input does not wait for it", async () => {
  await using ws = await makeWorkspace();
  await using server = hangServer(ws.root);
  await firstAnswer(server);
  const id = await startCall(server, "count");
  await sleep(300); // the loop is running
  await cancel(server, id);
  await server.stderrLine(/hang-worker: count stopped \(cancelled\) after \d+ iterations/, 5_000);
  // Later requests are answered: a tool call (on the kept worker or the other) and discover.
  const later = await server.responseFor(await startCall(server, "whoami"));
  assert.equal((later.result as { isError?: boolean }).isError, true); // the substitute's report
  assert.match(JSON.stringify(later.result), /instance/);
  await firstAnswer(server);
  await sleep(500);
  assert.equal(parsed(server).filter((m) => m.id === id).length, 0, "the cancelled call answered");
  // End of input: nothing is left to drain, so the server exits without waiting out the call's
  // 20 s budget (the drain would wait up to 17 budgets for an unanswered request).
  const closed = performance.now();
  await server.closeStdin();
  const status = await server.exit(15_000);
  assert.equal(status.code, 0);
  assert.ok(performance.now() - closed < 15_000);
  assert.equal(parsed(server).filter((m) => m.id === id).length, 0);
});

Deno.test("attack: a cancelled call whose worker ignores the stop flag gets no response; the worker is abandoned and the next calls are answered", async () => {
  await using ws = await makeWorkspace();
  await using server = hangServer(ws.root);
  await firstAnswer(server);
  const id = await startCall(server, "hang");
  await sleep(200);
  await cancel(server, id);
  await server.stderrLine(
    /did not stop within 1000 ms of being asked \(cancelled\); it was abandoned/,
  );
  // Both workers in turn: one is fresh from the pool, the other a replacement.
  for (let i = 0; i < 3; i++) {
    const answer = await server.responseFor(await startCall(server, "whoami"), 15_000);
    assert.match(JSON.stringify(answer.result), /instance/);
  }
  await sleep(1_500); // past the grace: the abandoned call must still not be answered
  assert.equal(parsed(server).filter((m) => m.id === id).length, 0, "the cancelled call answered");
});

Deno.test("attack: a tool that reports progress on every iteration yields at most 10 notifications/progress a second over stdio, strictly increasing, all before the result and none after", async () => {
  await using ws = await makeWorkspace();
  await using server = hangServer(ws.root);
  await firstAnswer(server);
  const started = performance.now();
  const id = await startCall(server, "progress", { progressToken: "tok-1" });
  await server.responseFor(id, 15_000);
  const elapsed = performance.now() - started;
  await sleep(400);
  const messages = parsed(server);
  const resultAt = messages.findIndex((m) => m.id === id);
  const progress = messages
    .map((m, index) => ({ m, index }))
    .filter(({ m }) => m.method === "notifications/progress");
  assert.ok(progress.length >= 3, `only ${progress.length} progress notifications`);
  assert.ok(progress.length <= Math.ceil(elapsed / 100) + 1, `${progress.length} in ${elapsed} ms`);
  let last = 0;
  for (const { m, index } of progress) {
    assert.ok(index < resultAt, "a progress notification after the result");
    assert.equal(m.params!.progressToken, "tok-1");
    assert.ok(m.params!.progress > last, "progress went back or repeated");
    assert.match(m.params!.message ?? "", /^iteration \d+$/);
    last = m.params!.progress;
  }
  // A call without a progress token gets no notifications.
  const before = server.lines.length;
  const quiet = await startCall(server, "progress");
  await server.responseFor(quiet, 15_000);
  const after = parsed(server).slice(before).filter((m) => m.method === "notifications/progress");
  assert.equal(after.length, 0);
});

Deno.test("attack: a cancelled call on a 2025-era (initialize) connection gets no response either, and its loop stops", async () => {
  await using ws = await makeWorkspace();
  await using server = hangServer(ws.root);
  const init = await server.request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "e2e", version: "0" },
  });
  assert.ok(init.result, JSON.stringify(init));
  await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const id = await startCall(server, "count", {}, "legacy");
  await sleep(300);
  await cancel(server, id);
  await server.stderrLine(/hang-worker: count stopped \(cancelled\)/, 5_000);
  const later = await server.responseFor(await startCall(server, "whoami", {}, "legacy"));
  assert.match(JSON.stringify(later.result), /instance/);
  await sleep(300);
  assert.equal(parsed(server).filter((m) => m.id === id).length, 0, "the cancelled call answered");
});
