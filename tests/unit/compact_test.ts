/**
 * The tool worker's collection after a long call (ADR-118): `compactHeap`
 * collects only where V8 exposes `gc` (the `devserver` task's flags), and
 * `compactingAfter` schedules it after a long call's answer, never after a
 * short one.
 */

import assert from "node:assert/strict";
import { compactingAfter, GrowthCompactor, oldGenerationUsed } from "../../src/contract/compact.ts";
import { REPO_ROOT } from "../../scripts/lib/program.ts";

async function compactsIn(v8Flags: string[]): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--no-check",
      ...v8Flags,
      `import { compactHeap } from "file://${REPO_ROOT}/src/contract/compact.ts";` +
      "console.log(String(compactHeap()));",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test("compactHeap collects under --expose-gc and does nothing without it", async () => {
  assert.equal(await compactsIn(["--v8-flags=--expose-gc"]), "true");
  assert.equal(await compactsIn([]), "false");
});

Deno.test("compactingAfter: a short call is not followed by a collection", async () => {
  let compacted = 0;
  assert.equal(await compactingAfter(() => Promise.resolve(7), 10_000, () => compacted++), 7);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(compacted, 0);
});

Deno.test("compactingAfter: a long call collects after its answer, a long failure too", async () => {
  let compacted = 0;
  const slow = () => new Promise<string>((r) => setTimeout(() => r("done"), 40));
  assert.equal(await compactingAfter(slow, 20, () => compacted++), "done");
  assert.equal(compacted, 0, "the collection waits for the answer to be out");
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(compacted, 1);
  const failing = () =>
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error("late")), 40));
  await assert.rejects(compactingAfter(failing, 20, () => compacted++), /late/);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(compacted, 2);
});

Deno.test("GrowthCompactor collects once the old generation grew by its growth, and measures again from there (ADR-121)", () => {
  // A fixed interval collected a scan that promotes ~1 MB per 16,384 files for ~30 ms each
  // time; this one collects only the growth. A compactor that never reset its base would
  // collect at every check after the first; one that measured from zero would never wait.
  let used = 50;
  let collections = 0;
  const compactor = new GrowthCompactor(10, () => used, () => {
    collections++;
    used -= 8; // what the collection freed
  });
  const answers: boolean[] = [];
  for (const next of [55, 59, 60, 61, 62, 69, 71, 72]) {
    used = next;
    answers.push(compactor.check());
  }
  // 60 is 10 above 50: collected (52 after); 62 is 10 above 52: collected (54); 69 is 15
  // above 54: collected (61); 71 is 10 above 61: collected (63); 72 is 9 above 63: not.
  assert.deepEqual(answers, [false, false, true, false, true, true, true, false]);
  assert.equal(collections, 4);
});

Deno.test("oldGenerationUsed sees garbage promoted into the old generation, and not the young one's churn", () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== "function") throw new Error("the suite runs with --expose-gc");
  gc();
  const before = oldGenerationUsed();
  // Young garbage only: allocated and dropped at once, it never reaches the old generation.
  for (let i = 0; i < 200_000; i++) void { i, s: "x" + i };
  const afterYoung = oldGenerationUsed();
  // Kept across collections: promoted, then dropped (the garbage ADR-118 collects).
  let kept: unknown[] | undefined = Array.from({ length: 100_000 }, (_, i) => ({ i, s: "y" + i }));
  for (let k = 0; k < 4; k++) for (let i = 0; i < 100_000; i++) void { i };
  const promoted = oldGenerationUsed();
  kept = undefined;
  void kept;
  assert.ok(afterYoung - before < 1024 * 1024, `young churn: ${afterYoung - before} bytes`);
  assert.ok(promoted - before > 2 * 1024 * 1024, `promoted: ${promoted - before} bytes`);
});
