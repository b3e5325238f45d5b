/**
 * Runs the whole test suite with coverage, enforces the coverage gate on
 * `src/` (line coverage ≥ {@linkcode COVERAGE_GATE}%), and ends with the
 * plain `N passed, N failed` line CI reads. Exit 1 on any failure, on a run
 * with no tests, or below the gate.
 *
 * Usage: deno task test   (fmt, lint and type check run first; the tests themselves run
 * with `--no-check`, so run this script through the task)
 *
 * @module
 */

import { fromFileUrl } from "../src/paths.ts";
import { devserverV8FlagsArg } from "./lib/program.ts";

/** The minimum line coverage of `src/`, in percent. */
export const COVERAGE_GATE = 85;

const repo = fromFileUrl(new URL("../", import.meta.url)).replace(/\/$/, "");
const rawDir = `${repo}/coverage/raw`;
const lcovFile = `${repo}/coverage/lcov.info`;

await Deno.remove(`${repo}/coverage`, { recursive: true }).catch(() => {});

const test = new Deno.Command(Deno.execPath(), {
  args: [
    "test",
    "--frozen",
    "--no-prompt",
    "--allow-read",
    "--allow-write",
    "--allow-run",
    "--allow-env",
    "--allow-net=127.0.0.1,localhost",
    // The task type-checks mod.ts, src/, tests/, scripts/ and examples/ just before; checked
    // again here, each worker's module graph would be checked on the worker's own thread,
    // which terminate() cannot stop (ADR-100: about 10 s of CPU for a cold tool worker).
    "--no-check",
    // In-process servers run searches in this process's workers: the same regex engines as served.
    devserverV8FlagsArg(),
    `--coverage=${rawDir}`,
    "--coverage-raw-data-only",
    // Test files run side by side: most of their time is spent waiting for
    // child programs and workers to start, not on the CPU.
    "--parallel",
    ...Deno.args,
    "tests/",
  ],
  cwd: repo,
  // Child programs started by end-to-end tests write their coverage here too.
  env: { DENO_COVERAGE_DIR: rawDir },
  stdout: "piped",
  stderr: "inherit",
}).spawn();

// Echo the runner's output while keeping its last summary line
// ("ok | N passed | M failed", possibly with ANSI colours; the coverage table follows it).
const SUMMARY = /(\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed/;
let summary: RegExpMatchArray | null = null;
let pending = "";
const decoder = new TextDecoder();
for await (const chunk of test.stdout) {
  await Deno.stdout.write(chunk);
  const lines = (pending + decoder.decode(chunk, { stream: true })).split("\n");
  pending = lines.pop() ?? "";
  for (const line of lines) {
    // deno-lint-ignore no-control-regex
    const match = line.replace(/\x1b\[[0-9;]*m/g, "").match(SUMMARY);
    if (match) summary = match;
  }
}
const status = await test.status;
const passed = summary ? Number(summary[1]) : 0;
const failed = summary ? Number(summary[2]) : 0;

let coverageOk = false;
if (status.success && passed > 0) {
  // A child program ended by a test (killed on purpose) can leave a profile
  // cut short; such a file would make `deno coverage` fail, so it is dropped.
  let dropped = 0;
  for await (const entry of Deno.readDir(rawDir)) {
    if (!entry.isFile || !entry.name.endsWith(".json")) continue;
    try {
      JSON.parse(await Deno.readTextFile(`${rawDir}/${entry.name}`));
    } catch {
      await Deno.remove(`${rawDir}/${entry.name}`);
      dropped++;
    }
  }
  if (dropped > 0) {
    console.log(`coverage: dropped ${dropped} incomplete profiles of killed children`);
  }
  const report = await new Deno.Command(Deno.execPath(), {
    args: ["coverage", rawDir, "--lcov", `--output=${lcovFile}`, `--include=^file://${repo}/src/`],
    cwd: repo,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (report.success) {
    const { found, hit, files } = summarizeLcov(await Deno.readTextFile(lcovFile));
    const percent = found === 0 ? 0 : (100 * hit) / found;
    console.log(
      `coverage: ${
        percent.toFixed(1)
      }% of ${found} lines in ${files} files under src/ (gate ${COVERAGE_GATE}%)`,
    );
    coverageOk = percent >= COVERAGE_GATE;
    if (!coverageOk) console.log("coverage gate FAILED");
  }
}

if (passed === 0 && failed === 0) console.log("no tests ran");
console.log(`${passed} passed, ${failed} failed`);
Deno.exit(status.success && passed > 0 && coverageOk ? 0 : 1);

function summarizeLcov(lcov: string): { found: number; hit: number; files: number } {
  let found = 0, hit = 0, files = 0;
  for (const line of lcov.split("\n")) {
    if (line.startsWith("SF:")) files++;
    else if (line.startsWith("LF:")) found += Number(line.slice(3));
    else if (line.startsWith("LH:")) hit += Number(line.slice(3));
  }
  return { found, hit, files };
}
