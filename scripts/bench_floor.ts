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
 * Since ADR-122 it also measures the floor under issue 6's first page (the
 * first 100 matches of `EXPORT_SYMBOL_GPL`, in path order): the prefilter
 * path over the files of `rg --files --sort path` up to the one holding the
 * 100th match, by two threads and one, under both grants (`--rows first`).
 *
 * Since ADR-140 it also runs `search_code`'s real handler and result pipeline on one thread (a
 * direct context in a worker, as in a tool worker, without the server) over the full literal
 * scan, under the tool worker's grant and with every permission (`--rows handler`): the whole
 * tool's cost with and without Deno's per-open path resolution, against ripgrep.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { CORPUS, prepareCorpus, rg, rgSelection } from "./lib/linux_corpus.ts";
import { median } from "./lib/stats.ts";
import { firstPage, type FloorGrant, floorScan, HandlerScanner } from "./lib/floor_scan.ts";
import type { FloorJob } from "./lib/floor_scan_worker.ts";

const USAGE = `deno task bench:floor [--rounds N] [--threads N] [--needle TEXT] [--rows WHICH]

  --rounds N          interleaved rounds, medians reported (default 5)
  --threads N         worker threads of the floor scan (default 2, as rg -j2)
  --needle TEXT       the literal (default "Linus Torvalds", bench:search's)
  --first-needle TEXT the first-page literal (default "EXPORT_SYMBOL_GPL", bench:search's)
  --first N           the first page's matches (default 100, bench:search's)
  --rows WHICH        full (the full scan's floor), first (the first page's), handler
                      (search_code's handler on one thread, both grants) or all (default)

Corpus: BENCH_LINUX_DIR (default /tmp/bench/linux), made when missing.`;

const args = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "5" },
    threads: { type: "string", default: "2" },
    needle: { type: "string", default: "Linus Torvalds" },
    "first-needle": { type: "string", default: "EXPORT_SYMBOL_GPL" },
    first: { type: "string", default: "100" },
    rows: { type: "string", default: "all" },
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
const FIRST_NEEDLE = args.values["first-needle"];
const FIRST = Number(args.values.first);
const ROWS = args.values.rows;
for (const [name, value] of [["--rounds", ROUNDS], ["--threads", THREADS]] as const) {
  if (!Number.isInteger(value) || value < 1 || value > 64) {
    console.error(`bench:floor: ${name} must be a whole number from 1 to 64\n\n${USAGE}`);
    Deno.exit(2);
  }
}
if (!Number.isInteger(FIRST) || FIRST < 1) {
  console.error(`bench:floor: --first must be a whole number from 1\n\n${USAGE}`);
  Deno.exit(2);
}
if (!["all", "full", "first", "handler"].includes(ROWS)) {
  console.error(`bench:floor: --rows must be full, first, handler or all\n\n${USAGE}`);
  Deno.exit(2);
}
for (const [name, needle] of [["--needle", NEEDLE], ["--first-needle", FIRST_NEEDLE]]) {
  if (needle.length === 0 || needle.toLowerCase() === needle) {
    // Smart case: an all-lower-case needle would make ripgrep case-insensitive.
    console.error(`bench:floor: ${name} must hold an upper-case letter (ripgrep's smart case)`);
    Deno.exit(2);
  }
}

await prepareCorpus();
const mismatches: string[] = [];
if (ROWS === "all" || ROWS === "full") mismatches.push(await fullRows());
if (ROWS === "all" || ROWS === "first") mismatches.push(await firstRows());
if (ROWS === "all" || ROWS === "handler") mismatches.push(await handlerRows());
const mismatch = mismatches.find((m) => m !== "") ?? "";
if (mismatch !== "") {
  console.error(`bench:floor: the floor scan disagrees with ripgrep: ${mismatch}`);
  Deno.exit(1);
}

/** The full scan's rows (ADR-102, ADR-105); answers the first disagreement with ripgrep, or "". */
async function fullRows(): Promise<string> {
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
      `directories ${s(walked)} s: ${s(least)} s, ${
        (least / rgCpuMs).toFixed(2)
      }× ripgrep's CPU. ` +
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
  return mismatch;
}

/**
 * The first page's rows (ADR-122): the floor under issue 6's "first 100
 * matches" call. The files are ripgrep's sorted list (`rg --files --sort
 * path`, the walk order `search_code`'s pages follow) up to and including
 * the one holding the `--first`th match of `rg --sort path`: every one of
 * them may match, so every one is read, whoever reads it. Each file is
 * opened, read into the prefilter's memory, asked the prefilter, decoded and
 * searched if it holds the needle, and closed (`prefilter`, the path
 * `search_code` takes), by two threads and by one, under the tool worker's
 * grant and with every permission, interleaved with `rg -j2 -n` over the
 * same files. The matching lines counted are checked against ripgrep's in
 * those files.
 */
async function firstRows(): Promise<string> {
  const sorted = (await rg(["--files", "--sort", "path", ...rgSelection()])).stdout
    .split("\n").filter((p) => p !== "");
  // --null: a path ends at a NUL, whatever it holds.
  const matched =
    (await rg(["-n", "-S", "--null", "--sort", "path", ...rgSelection(), "-F", FIRST_NEEDLE]))
      .stdout.split("\n").filter((l) => l !== "").map((l) => l.slice(0, l.indexOf("\0")));
  const page = firstPage(sorted, matched, FIRST);
  if (typeof page === "string") return `first page: ${page}`;
  const { relative, lastFile, expected } = page;
  const files = relative.map((p) => `${CORPUS}/${p}`);
  // Each worker goes over the first files once before the clock: the page is short (a tenth of
  // the tree), so a cold worker's compile and prefilter build would be a visible part of it,
  // and the tool workers it is compared with have searched before.
  const warm = files.slice(0, 1024);
  const rgArgs = ["-j2", "-n", "-S", ...rgSelection(), "-F", FIRST_NEEDLE, "--", ...relative];
  await rg(rgArgs); // warm the page cache
  const rgLines = (await rg(rgArgs)).stdout.split("\n").filter((l) => l !== "").length;
  let mismatch = rgLines === expected
    ? ""
    : `first page: rg -j2 over the page's files finds ${rgLines} lines, rg --sort path ${expected}`;
  const variants: { name: string; grant: FloorGrant; threads: number }[] = [
    { name: `${THREADS} threads, tool worker's grant`, grant: "tool worker", threads: THREADS },
    { name: `${THREADS} threads, every permission`, grant: "every permission", threads: THREADS },
    { name: "one thread, tool worker's grant", grant: "tool worker", threads: 1 },
    { name: "one thread, every permission", grant: "every permission", threads: 1 },
  ];
  const rgMs: number[] = [];
  const rgCpu: number[] = [];
  const seen = variants.map(() => ({ ms: [] as number[], cpu: [] as number[] }));
  for (let round = 0; round < ROUNDS; round++) {
    const base = await rg(rgArgs);
    rgMs.push(base.ms);
    if (base.cpuMs !== undefined) rgCpu.push(base.cpuMs);
    for (const [i, v] of variants.entries()) {
      const run = await floorScan(files, {
        root: CORPUS,
        grant: v.grant,
        mode: "prefilter",
        needle: FIRST_NEEDLE,
        threads: v.threads,
        warm,
      });
      seen[i].ms.push(run.ms);
      seen[i].cpu.push(run.cpuMs);
      if (run.report.files !== files.length) {
        mismatch ||= `first page, ${v.name}: read ${run.report.files} of ${files.length} files`;
      }
      if (run.report.lines !== expected) {
        mismatch ||=
          `first page, ${v.name}: ${run.report.lines} matching lines, ripgrep ${expected}`;
      }
    }
  }
  const load = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
  const rgWall = median(rgMs);
  const rgCpuMs = rgCpu.length > 0 ? median(rgCpu) : NaN;
  const s = (ms: number) => (ms / 1000).toFixed(3);
  console.log(
    `\nthe floor under the first ${FIRST} matches of ${JSON.stringify(FIRST_NEEDLE)}: ` +
      `the ${files.length} files of rg --files --sort path up to the ${FIRST}th match's ` +
      `(${lastFile}), each opened, read into the prefilter's memory, prefiltered ` +
      `(latin1 + indexOf if found) and closed; ${ROUNDS} rounds, medians, interleaved with ` +
      `rg -j2 -n over the same files; load average ${load}`,
  );
  console.log("| measure | wall s | CPU s | wall / rg's | CPU / rg's |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  console.log(
    `| rg -j2 -n over the page's files (${rgLines} matching lines) | ${s(rgWall)} | ${
      s(rgCpuMs)
    } | 1.00× | 1.00× |`,
  );
  for (const [i, v] of variants.entries()) {
    const ms = median(seen[i].ms);
    const cpu = median(seen[i].cpu);
    console.log(
      `| first page, ${v.name} | ${s(ms)} | ${s(cpu)} | ${(ms / rgWall).toFixed(2)}× | ${
        (cpu / rgCpuMs).toFixed(2)
      }× |`,
    );
  }
  const scopedWall = median(seen[0].ms);
  console.log(
    `\nUnder the tool worker's grant the page's files alone take ${s(scopedWall)} s on ` +
      `${THREADS} threads (issue 6's target for the whole call: 0.150 s), ` +
      `${s(median(seen[1].ms))} s with every permission (a Deno without its per-open path ` +
      `resolution, ADR-083), before any walk, policy, result or message of search_code's.`,
  );
  if (Deno.loadavg()[0] > 1.5) {
    console.log(
      `The load average (${load}) is above 1.5: wall times are inflated by other work; ` +
        `read the CPU columns, or rerun on a quiet machine.`,
    );
  }
  return mismatch;
}

/**
 * The handler's rows (ADR-140): `search_code` itself on one thread, under the tool worker's
 * grant and with every permission, interleaved with `rg -j2`; answers the first disagreement
 * with ripgrep, or "".
 */
async function handlerRows(): Promise<string> {
  const rgArgs = ["-j2", "-n", "-S", ...rgSelection(), "-F", NEEDLE];
  await rg(rgArgs); // warm the page cache
  const rgLines = (await rg(rgArgs)).stdout.split("\n").filter((l) => l !== "").length;
  const grants: { name: string; grant: FloorGrant }[] = [
    { name: "search_code on one thread, tool worker's grant", grant: "tool worker" },
    { name: "search_code on one thread, every permission", grant: "every permission" },
  ];
  const scanners = grants.map((g) => new HandlerScanner(CORPUS, g.grant));
  const rgMs: number[] = [];
  const rgCpu: number[] = [];
  const seen = grants.map(() => ({ ms: [] as number[], cpu: [] as number[] }));
  let mismatch = "";
  let files = 0;
  try {
    // One untimed scan each: the handler compiled and its rules built, as in a worker that
    // has searched before.
    for (const scanner of scanners) await scanner.scan(NEEDLE);
    for (let round = 0; round < ROUNDS; round++) {
      const base = await rg(rgArgs);
      rgMs.push(base.ms);
      if (base.cpuMs !== undefined) rgCpu.push(base.cpuMs);
      // Alternate which grant goes first, so neither always follows ripgrep.
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) {
        const run = await scanners[i].scan(NEEDLE);
        seen[i].ms.push(run.ms);
        seen[i].cpu.push(run.cpuMs);
        files = run.report.files;
        if (run.report.error !== undefined) {
          mismatch ||= `${grants[i].name}: ${run.report.error}`;
        } else if (run.report.lines !== rgLines) {
          mismatch ||= `${grants[i].name}: ${run.report.lines} matching lines, ripgrep ${rgLines}`;
        }
      }
    }
  } finally {
    for (const scanner of scanners) scanner.close();
  }
  const load = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
  const rgWall = median(rgMs);
  const rgCpuMs = rgCpu.length > 0 ? median(rgCpu) : NaN;
  const s = (ms: number) => (ms / 1000).toFixed(3);
  console.log(
    `\nsearch_code's handler and result pipeline on one thread (a direct context in a worker, no ` +
      `server), the full literal scan of ${
        JSON.stringify(NEEDLE)
      } paged by 10,000 (${files} files ` +
      `searched), ${ROUNDS} rounds, medians, interleaved with rg -j2 -n; load average ${load}`,
  );
  console.log("| measure | wall s | CPU s | CPU / rg's | CPU µs a file |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  console.log(`| rg -j2 -n (${rgLines} matching lines) | ${s(rgWall)} | ${s(rgCpuMs)} | 1.00× | |`);
  const cpus = seen.map((x) => median(x.cpu));
  for (const [i, g] of grants.entries()) {
    console.log(
      `| ${g.name} | ${s(median(seen[i].ms))} | ${s(cpus[i])} | ${
        (cpus[i] / rgCpuMs).toFixed(2)
      }× | ${(cpus[i] * 1000 / files).toFixed(1)} |`,
    );
  }
  console.log(
    `\nThe tool worker's grant costs the handler ${s(cpus[0] - cpus[1])} s of CPU a scan ` +
      `(${(100 * (cpus[0] - cpus[1]) / cpus[0]).toFixed(0)}% of it, ${
        ((cpus[0] - cpus[1]) * 1000 / files).toFixed(1)
      } µs a file): Deno's per-open path resolution (ADR-083). With every permission the ` +
      `handler needs ${(cpus[1] / rgCpuMs).toFixed(2)}× ripgrep's CPU.`,
  );
  return mismatch;
}
