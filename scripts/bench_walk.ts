/**
 * `deno task bench:walk`: what the walker costs per file, on one thread, on
 * the Linux 6.1 tree of `bench:search` (`BENCH_LINUX_DIR`, default
 * /tmp/bench/linux; prepare it with `deno task bench:search` once). Three
 * measures, each the median of `BENCH_ROUNDS` (default 7) of CPU time
 * (user + system of this process, which other people's load inflates far
 * less than wall time) and wall time:
 *
 * - `walk`: the walk alone (listing, ignore files, the policy per entry);
 * - `walk+read`: the walk, every file read, `latin1Text` and a
 *   `String.indexOf` (what a literal full scan costs below `search_code`);
 * - `first100`: `search_code` for the first 100 matches of
 *   `EXPORT_SYMBOL_GPL`, from the call, on a direct context (as in a tool
 *   worker);
 * - `first100 server`: the same through the real server (sandbox workers;
 *   the CPU is the whole process's, workers included; also the busiest
 *   thread's CPU, the part of the call no second thread can share);
 * - `scan server`: a literal full scan (`Linus Torvalds`, every page of
 *   10,000) through the real server, both threads searching, with the CPU
 *   counted the same way (what `bench:search`'s literal full scan costs,
 *   here interleaved with the baseline's).
 *
 * Then the open floor (ADR-083): open, one read and close of every 16th file
 * of the tree in a worker with the tool worker's grant (`read` = the corpus,
 * `run` = git) against one with every permission, through each API that can
 * open a file (`node:fs` `openSync` + `readSync`, `Deno.openSync` +
 * `readSync`, `Deno.readFileSync`, `fetch` of a `file:` URL), CPU µs a file
 * (this process: the main thread only waits). With the grant, Deno 2.9.6
 * resolves every component of the path (`readlink` each) before the open,
 * whatever the API, and with every permission it does not.
 *
 * `BENCH_ONLY` (a comma-separated list of the measures' names) runs only
 * those, without the open floor.
 *
 * With `BENCH_BASELINE=DIR` (an older checkout of this repository, e.g.
 * `git worktree add /tmp/base <commit>` or `git archive <commit> | tar x -C
 * DIR`), the same measures of that tree's walker run interleaved with this
 * tree's, round by round in this one process, and the ratios are printed:
 * the before/after that a loaded machine does not blur.
 *
 * @module
 */

import { REPO_ROOT, rerunUnderDevserverV8Flags } from "./lib/program.ts";
import { toolWorkerPermissions } from "../src/isolation/permissions.ts";
import { cpuNow, median } from "./lib/stats.ts";
import { CORPUS, FULL_SCAN_ENV } from "./lib/linux_corpus.ts";

const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? "7");
const BASELINE = Deno.env.get("BENCH_BASELINE");

await rerunUnderDevserverV8Flags(import.meta.url);

try {
  Deno.statSync(`${CORPUS}/.git`);
} catch {
  console.error(`${CORPUS} is missing: run deno task bench:search once to prepare it`);
  Deno.exit(1);
}

/** One tree's walker and tool handler, loaded from its own modules. */
interface Subject {
  readonly label: string;
  walk(read: boolean): number;
  first100(): Promise<void>;
  first100Server(): Promise<void>;
  scanServer(): Promise<void>;
  /** Every file of the tree, absolute paths in walk order. */
  files(): string[];
  close(): void;
}

async function load(root: string, label: string): Promise<Subject> {
  const walkModule = await import(`${root}/src/access/walk.ts`);
  const fixtures = await import(`${root}/tests/helpers/fixtures.ts`);
  const env = FULL_SCAN_ENV;
  const ctx = fixtures.directContext(CORPUS, env);
  const server = fixtures.startServer(CORPUS, env);
  await server.dispatcher.call("search_code", { pattern: "warm-up", path: "README" });
  return {
    label,
    walk(read: boolean): number {
      const walker = new walkModule.Walker(
        ctx.workspace.walkPolicy,
        ctx.workspace.policy.root,
        ctx.workspace.resolve(""),
      );
      let files = 0;
      for (const event of walker.walk()) {
        if (event.kind !== "file") continue;
        files++;
        if (!read) continue;
        const got = walker.read(event);
        if (got.ok) walkModule.latin1Text(got.bytes).indexOf("Linus Torvalds");
      }
      return files;
    },
    async first100(): Promise<void> {
      const result = await fixtures.callDirect(ctx, "search_code", {
        pattern: "EXPORT_SYMBOL_GPL",
        max_results: 100,
      });
      const total = (result.structuredContent as { total_matches?: number }).total_matches;
      if (total !== 100) throw new Error(`${label}: first 100 gave ${total}`);
    },
    async first100Server(): Promise<void> {
      const result = await server.dispatcher.call("search_code", {
        pattern: "EXPORT_SYMBOL_GPL",
        max_results: 100,
      });
      const total = (result.structuredContent as { total_matches?: number }).total_matches;
      if (total !== 100) throw new Error(`${label}: first 100 through the server gave ${total}`);
    },
    async scanServer(): Promise<void> {
      let cursor: string | undefined;
      let total = 0;
      do {
        const result = await server.dispatcher.call("search_code", {
          pattern: "Linus Torvalds",
          max_results: 10_000,
          ...(cursor ? { cursor } : {}),
        });
        const s = result.structuredContent as { total_matches: number; next_cursor?: string };
        total += s.total_matches;
        cursor = s.next_cursor;
      } while (cursor);
      if (total === 0) throw new Error(`${label}: the full scan found nothing`);
    },
    files(): string[] {
      const walker = new walkModule.Walker(
        ctx.workspace.walkPolicy,
        ctx.workspace.policy.root,
        ctx.workspace.resolve(""),
      );
      const all: string[] = [];
      for (const event of walker.walk()) if (event.kind === "file") all.push(event.absolute);
      return all;
    },
    close: () => server[Symbol.dispose](),
  };
}

const subjects = [await load(REPO_ROOT, "this tree")];
if (BASELINE) subjects.push(await load(BASELINE.replace(/\/$/, ""), `baseline ${BASELINE}`));

/** CPU time of each thread of this process (ms), by thread id. */
function threadCpu(): Map<string, number> {
  const cpu = new Map<string, number>();
  for (const task of Deno.readDirSync("/proc/self/task")) {
    try {
      const stat = Deno.readTextFileSync(`/proc/self/task/${task.name}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      cpu.set(task.name, (Number(fields[11]) + Number(fields[12])) * 10); // utime + stime, 1/100 s
    } catch { /* the thread ended */ }
  }
  return cpu;
}

const ALL_MEASURES = ["walk", "walk+read", "first100", "first100 server", "scan server"] as const;
type Measure = typeof ALL_MEASURES[number];
/** `BENCH_ONLY=first100 server,scan server` runs those measures alone (and not the open floor). */
const ONLY = Deno.env.get("BENCH_ONLY")?.split(",").map((m) => m.trim());
const MEASURES = ALL_MEASURES.filter((m) => ONLY === undefined || ONLY.includes(m));
const samples = new Map<string, { wall: number[]; cpu: number[]; busiest: number[] }>();
let files = 0;
for (const s of subjects) files = s.walk(true); // warm the cache and the JIT
for (let r = 0; r < ROUNDS; r++) {
  for (const measure of MEASURES) {
    // Alternate which tree goes first, so neither always follows the other.
    const order = r % 2 === 0 ? subjects : [...subjects].reverse();
    for (const s of order) {
      const threads0 = threadCpu();
      const wall0 = performance.now(), cpu0 = cpuNow();
      // Three calls a sample through the server: the per-thread clock ticks every 10 ms.
      const calls = measure === "first100 server" ? 3 : 1;
      for (let c = 0; c < calls; c++) {
        if (measure === "first100") await s.first100();
        else if (measure === "first100 server") await s.first100Server();
        else if (measure === "scan server") await s.scanServer();
        else s.walk(measure === "walk+read");
      }
      const key = `${s.label}|${measure}`;
      const entry = samples.get(key) ?? { wall: [], cpu: [], busiest: [] };
      entry.wall.push((performance.now() - wall0) / calls);
      entry.cpu.push((cpuNow() - cpu0) / calls);
      let busiest = 0;
      for (const [id, ms] of threadCpu()) busiest = Math.max(busiest, ms - (threads0.get(id) ?? 0));
      entry.busiest.push(busiest / calls);
      samples.set(key, entry);
    }
  }
}

console.log(
  `\ncorpus: ${CORPUS} (${files} files walked), ${ROUNDS} rounds interleaved, medians; load average ${
    Deno.loadavg().map((x) => x.toFixed(1)).join(" ")
  }\n`,
);
console.log(
  "| measure | tree | CPU ms | busiest thread CPU ms | wall ms | CPU µs a file |" +
    (BASELINE ? " CPU vs baseline | busiest thread vs baseline |" : ""),
);
console.log("| --- | --- | ---: | ---: | ---: | ---: |" + (BASELINE ? " ---: | ---: |" : ""));
for (const measure of MEASURES) {
  const base = samples.get(`${subjects[1]?.label}|${measure}`);
  for (const s of subjects) {
    const { wall, cpu, busiest } = samples.get(`${s.label}|${measure}`)!;
    const perFile = measure.startsWith("first100") ? "" : (median(cpu) * 1000 / files).toFixed(1);
    const ratio = base && s !== subjects[1]
      ? ` ${(median(cpu) / median(base.cpu)).toFixed(2)}× | ${
        (median(busiest) / median(base.busiest)).toFixed(2)
      }× |`
      : BASELINE
      ? " | |"
      : "";
    console.log(
      `| ${measure satisfies Measure} | ${s.label} | ${median(cpu).toFixed(0)} | ${
        median(busiest).toFixed(0)
      } | ${median(wall).toFixed(0)} | ${perFile} |${ratio}`,
    );
  }
}

if (ONLY !== undefined) {
  for (const s of subjects) s.close();
  Deno.exit(0);
}

// The open floor (ADR-083): one worker per grant, every opening API, interleaved.
const OPEN_WORKER = `
import * as fs from "node:fs";
const buffer = new Uint8Array(1 << 20);
self.onmessage = async (event) => {
  const { api, files } = event.data;
  let bytes = 0;
  for (const path of files) {
    if (api === "node:fs openSync") {
      const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
      bytes += fs.readSync(fd, buffer, 0, buffer.length, null);
      fs.closeSync(fd);
    } else if (api === "Deno.openSync") {
      const file = Deno.openSync(path);
      bytes += file.readSync(buffer) ?? 0;
      file.close();
    } else if (api === "Deno.readFileSync") {
      bytes += Deno.readFileSync(path).length;
    } else {
      bytes += (await (await fetch("file://" + path)).arrayBuffer()).byteLength;
    }
  }
  postMessage(bytes);
};`;
const APIS = ["node:fs openSync", "Deno.openSync", "Deno.readFileSync", "fetch(file:)"];
const sample = subjects[0].files().filter((_, i) => i % 16 === 0);
const url = `data:application/javascript,${encodeURIComponent(OPEN_WORKER)}`;
const grants: [string, Deno.PermissionOptions][] = [
  ["tool worker grant", toolWorkerPermissions(CORPUS)],
  ["all permissions", "inherit"],
];
const workers = grants.map(([label, permissions]) =>
  [label, new Worker(url, { type: "module", deno: { permissions } })] as const
);
const ask = (worker: Worker, api: string) =>
  new Promise<number>((resolve, reject) => {
    worker.onmessage = (event) => resolve(event.data as number);
    worker.onerror = (event) => reject(new Error(event.message));
    worker.postMessage({ api, files: sample });
  });
const floor = new Map<string, number[]>();
for (const [, worker] of workers) for (const api of APIS) await ask(worker, api); // warm
for (let r = 0; r < ROUNDS; r++) {
  for (const api of APIS) {
    for (const [label, worker] of r % 2 === 0 ? workers : [...workers].reverse()) {
      const cpu0 = cpuNow();
      await ask(worker, api);
      const key = `${api}|${label}`;
      floor.set(key, [...(floor.get(key) ?? []), (cpuNow() - cpu0) * 1000 / sample.length]);
    }
  }
}
for (const [, worker] of workers) worker.terminate();
console.log(
  `\nopen + one read + close of ${sample.length} files (every 16th), in a worker; CPU µs a file (this process), medians of ${ROUNDS}`,
);
console.log("| API | tool worker grant | all permissions | difference |");
console.log("| --- | ---: | ---: | ---: |");
for (const api of APIS) {
  const scoped = median(floor.get(`${api}|tool worker grant`)!);
  const all = median(floor.get(`${api}|all permissions`)!);
  console.log(
    `| ${api} | ${scoped.toFixed(1)} | ${all.toFixed(1)} | ${(scoped - all).toFixed(1)} |`,
  );
}
for (const s of subjects) s.close();
