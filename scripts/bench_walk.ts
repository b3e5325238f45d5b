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
 *   the CPU is the whole process's, workers included).
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
import { cpuNow, median } from "./lib/stats.ts";

const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? "7");
const CORPUS = Deno.env.get("BENCH_LINUX_DIR") ?? "/tmp/bench/linux";
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
  close(): void;
}

async function load(root: string, label: string): Promise<Subject> {
  const walkModule = await import(`${root}/src/access/walk.ts`);
  const fixtures = await import(`${root}/tests/helpers/fixtures.ts`);
  const env = { MCP_SANDBOX__TOOL_TIMEOUT_MS: "600000" };
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
    close: () => server[Symbol.dispose](),
  };
}

const subjects = [await load(REPO_ROOT, "this tree")];
if (BASELINE) subjects.push(await load(BASELINE.replace(/\/$/, ""), `baseline ${BASELINE}`));

const MEASURES = ["walk", "walk+read", "first100", "first100 server"] as const;
type Measure = typeof MEASURES[number];
const samples = new Map<string, { wall: number[]; cpu: number[] }>();
let files = 0;
for (const s of subjects) files = s.walk(true); // warm the cache and the JIT
for (let r = 0; r < ROUNDS; r++) {
  for (const measure of MEASURES) {
    // Alternate which tree goes first, so neither always follows the other.
    const order = r % 2 === 0 ? subjects : [...subjects].reverse();
    for (const s of order) {
      const wall0 = performance.now(), cpu0 = cpuNow();
      if (measure === "first100") await s.first100();
      else if (measure === "first100 server") await s.first100Server();
      else s.walk(measure === "walk+read");
      const key = `${s.label}|${measure}`;
      const entry = samples.get(key) ?? { wall: [], cpu: [] };
      entry.wall.push(performance.now() - wall0);
      entry.cpu.push(cpuNow() - cpu0);
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
  "| measure | tree | CPU ms | wall ms | CPU µs a file |" + (BASELINE ? " CPU vs baseline |" : ""),
);
console.log("| --- | --- | ---: | ---: | ---: |" + (BASELINE ? " ---: |" : ""));
for (const measure of MEASURES) {
  const base = samples.get(`${subjects[1]?.label}|${measure}`);
  for (const s of subjects) {
    const { wall, cpu } = samples.get(`${s.label}|${measure}`)!;
    const perFile = measure.startsWith("first100") ? "" : (median(cpu) * 1000 / files).toFixed(1);
    const ratio = base && s !== subjects[1]
      ? ` ${(median(cpu) / median(base.cpu)).toFixed(2)}× |`
      : BASELINE
      ? " |"
      : "";
    console.log(
      `| ${measure satisfies Measure} | ${s.label} | ${median(cpu).toFixed(0)} | ${
        median(wall).toFixed(0)
      } | ${perFile} |${ratio}`,
    );
  }
}
for (const s of subjects) s.close();
