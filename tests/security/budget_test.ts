/**
 * Denial-of-service attacks on the sandbox: a tool call that never returns
 * (busy or idle), a flood of them, and tool workers that crash. The budget
 * must answer `timed_out`, the worker must be replaced, and the sandbox must
 * keep serving.
 */

import assert from "node:assert/strict";
import { sandboxSettings } from "../../src/app.ts";
import { type Sandbox, startSandbox } from "../../src/isolation/sandbox.ts";
import type { RawToolResult } from "../../src/contract/result.ts";
import { configFor, makeWorkspace, type TempWorkspace } from "../helpers/fixtures.ts";
import { HANG_DEADLINE_MS, within } from "./helpers.ts";

const HANG_WORKER = new URL("./fixtures/hang_worker.ts", import.meta.url);
const BUDGET_MS = 300;

async function startHangSandbox(
  ws: TempWorkspace,
  poolSize: number,
  queueLimit?: number,
): Promise<Sandbox & Disposable> {
  const settings = sandboxSettings(
    configFor(ws.root, { MCP_SANDBOX__TOOL_TIMEOUT_MS: String(BUDGET_MS) }),
  );
  const sandbox = startSandbox(
    { ...settings, poolSize, queueLimit: queueLimit ?? settings.queueLimit },
    { toolWorkerUrl: HANG_WORKER },
  );
  await within(sandbox.ready, HANG_DEADLINE_MS, "the pool warming up");
  return Object.assign(sandbox, { [Symbol.dispose]: () => sandbox.close() });
}

async function whoami(sandbox: Sandbox): Promise<string> {
  const result = await within(sandbox.run("whoami", {}), HANG_DEADLINE_MS, "whoami");
  assert.ok(result.kind === "ok", JSON.stringify(result));
  const instance = result.structured.instance;
  assert.equal(typeof instance, "string");
  return instance as string;
}

/** Waits (bounded) for the supervisor's replacement events to arrive. */
async function replacedWorkersReach(sandbox: Sandbox, count: number): Promise<void> {
  const deadline = Date.now() + HANG_DEADLINE_MS;
  while (sandbox.replacedWorkers < count && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(sandbox.replacedWorkers, count);
}

function assertRefusedWith(result: RawToolResult, code: string, ws: TempWorkspace): void {
  assert.equal(result.kind, "refused", JSON.stringify(result));
  assert.equal((result as { error: string }).error, code, JSON.stringify(result));
  const json = JSON.stringify(result);
  assert.ok(!json.includes(ws.root) && !json.includes("deliberate"), json);
}

Deno.test("attack: a tool call that busy-loops forever is stopped at its budget: timed_out, worker replaced, next call answered by a fresh worker", async () => {
  await using ws = await makeWorkspace();
  using sandbox = await startHangSandbox(ws, 1);
  const before = await whoami(sandbox);
  const started = performance.now();
  const result = await within(sandbox.run("hang", {}), HANG_DEADLINE_MS, "hang");
  const elapsed = performance.now() - started;
  assertRefusedWith(result, "timed_out", ws);
  assert.ok(elapsed >= BUDGET_MS - 20, `answered before the budget: ${elapsed} ms`);
  assert.ok(elapsed < BUDGET_MS + 5_000, `answered too late: ${elapsed} ms`);
  await replacedWorkersReach(sandbox, 1);
  const after = await whoami(sandbox);
  assert.notEqual(after, before, "the hung worker was not replaced");
});

Deno.test("attack: a tool call that never answers (idle, not busy) is timed_out too", async () => {
  await using ws = await makeWorkspace();
  using sandbox = await startHangSandbox(ws, 1);
  const result = await within(sandbox.run("stall", {}), HANG_DEADLINE_MS, "stall");
  assertRefusedWith(result, "timed_out", ws);
  await replacedWorkersReach(sandbox, 1);
  await whoami(sandbox);
});

Deno.test("attack: a hung call does not block other calls: a concurrent call is answered before the hung one times out", async () => {
  await using ws = await makeWorkspace();
  using sandbox = await startHangSandbox(ws, 2);
  const order: string[] = [];
  const hang = sandbox.run("hang", {}).then((r) => (order.push("hang"), r));
  const other = sandbox.run("whoami", {}).then((r) => (order.push("whoami"), r));
  const [hangResult, otherResult] = await within(
    Promise.all([hang, other]),
    HANG_DEADLINE_MS,
    "both calls",
  );
  assert.deepEqual(order, ["whoami", "hang"]);
  assert.equal(otherResult.kind, "ok");
  assertRefusedWith(hangResult, "timed_out", ws);
});

Deno.test("attack: a flood of hanging calls (more than the pool) all time out in bounded time, and the sandbox still serves", async () => {
  await using ws = await makeWorkspace();
  using sandbox = await startHangSandbox(ws, 2);
  const floods = 6;
  const started = performance.now();
  const results = await within(
    Promise.all(Array.from({ length: floods }, () => sandbox.run("hang", {}))),
    HANG_DEADLINE_MS,
    "the flood",
  );
  const elapsed = performance.now() - started;
  for (const result of results) assertRefusedWith(result, "timed_out", ws);
  // Three rounds of the budget on two workers, plus replacements warming up.
  assert.ok(elapsed < 3 * BUDGET_MS + 10_000, `flood took ${elapsed} ms`);
  await replacedWorkersReach(sandbox, floods);
  await whoami(sandbox);
});

Deno.test("attack: a tool worker that throws answers internal_error, is replaced, and the sandbox keeps serving", async () => {
  await using ws = await makeWorkspace();
  using sandbox = await startHangSandbox(ws, 1);
  const before = await whoami(sandbox);
  const result = await within(sandbox.run("throw", {}), HANG_DEADLINE_MS, "throw");
  assertRefusedWith(result, "internal_error", ws);
  await replacedWorkersReach(sandbox, 1);
  const after = await whoami(sandbox);
  assert.notEqual(after, before);
  // And again: crashes do not accumulate into a dead sandbox.
  for (let i = 0; i < 3; i++) {
    assertRefusedWith(await sandbox.run("throw", {}), "internal_error", ws);
  }
  await replacedWorkersReach(sandbox, 4);
  await whoami(sandbox);
});

Deno.test("attack: a tool worker with an unhandled promise rejection is answered (internal_error or timed_out), never left pending", async () => {
  await using ws = await makeWorkspace();
  using sandbox = await startHangSandbox(ws, 1);
  const result = await within(sandbox.run("reject", {}), HANG_DEADLINE_MS, "reject");
  assert.equal(result.kind, "refused");
  assert.ok(
    ["internal_error", "timed_out"].includes((result as { error: string }).error),
    JSON.stringify(result),
  );
  await replacedWorkersReach(sandbox, 1);
  await whoami(sandbox);
});

Deno.test("attack: a flood beyond the queue limit is refused busy at once instead of piling up", async () => {
  await using ws = await makeWorkspace();
  using sandbox = await startHangSandbox(ws, 1, 2);
  // One call runs (and hangs), two wait; the fourth finds the queue full.
  const flood = [0, 1, 2].map(() => sandbox.run("hang", {}));
  const started = performance.now();
  const refused = await within(sandbox.run("hang", {}), HANG_DEADLINE_MS, "the fourth call");
  assert.ok(
    performance.now() - started < BUDGET_MS,
    "busy must be answered before any budget runs out",
  );
  assertRefusedWith(refused, "busy", ws);
  const results = await within(Promise.all(flood), HANG_DEADLINE_MS * 2, "the flood");
  for (const result of results) assertRefusedWith(result, "timed_out", ws);
  assert.match(await whoami(sandbox), /.+/);
});
