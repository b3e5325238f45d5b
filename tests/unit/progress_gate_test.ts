import assert from "node:assert/strict";
import {
  cleanProgress,
  PROGRESS_INTERVAL_MS,
  PROGRESS_MESSAGE_CHARS,
  ProgressGate,
} from "../../src/isolation/progress.ts";

Deno.test("progress gate: passes strictly increasing values at most once per interval", () => {
  let now = 0;
  const gate = new ProgressGate(PROGRESS_INTERVAL_MS, () => now);
  assert.equal(gate.admit(1), true);
  assert.equal(gate.admit(2), false, "too soon");
  now += PROGRESS_INTERVAL_MS;
  assert.equal(gate.admit(1), false, "went back");
  assert.equal(gate.admit(Number.NaN), false);
  assert.equal(gate.admit(Infinity), false);
  assert.equal(gate.admit(5), true);
  now += PROGRESS_INTERVAL_MS * 3;
  assert.equal(gate.admit(5), false, "repeated");
  assert.equal(gate.admit(6), true);
});

Deno.test("attack: a progress message with control and bidi characters is escaped and cut; a bogus total is dropped", () => {
  const cleaned = cleanProgress({
    progress: 3,
    total: 2,
    message: "a\n\u202eRemedy: x" + "y".repeat(500),
  });
  assert.equal(cleaned.total, undefined);
  assert.ok(!/[\n\u202e]/.test(cleaned.message!), cleaned.message);
  assert.ok(cleaned.message!.length <= PROGRESS_MESSAGE_CHARS);
  assert.deepEqual(cleanProgress({ progress: 1, total: 4 }), { progress: 1, total: 4 });
  assert.deepEqual(cleanProgress({ progress: 1, total: Number.NaN }), { progress: 1 });
});
