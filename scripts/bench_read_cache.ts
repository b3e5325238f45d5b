/**
 * `deno task bench:readcache`: the tool workers' CPU per `read_file` call with
 * the read cache of ADR-081 on and off, interleaved in one run. Each
 * measurement is its own process (the program's sandbox and real tool
 * workers, calls through `ToolDispatcher.call`, no HTTP) reading either one
 * small file again and again (`hit`: the cache's best case) or 10,000
 * distinct small files once each (`miss`: its worst case), with 2 calls in
 * flight; CPU time (user + system) per call comes from
 * `/proc/self/task/<tid>/stat`, split into the main thread, the tool workers
 * and the rest (V8's helper threads, Deno's runtime threads). Prints the
 * medians of each and the ratios on/off.
 *
 * With `--baseline DIR` (another checkout, e.g. `git worktree add --detach
 * /tmp/base main`), each round also runs the cached read (`hit`, cache on)
 * of that checkout's own script right after this one's, and prints the two
 * side by side with their ratios: the hit path's CPU per call before and
 * after a change, measured interleaved in one run (ADR-098).
 *
 * Usage: deno task bench:readcache [--rounds 3] [--calls 4000] [--baseline DIR]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { join } from "node:path";
import { devserverRunFlags, REPO_ROOT } from "./lib/program.ts";
import { median } from "./lib/stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "3" },
    calls: { type: "string", default: "4000" },
    child: { type: "string" },
    cache: { type: "string" },
    baseline: { type: "string" },
  },
});

const FILES = 10_000;
const IN_FLIGHT = 2;

/** CPU ms of each thread of this process: `tid:comm` → user + system. */
function threadCpu(): Map<string, number> {
  const tick = 1000 / 100; // USER_HZ
  const out = new Map<string, number>();
  for (const task of Deno.readDirSync("/proc/self/task")) {
    try {
      const stat = Deno.readTextFileSync(`/proc/self/task/${task.name}/stat`);
      const comm = Deno.readTextFileSync(`/proc/self/task/${task.name}/comm`).trim();
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(`${task.name}:${comm}`, (Number(fields[11]) + Number(fields[12])) * tick);
    } catch { /* the thread ended */ }
  }
  return out;
}

interface Figures {
  readonly main: number;
  readonly workers: number;
  readonly other: number;
  readonly wall: number;
}

async function child(mode: "hit" | "miss", cacheOn: boolean, calls: number): Promise<Figures> {
  const { createDevServer } = await import("../src/app.ts");
  const { loadConfig } = await import("../src/config/load.ts");
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "devserver-bench-cache-" }));
  try {
    await Deno.writeTextFile(join(base, "small.txt"), "a small file\n".repeat(40));
    if (mode === "miss") {
      await Deno.mkdir(join(base, "many"));
      for (let i = 0; i < FILES; i++) {
        await Deno.writeTextFile(
          join(base, "many", `f${i}.txt`),
          `file ${i}\n` + "a small file\n".repeat(40),
        );
      }
    }
    // Old enough to be kept (QUIET_MS plus Deno's second of ctime rounding).
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const env: Record<string, string> = cacheOn ? {} : { MCP_SANDBOX__READ_CACHE_BYTES: "0" };
    const server = createDevServer(loadConfig(env, { workspaceFlag: base, cwd: base }));
    await server.sandbox.ready;
    let next = 0;
    const path = () => mode === "miss" ? `many/f${(next++ * 7919) % FILES}.txt` : "small.txt";
    const loop = async (n: number) => {
      for (let k = 0; k < n; k++) {
        const result = await server.dispatcher.call("read_file", { path: path() });
        if (result.isError) throw new Error(JSON.stringify(result));
      }
    };
    const warm = mode === "miss" ? 100 : 400;
    await Promise.all(Array.from({ length: IN_FLIGHT }, () => loop(warm / IN_FLIGHT)));
    if (mode === "miss" && warm + calls > FILES) throw new Error("more calls than files");
    const before = threadCpu();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, () => loop(calls / IN_FLIGHT)));
    const wall = performance.now() - t0;
    const after = threadCpu();
    server.close();
    let main = 0, workers = 0, other = 0;
    for (const [key, ms] of after) {
      const spent = ms - (before.get(key) ?? 0);
      if (key.startsWith(`${Deno.pid}:`)) main += spent;
      else if (/:worker-\d+$/.test(key)) workers += spent;
      else other += spent;
    }
    const perCall = (ms: number) => ms * 1000 / calls;
    return {
      main: perCall(main),
      workers: perCall(workers),
      other: perCall(other),
      wall: perCall(wall),
    };
  } finally {
    await Deno.remove(base, { recursive: true }).catch(() => {});
  }
}

if (values.child) {
  const calls = Number(values.calls);
  const figures = await child(values.child as "hit" | "miss", values.cache === "on", calls);
  console.log(JSON.stringify(figures));
  Deno.exit(0);
}

if (import.meta.main) {
  const rounds = Math.max(1, Number(values.rounds));
  const calls = Number(values.calls);
  const runs: Record<string, Figures[]> = {};
  console.log(
    `bench:readcache: ${calls} read_file calls per measurement, ${IN_FLIGHT} in flight, ` +
      `${rounds} interleaved rounds; CPU µs per call (user + system, per thread)`,
  );
  const baseline = values.baseline;
  /** One child measurement, of this checkout's script or of the baseline's. */
  const measure = async (repo: string, mode: string, cache: string): Promise<Figures> => {
    // The task's flags but its permission set and its config: the checkout's own config.
    const flags = devserverRunFlags().filter((f, i, all) =>
      !f.startsWith("-P") && f !== "--config" && all[i - 1] !== "--config"
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...flags,
        "--config",
        `${repo}/deno.json`,
        "-A",
        `${repo}/scripts/bench_read_cache.ts`,
        "--child",
        mode,
        "--cache",
        cache,
        "--calls",
        String(calls),
      ],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error(`the ${mode}/${cache} run of ${repo} failed`);
    return JSON.parse(new TextDecoder().decode(out.stdout).trim());
  };
  const show = (label: string, figures: Figures) =>
    console.log(
      `  ${label}: workers ${figures.workers.toFixed(0)}, main ${figures.main.toFixed(0)}, other ${
        figures.other.toFixed(0)
      }; wall ${figures.wall.toFixed(0)} µs a call`,
    );
  for (let round = 0; round < rounds; round++) {
    for (const mode of ["hit", "miss"]) {
      for (const cache of ["on", "off"]) {
        const figures = await measure(REPO_ROOT, mode, cache);
        (runs[`${mode} ${cache}`] ??= []).push(figures);
        show(`round ${round + 1} ${mode.padEnd(4)} cache ${cache.padEnd(3)}`, figures);
        if (baseline !== undefined && mode === "hit" && cache === "on") {
          const base = await measure(baseline, mode, cache);
          (runs["baseline"] ??= []).push(base);
          show(`round ${round + 1} hit  cache on  (baseline)`, base);
        }
      }
    }
  }
  const med = (key: string, field: keyof Figures) => median(runs[key].map((f) => f[field]));
  const total = (key: string) => med(key, "main") + med(key, "workers") + med(key, "other");
  for (const mode of ["hit", "miss"]) {
    const on = `${mode} on`, off = `${mode} off`;
    console.log(
      `${mode === "hit" ? "one small file (hit)  " : "10,000 files (miss)   "}: workers ${
        med(on, "workers").toFixed(0)
      } vs ${med(off, "workers").toFixed(0)} µs (${
        (med(on, "workers") / med(off, "workers")).toFixed(2)
      }×), main ${med(on, "main").toFixed(0)} vs ${med(off, "main").toFixed(0)} µs, process ${
        total(on).toFixed(0)
      } vs ${total(off).toFixed(0)} µs (${(total(on) / total(off)).toFixed(2)}×), cache on vs off`,
    );
  }
  if (baseline !== undefined) {
    const ratio = (field: keyof Figures) =>
      `${med("hit on", field).toFixed(0)} vs ${med("baseline", field).toFixed(0)} µs (${
        (med("hit on", field) / med("baseline", field)).toFixed(2)
      }×)`;
    console.log(
      `cached read (hit), this checkout vs ${baseline}: workers ${ratio("workers")}, main ${
        ratio("main")
      }, process ${total("hit on").toFixed(0)} vs ${total("baseline").toFixed(0)} µs (${
        (total("hit on") / total("baseline")).toFixed(2)
      }×), wall ${ratio("wall")}`,
    );
  }
  console.log(`load average: ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
}
