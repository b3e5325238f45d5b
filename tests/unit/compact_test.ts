/**
 * The tool worker's collection after a long call (ADR-118): `compactHeap`
 * collects only where V8 exposes `gc` (the `devserver` task's flags), and
 * `compactingAfter` schedules it after a long call's answer, never after a
 * short one.
 */

import assert from "node:assert/strict";
import { COMPACT_AFTER_MS, COMPACT_IDLE_MS, compactingAfter } from "../../src/contract/compact.ts";
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
  assert.equal(await compactingAfter(slow, 20, () => compacted++, 0), "done");
  assert.equal(compacted, 0, "the collection waits for the answer to be out");
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(compacted, 1);
  const failing = () =>
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error("late")), 40));
  await assert.rejects(compactingAfter(failing, 20, () => compacted++, 0), /late/);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(compacted, 2);
});

Deno.test("compactingAfter's default: a search's first page (150 ms) collects, a read_file (5 ms) does not", async () => {
  // ADR-138: first pages over a big tree take 150–250 ms; with ADR-118's 500 ms none of them
  // collected, and 24 in a row grew the server's peak RSS to 231 MB.
  assert.ok(
    COMPACT_AFTER_MS <= 150 && COMPACT_AFTER_MS > 5,
    `COMPACT_AFTER_MS is ${COMPACT_AFTER_MS}`,
  );
  let compacted = 0;
  const page = () => new Promise<string>((r) => setTimeout(() => r("page"), 150));
  assert.equal(await compactingAfter(page, undefined, () => compacted++), "page");
  await new Promise((r) => setTimeout(r, COMPACT_IDLE_MS + 30));
  assert.equal(compacted, 1, "a first page's call is followed by a collection");
  const read = () => new Promise<string>((r) => setTimeout(() => r("read"), 5));
  assert.equal(await compactingAfter(read, undefined, () => compacted++), "read");
  await new Promise((r) => setTimeout(r, COMPACT_IDLE_MS + 30));
  assert.equal(compacted, 1, "a short call is not");
});

Deno.test("compactingAfter: a call that starts within the idle wait postpones the collection; it runs once, when idle", async () => {
  // ADR-138: back-to-back calls (an agent paging, a benchmark) must not wait for a collection
  // scheduled by the call before; the thread collects once it has been idle for idleMs.
  let compacted = 0;
  const long = () => new Promise<string>((r) => setTimeout(() => r("long"), 30));
  await compactingAfter(long, 20, () => compacted++, 80);
  await new Promise((r) => setTimeout(r, 20));
  await compactingAfter(long, 20, () => compacted++, 80); // starts 20 ms later: cancels the first
  await new Promise((r) => setTimeout(r, 40));
  assert.equal(compacted, 0, "neither collection ran while calls kept coming");
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(compacted, 1, "the thread collects once, after the last long call, when idle");
});

Deno.test("compactingAfter: a short call within the idle wait does not lose the long call's collection", async () => {
  // ADR-138: a search then a quick read_file must still collect the search's garbage.
  let compacted = 0;
  const long = () => new Promise<string>((r) => setTimeout(() => r("long"), 30));
  const short = () => Promise.resolve("short");
  await compactingAfter(long, 20, () => compacted++, 60);
  await compactingAfter(short, 20, () => compacted++, 60);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(compacted, 0, "postponed past the short call");
  await new Promise((r) => setTimeout(r, 70));
  assert.equal(compacted, 1, "and run once the thread is idle");
});
