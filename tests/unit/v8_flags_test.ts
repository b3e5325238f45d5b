import assert from "node:assert/strict";
import { devserverRunFlags, devserverV8FlagsArg, serveArgs } from "../../scripts/lib/program.ts";

const REGEXP_FLAGS = [
  "--enable-experimental-regexp-engine-on-excessive-backtracks",
  "--enable-experimental-regexp-engine",
];
/** A 4 MiB young generation for every isolate: a full scan's peak RSS under 200 MB, the HTTP main thread's GC (ADR-076, ADR-089). */
/** `gc()` for the tool workers' collection after a long call (ADR-118). */
const MEMORY_FLAGS = ["--max-semi-space-size=4", "--expose-gc"];

Deno.test("V8 flags: the devserver task defines exactly the regexp-engine flags, the young-generation size and --expose-gc, once", () => {
  const flags = devserverRunFlags().filter((f) => f.startsWith("--v8-flags="));
  assert.equal(flags.length, 1);
  assert.deepEqual(flags[0].slice("--v8-flags=".length).split(","), [
    ...REGEXP_FLAGS,
    ...MEMORY_FLAGS,
  ]);
  assert.ok(serveArgs("/w").includes(devserverV8FlagsArg()), "child programs get them");
});

Deno.test("V8 flags: the test runner and deno compile take them from the task", async () => {
  for (const script of ["scripts/test.ts", "scripts/compile.ts"]) {
    const source = await Deno.readTextFile(new URL(`../../${script}`, import.meta.url));
    assert.match(source, /devserverV8FlagsArg\(\),/, `${script} passes devserverV8FlagsArg()`);
    assert.doesNotMatch(source, /--enable-experimental-regexp/, `${script} repeats no flag`);
  }
});

Deno.test("V8 flags: this test process runs with them (the l flag compiles, a backreference is refused)", () => {
  assert.doesNotThrow(() => new RegExp("a+b", "l"));
  assert.throws(() => new RegExp("(a)\\1", "l"), /linear time/);
  // The backtracking fallback: a catastrophic pattern ends quickly.
  const started = performance.now();
  /(a+)+$/.test("a".repeat(40) + "!");
  assert.ok(performance.now() - started < 2000);
});
