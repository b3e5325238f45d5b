/**
 * The worker lent to a call as its second thread (ADR-064) is a worker of
 * the pool, created with the tool-worker grant: it reads the workspace and
 * runs git, nothing else — no more than the worker it helps. An attacker who
 * could steer a search into the helper gains nothing by it.
 */

import assert from "node:assert/strict";
import { sandboxSettings } from "../../src/app.ts";
import { type Sandbox, startSandbox } from "../../src/isolation/sandbox.ts";
import { configFor, makeWorkspace } from "../helpers/fixtures.ts";
import { HANG_DEADLINE_MS, within } from "./helpers.ts";

const PROBE_WORKER = new URL("./fixtures/assist_probe_worker.ts", import.meta.url);

/**
 * Runs the probe tool once in a pool of `poolSize` probe workers and hands its structured
 * answer (the asker's and the helper's permission states) and the sandbox to `check`.
 */
async function probeIn(
  poolSize: number,
  check: (structured: Record<string, unknown>, sandbox: Sandbox) => void,
): Promise<void> {
  await using ws = await makeWorkspace();
  const settings = sandboxSettings(configFor(ws.root));
  const sandbox = startSandbox({ ...settings, poolSize }, { toolWorkerUrl: PROBE_WORKER });
  try {
    await within(sandbox.ready, HANG_DEADLINE_MS, "the pool warming up");
    const result = await within(sandbox.run("probe", {}), HANG_DEADLINE_MS, "the probe");
    assert.equal(result.kind, "ok", JSON.stringify(result));
    check((result as { structured: Record<string, unknown> }).structured, sandbox);
  } finally {
    sandbox.close();
  }
}

Deno.test("attack: the worker lent to a search as its second thread has the tool-worker grant and no more (no write, net, env, other programs, ffi, sys, read outside)", async () => {
  await probeIn(2, ({ asker, helper }, sandbox) => {
    assert.equal(sandbox.lentWorkers, 1, "no worker was lent");
    assert.ok(helper, "the helper did not answer");
    assert.deepEqual(helper, asker, "the helper's grant differs from the asker's");
    // "prompt" in a worker is a refusal: a worker cannot prompt, and nothing is granted.
    const granted = Object.entries(helper as Record<string, string>)
      .filter(([, state]) => state === "granted").map(([name]) => name).sort();
    assert.deepEqual(granted, ["readRoot", "runGit"]);
  });
});

Deno.test("sandbox: with one worker in the pool, a request for a second thread is declined at once, never queued", async () => {
  await probeIn(1, ({ helper }, sandbox) => {
    assert.equal(helper, null);
    assert.equal(sandbox.lentWorkers, 0);
  });
});
