/**
 * The worker lent to a call as its second thread (ADR-064) is a worker of
 * the pool, created with the tool-worker grant: it reads the workspace and
 * runs git, nothing else — no more than the worker it helps. An attacker who
 * could steer a search into the helper gains nothing by it.
 */

import assert from "node:assert/strict";
import { sandboxSettings } from "../../src/app.ts";
import { startSandbox } from "../../src/isolation/sandbox.ts";
import { configFor, makeWorkspace } from "../helpers/fixtures.ts";
import { HANG_DEADLINE_MS, within } from "./helpers.ts";

const PROBE_WORKER = new URL("./fixtures/assist_probe_worker.ts", import.meta.url);

Deno.test("attack: the worker lent to a search as its second thread has the tool-worker grant and no more (no write, net, env, other programs, ffi, sys, read outside)", async () => {
  await using ws = await makeWorkspace();
  const settings = sandboxSettings(configFor(ws.root));
  const sandbox = startSandbox({ ...settings, poolSize: 2 }, { toolWorkerUrl: PROBE_WORKER });
  try {
    await within(sandbox.ready, HANG_DEADLINE_MS, "the pool warming up");
    const result = await within(sandbox.run("probe", {}), HANG_DEADLINE_MS, "the probe");
    assert.equal(result.kind, "ok", JSON.stringify(result));
    const { asker, helper } = (result as { structured: Record<string, unknown> }).structured;
    assert.equal(sandbox.lentWorkers, 1, "no worker was lent");
    assert.ok(helper, "the helper did not answer");
    assert.deepEqual(helper, asker, "the helper's grant differs from the asker's");
    // "prompt" in a worker is a refusal: a worker cannot prompt, and nothing is granted.
    const granted = Object.entries(helper as Record<string, string>)
      .filter(([, state]) => state === "granted").map(([name]) => name).sort();
    assert.deepEqual(granted, ["readRoot", "runGit"]);
  } finally {
    sandbox.close();
  }
});

Deno.test("sandbox: with one worker in the pool, a request for a second thread is declined at once, never queued", async () => {
  await using ws = await makeWorkspace();
  const settings = sandboxSettings(configFor(ws.root));
  const sandbox = startSandbox({ ...settings, poolSize: 1 }, { toolWorkerUrl: PROBE_WORKER });
  try {
    await within(sandbox.ready, HANG_DEADLINE_MS, "the pool warming up");
    const result = await within(sandbox.run("probe", {}), HANG_DEADLINE_MS, "the probe");
    assert.equal(result.kind, "ok", JSON.stringify(result));
    assert.equal((result as { structured: Record<string, unknown> }).structured.helper, null);
    assert.equal(sandbox.lentWorkers, 0);
  } finally {
    sandbox.close();
  }
});
