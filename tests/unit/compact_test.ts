/**
 * The tool worker's collection after a long call (ADR-118): `compactHeap`
 * collects only where V8 exposes `gc` (the `devserver` task's flags), and
 * `compactingAfter` schedules it after a long call's answer, never after a
 * short one.
 */

import assert from "node:assert/strict";
import { compactingAfter } from "../../src/contract/compact.ts";
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
