/**
 * `deno task bench:floor`: the least a literal full scan of the Linux tree
 * can cost in Deno 2.9.6, against `rg -j2` in the same run — the floor under
 * `search_code`'s full-scan target (issue 6: ≤ 1.5× ripgrep).
 *
 * Two worker threads go over ripgrep's own file list for the tool's default
 * selection (`rg --files`, so no walk and no ignore matching of ours) and,
 * per file, open, read into one reused buffer and close (`io`), then also
 * decode latin1 and `indexOf` the needle line by line (`scan`): the read
 * path `search_code` used, with nothing else; then read into the literal
 * prefilter's memory and asked it first, the string made only of files
 * holding the needle (`prefilter`, the path since ADR-103, under the tool
 * worker's grant only); and one thread lists every
 * directory with `Deno.readDirSync` (`walk`), the least a walk costs. Each runs once under the tool
 * worker's grant (`toolWorkerPermissions`: read scoped to the tree, the
 * containment layer the product requires) and once with every permission
 * (where Deno skips its per-open path resolution, ADR-083), interleaved with
 * ripgrep, medians of `--rounds`. The scan's matching lines are checked
 * against ripgrep's count. CPU is this process's user + system time (both
 * threads), ripgrep's GNU `time`'s.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { CORPUS, prepareCorpus, rg, rgSelection } from "./lib/linux_corpus.ts";
import { median } from "./lib/stats.ts";
import { type FloorGrant, floorScan } from "./lib/floor_scan.ts";
import type { FloorJob } from "./lib/floor_scan_worker.ts";

const USAGE = `deno task bench:floor [--rounds N] [--threads N] [--needle TEXT]

  --rounds N     interleaved rounds, medians reported (default 5)
  --threads N    worker threads of the floor scan (default 2, as rg -j2)
  --needle TEXT  the literal (default "Linus Torvalds", bench:search's)

Corpus: BENCH_LINUX_DIR (default /tmp/bench/linux), made when missing.`;

const args = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "5" },
    threads: { type: "string", default: "2" },
    needle: { type: "string", default: "Linus Torvalds" },
    help: { type: "boolean", short: "h" },
  },
  strict: true,
});
if (args.values.help) {
  console.log(USAGE);
  Deno.exit(0);
}
const ROUNDS = Number(args.values.rounds);
const THREADS = Number(args.values.threads);
const NEEDLE = args.values.needle;
for (const [name, value] of [["--rounds", ROUNDS], ["--threads", THREADS]] as const) {
  if (!Number.isInteger(value) || value < 1 || value > 64) {
    console.error(`bench:floor: ${name} must be a whole number from 1 to 64\n\n${USAGE}`);
    Deno.exit(2);
  }
}
if (NEEDLE.length === 0 || NEEDLE.toLowerCase() === NEEDLE) {
  // Smart case: an all-lower-case needle would make ripgrep case-insensitive.
  console.error("bench:floor: --needle must hold an upper-case letter (ripgrep's smart case)");
  Deno.exit(2);
}

await prepareCorpus();
const listed = await rg(["--files", ...rgSelection()]);
const files = listed.stdout.split("\n").filter((p) => p !== "").map((p) => `${CORPUS}/${p}`);
const rgArgs = ["-j2", "-n", "-S", ...rgSelection(), "-F", NEEDLE];
await rg(rgArgs); // warm the page cache
const rgLines = (await rg(rgArgs)).stdout.split("\n").filter((l) => l !== "").length;

const variants: { name: string; grant: FloorGrant; mode: FloorJob["mode"] }[] = [
  { name: "open + read + close, tool worker's grant", grant: "tool worker", mode: "io" },
  { name: "… + latin1 + indexOf, tool worker's grant", grant: "tool worker", mode: "scan" },
  {
    name: "… + wasm prefilter, latin1 + indexOf if found, tool worker's grant",
    grant: "tool worker",
    mode: "prefilter",
  },
  {
    name: "readDirSync of every directory, one thread, tool worker's grant",
    grant: "tool worker",
    mode: "walk",
  },
  { name: "open + read + close, every permission", grant: "every permission", mode: "io" },
  { name: "… + latin1 + indexOf, every permission", grant: "every permission", mode: "scan" },
];
const rgMs: number[] = [];
const rgCpu: number[] = [];
const seen = variants.map(() => ({ ms: [] as number[], cpu: [] as number[] }));
let mismatch = "";
for (let round = 0; round < ROUNDS; round++) {
  const base = await rg(rgArgs);
  rgMs.push(base.ms);
  if (base.cpuMs !== undefined) rgCpu.push(base.cpuMs);
  for (const [i, v] of variants.entries()) {
    const run = await floorScan(v.mode === "walk" ? [CORPUS] : files, {
      root: CORPUS,
      grant: v.grant,
      mode: v.mode,
      needle: NEEDLE,
      threads: v.mode === "walk" ? 1 : THREADS,
    });
    seen[i].ms.push(run.ms);
    seen[i].cpu.push(run.cpuMs);
    if (v.mode !== "walk" && run.report.files !== files.length) {
      mismatch ||= `${v.name}: read ${run.report.files} of ${files.length} files`;
    }
    if ((v.mode === "scan" || v.mode === "prefilter") && run.report.lines !== rgLines) {
      mismatch ||= `${v.name}: ${run.report.lines} matching lines, ripgrep ${rgLines}`;
    }
  }
}

const load = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
const rgWall = median(rgMs);
const rgCpuMs = rgCpu.length > 0 ? median(rgCpu) : NaN;
const s = (ms: number) => (ms / 1000).toFixed(3);
console.log(
  `\nthe floor under a literal full scan: ${files.length} files (rg --files, the tool's selection), ` +
    `needle ${JSON.stringify(NEEDLE)}, ${THREADS} threads, ${ROUNDS} rounds, medians, ` +
    `interleaved with rg -j2 -n; load average ${load}`,
);
console.log("| measure | wall s | CPU s | wall / rg's | CPU / rg's |");
console.log("| --- | ---: | ---: | ---: | ---: |");
console.log(
  `| rg -j2 -n (${rgLines} matching lines) | ${s(rgWall)} | ${s(rgCpuMs)} | 1.00× | 1.00× |`,
);
for (const [i, v] of variants.entries()) {
  const ms = median(seen[i].ms);
  const cpu = median(seen[i].cpu);
  console.log(
    `| ${v.name} | ${s(ms)} | ${s(cpu)} | ${(ms / rgWall).toFixed(2)}× | ${
      (cpu / rgCpuMs).toFixed(2)
    }× |`,
  );
}
const cpuOf = (mode: FloorJob["mode"]) =>
  median(seen[variants.findIndex((v) => v.mode === mode)].cpu);
const scoped = cpuOf("scan");
const walked = cpuOf("walk");
const least = scoped + walked;
const prefiltered = cpuOf("prefilter");
console.log(
  `\nUnder the tool worker's grant the bare scan needs ${s(scoped)} s of CPU and listing the ` +
    `directories ${s(walked)} s: ${s(least)} s, ${(least / rgCpuMs).toFixed(2)}× ripgrep's CPU. ` +
    `Split perfectly over ${THREADS} threads that is ${s(least / THREADS)} s, ` +
    `${
      (least / THREADS / rgWall).toFixed(2)
    }× ripgrep's wall time in this run, before any ignore ` +
    `file, denylist, policy, swap check or result of search_code's (its target: ≤ 1.5×).`,
);
console.log(
  `With the literal prefilter of ADR-103 (the path search_code takes since) the bare scan needs ` +
    `${s(prefiltered)} s of CPU, and with the listing ${s(prefiltered + walked)} s: ` +
    `${((prefiltered + walked) / rgCpuMs).toFixed(2)}× ripgrep's CPU.`,
);
if (Deno.loadavg()[0] > 1.5) {
  console.log(
    `The load average (${load}) is above 1.5: wall times are inflated by other work, ` +
      `ripgrep's most; read the CPU columns, or rerun on a quiet machine.`,
  );
}
if (mismatch !== "") {
  console.error(`bench:floor: the floor scan disagrees with ripgrep: ${mismatch}`);
  Deno.exit(1);
}
