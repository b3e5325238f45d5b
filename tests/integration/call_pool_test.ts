/**
 * `devserver call` runs its one call on a pool of one tool worker (ADR-107): the second
 * worker of `serve`'s pool would come from the supervisor after the call's search had already
 * been declined help, and only held memory. The threads are counted in `/proc` (Deno names
 * each `Worker`'s thread `worker-N`): the supervisor and one tool worker for a call, the
 * supervisor and two for the default pool, so a call server that grew its pool again fails.
 */

import assert from "node:assert/strict";
import { createCallServer } from "../../src/cli/call.ts";
import { createDevServer, TOOL_WORKER_POOL_SIZE } from "../../src/app.ts";
import { configFor, makeWorkspace } from "../helpers/fixtures.ts";
import { threadsSince, workerThreads } from "../helpers/threads.ts";

/** How long the supervisor gets to create the rest of a pool once the first worker answered. */
const REFILL_MS = 2_000;

async function newThreadsOf(make: () => { sandbox: { ready: Promise<void> }; close(): void }) {
  const before = await workerThreads();
  const server = make();
  try {
    await server.sandbox.ready;
    await new Promise((resolve) => setTimeout(resolve, REFILL_MS));
    return (await threadsSince(before)).size;
  } finally {
    server.close();
  }
}

Deno.test("devserver call's server starts one tool worker besides the supervisor; serve's pool starts two", async () => {
  await using ws = await makeWorkspace({ "a.txt": "needle\n" });
  const config = configFor(ws.root);
  const call = await newThreadsOf(() => createCallServer(config));
  assert.equal(call, 2, `the call server started ${call} worker threads (supervisor + 1 expected)`);
  const serve = await newThreadsOf(() => createDevServer(config));
  assert.equal(serve, 1 + TOOL_WORKER_POOL_SIZE, `the default pool started ${serve} threads`);
});

Deno.test("devserver call's one worker answers a search as the pool of two does", async () => {
  await using ws = await makeWorkspace({ "a.txt": "one needle\n", "b/c.txt": "two needle\n" });
  const server = createCallServer(configFor(ws.root));
  try {
    const result = await server.dispatcher.call("search_code", { pattern: "needle" });
    const s = result.structuredContent as { total_matches: number; files: { path: string }[] };
    assert.ok(!result.isError, JSON.stringify(result).slice(0, 300));
    assert.equal(s.total_matches, 2);
    assert.deepEqual(s.files.map((f) => f.path), ["a.txt", "b/c.txt"]);
  } finally {
    server.close();
  }
});
