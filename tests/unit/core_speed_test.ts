import assert from "node:assert/strict";
import {
  atFullSpeed,
  coreSpeedProbe,
  FULL_SPEED_SLACK,
  probeWork,
} from "../../scripts/lib/core_speed.ts";

Deno.test("bench:content's core speed probe tries its pattern at every start and matches none (its work is fixed, not cut short by a match)", () => {
  // The text holds 2,000 `curl` commands and no `@.env`: every try runs to its failure.
  assert.equal(probeWork(), 0);
  const ms = coreSpeedProbe();
  assert.ok(Number.isFinite(ms) && ms >= 0, `a CPU time in ms, got ${ms}`);
});

Deno.test("bench:content counts a sample at full core speed up to 1.25× the run's fastest probe, not beyond (the slower state is 1.5–2×)", () => {
  assert.equal(FULL_SPEED_SLACK, 1.25);
  assert.equal(atFullSpeed(0.5, 0.5), true);
  assert.equal(atFullSpeed(0.625, 0.5), true);
  assert.equal(atFullSpeed(0.63, 0.5), false);
  // A probe in the slower state (1.5× and 2× the fastest) is never counted as full speed.
  assert.equal(atFullSpeed(0.75, 0.5), false);
  assert.equal(atFullSpeed(1.0, 0.5), false);
});
