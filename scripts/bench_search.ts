/**
 * `deno task bench:search`: search_code against ripgrep on the Linux 6.1
 * tree, interleaved in one run (ratios stay meaningful on a loaded machine),
 * warm cache, medians. Also checks that the walker's file list equals
 * `rg --files` and that every query's results equal ripgrep's.
 *
 * Corpus: `BENCH_LINUX_DIR` (default /tmp/bench/linux). When it is missing it
 * is made from Debian's `/usr/src/linux-source-6.1.tar.xz`
 * (`apt-get install linux-source-6.1`): unpacked, Debian's appended `/*`
 * line dropped from the top `.gitignore`, `git init`.
 *
 * The search runs through the real server: `devserver serve` as its own
 * process over stdio, with its pool of tool workers, so a long scan runs on
 * two threads as in use (ADR-064); its CPU time is the server process's
 * (`/proc/<pid>/stat`, every thread) and its peak RSS the server's
 * (`VmHWM`). Last a fresh server answers `BENCH_LONG_SCANS` (default 30) first
 * pages of a full literal search in a row, 300 ms apart, for the peak RSS of a long-lived one.
 * For comparison each round also runs the handler on a direct
 * context in this process (one thread, as before ADR-064). This process
 * needs the V8 flags of the `devserver` task; it re-runs itself with them
 * when they are missing.
 *
 * @module
 */

import {
  childEnv,
  devserverRunFlags,
  MAIN_MODULE,
  REPO_ROOT,
  rerunUnderDevserverV8Flags,
  serveArgs,
} from "./lib/program.ts";
import { cpuNow, median } from "./lib/stats.ts";
import { CORPUS, FULL_SCAN_ENV, prepareCorpus, rg, rgSelection } from "./lib/linux_corpus.ts";

const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? "5");
/** Only the queries whose name contains one of these comma-separated words (default: all). */
const ONLY = Deno.env.get("BENCH_QUERIES");
/** First pages (100 matches) of a full literal search a fresh server answers in a row for the long-lived RSS row (0: none). */
const LONG_SCANS = Number(Deno.env.get("BENCH_LONG_SCANS") ?? "30");

await rerunUnderDevserverV8Flags(import.meta.url);

const { DEFAULT_DENY_PATTERNS } = await import("../src/access/denylist.ts");
const { Walker } = await import("../src/access/walk.ts");
const { callDirect, directContext } = await import("../tests/helpers/fixtures.ts");

/** `devserver serve` as its own process, spoken to over stdio (2026-07-28 requests). */
class ServerProcess {
  readonly child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<number, (message: Record<string, unknown>) => void>();
  #nextId = 1;

  constructor(root: string, env: Record<string, string>) {
    this.child = new Deno.Command(Deno.execPath(), {
      args: serveArgs(root),
      cwd: REPO_ROOT,
      env: childEnv(env),
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.#read();
  }

  async #read(): Promise<void> {
    const decoder = new TextDecoder();
    let rest = "";
    for await (const chunk of this.child.stdout) {
      rest += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = rest.indexOf("\n")) >= 0) {
        const line = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        if (!line.trim()) continue;
        const message = JSON.parse(line) as Record<string, unknown>;
        const done = this.#pending.get(message.id as number);
        if (done) {
          this.#pending.delete(message.id as number);
          done(message);
        }
      }
    }
  }

  /** Calls `tool`; resolves with the result (throws on a protocol error). */
  async call(tool: string, args: unknown): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const answer = new Promise<Record<string, unknown>>((resolve) =>
      this.#pending.set(id, resolve)
    );
    const request = {
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name: tool,
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    };
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n"));
    const message = await answer;
    if (!message.result) throw new Error(JSON.stringify(message).slice(0, 500));
    return message.result as Record<string, unknown>;
  }

  /** User + system CPU time of the server process (all its threads), in ms. */
  cpuMs(): number {
    const stat = Deno.readTextFileSync(`/proc/${this.child.pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in 1/100 s
  }

  /** User + system CPU time of each thread of the server process, in ms, by thread id. */
  threadCpuMs(): Map<string, number> {
    const cpu = new Map<string, number>();
    for (const task of Deno.readDirSync(`/proc/${this.child.pid}/task`)) {
      try {
        const stat = Deno.readTextFileSync(`/proc/${this.child.pid}/task/${task.name}/stat`);
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        cpu.set(task.name, (Number(fields[11]) + Number(fields[12])) * 10);
      } catch { /* the thread ended */ }
    }
    return cpu;
  }

  /** The server process's RSS now and at its peak (`VmRSS`, `VmHWM`), in bytes. */
  rss(): { now: number; peak: number } {
    const status = Deno.readTextFileSync(`/proc/${this.child.pid}/status`);
    const kb = (name: string) =>
      Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
    return { now: kb("VmRSS"), peak: kb("VmHWM") };
  }

  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    await this.child.status;
  }
}

await prepareCorpus();
const env = FULL_SCAN_ENV;
const ctx = directContext(CORPUS, env);

// 1. The walker's file list against rg --files (pure ignore semantics: no skipped trees).
{
  const bare = directContext(CORPUS, { MCP_SEARCH__SKIP_DIRS: "" });
  const started = performance.now();
  const walker = new Walker(
    bare.workspace.walkPolicy,
    bare.workspace.policy.root,
    bare.workspace.resolve(""),
  );
  const ours: string[] = [];
  for (const e of walker.walk()) if (e.kind === "file") ours.push(e.path);
  const walkMs = performance.now() - started;
  const theirs = await rg([
    "--files",
    "--no-config",
    "--no-ignore-global",
    ...DEFAULT_DENY_PATTERNS.flatMap((p) => ["--iglob", `!${p}`]),
  ]);
  const plain = await rg(["--files", "--no-config", "--no-ignore-global"]);
  const theirList = theirs.stdout.split("\n").filter((l) => l).sort();
  ours.sort();
  const same = ours.length === theirList.length && ours.every((p, i) => p === theirList[i]);
  console.log(
    `walk: ${ours.length} files in ${walkMs.toFixed(0)} ms; rg --files ${
      plain.stdout.split("\n").filter((l) => l).length
    } (${theirList.length} after the denylist), ${plain.ms.toFixed(0)} ms; identical: ${same}`,
  );
  if (!same) {
    const a = new Set(ours), b = new Set(theirList);
    console.log("  only ours:", ours.filter((p) => !b.has(p)).slice(0, 10));
    console.log("  only rg:", theirList.filter((p) => !a.has(p)).slice(0, 10));
  }
}

interface Query {
  name: string;
  args: { pattern: string; regex?: boolean };
  rg: string[];
}
const QUERIES: Query[] = [
  { name: "literal, full scan", args: { pattern: "Linus Torvalds" }, rg: ["-F", "Linus Torvalds"] },
  {
    name: "regex with a literal",
    args: { pattern: "mutex_lock\\(&[a-z_]+->lock\\)", regex: true },
    rg: ["mutex_lock\\(&[a-z_]+->lock\\)"],
  },
  {
    name: "regex without a literal",
    args: { pattern: "[0-9]{8}[a-f]{4}", regex: true },
    rg: ["[0-9]{8}[a-f]{4}"],
  },
  {
    // Smart case: no upper-case letter, so both sides search case-insensitively.
    name: "literal, case-insensitive",
    args: { pattern: "linus torvalds" },
    rg: ["-F", "linus torvalds"],
  },
].filter((q) => !ONLY || ONLY.split(",").some((w) => q.name.includes(w)));

type Hit = string;
type Searched = { ms: number; cpuMs: number; hits: Hit[]; rss: number };

/** Every page of a search, through `call`, timed; `cpu` is the CPU clock that counts. */
async function allPages(
  call: (args: unknown) => Promise<Record<string, unknown>>,
  args: Query["args"],
  cpu: () => number,
  rss: () => number,
): Promise<Searched> {
  let peak = rss();
  const timer = setInterval(() => (peak = Math.max(peak, rss())), 20);
  const started = performance.now();
  const cpuStarted = cpu();
  const hits: Hit[] = [];
  let cursor: string | undefined;
  try {
    do {
      const result = await call({ ...args, max_results: 10000, ...(cursor ? { cursor } : {}) });
      if ("invalidParams" in result || result.isError) throw new Error(JSON.stringify(result));
      const s = result.structuredContent as {
        files: { path: string; matches: { line: number; text: string }[] }[];
        next_cursor?: string;
      };
      for (const f of s.files) for (const m of f.matches) hits.push(`${f.path}:${m.line}`);
      cursor = s.next_cursor;
      peak = Math.max(peak, rss());
    } while (cursor);
  } finally {
    clearInterval(timer);
  }
  return { ms: performance.now() - started, cpuMs: cpu() - cpuStarted, hits, rss: peak };
}

const server = new ServerProcess(CORPUS, env);
// Warm-up: the first call waits for the pool; the second worker is created by the supervisor.
await server.call("search_code", { pattern: "warm-up", path: "README" });
await new Promise((resolve) => setTimeout(resolve, 3000));
await server.call("search_code", { pattern: "warm-up", path: "README" });

/** Through the real server: two threads once the walk is long (ADR-064). */
const ours = (args: Query["args"]) =>
  allPages(
    (a) => server.call("search_code", a),
    args,
    () => server.cpuMs(),
    () => server.rss().now,
  );
/** The handler on a direct context in this process: one thread. */
const oneThread = (args: Query["args"]) =>
  allPages(
    (a) => callDirect(ctx, "search_code", a) as Promise<Record<string, unknown>>,
    args,
    cpuNow,
    () => Deno.memoryUsage().rss,
  );

const rows: string[] = [];
const oneRows: string[] = [];
let peakRss = 0;
for (const q of QUERIES) {
  const oursMs: number[] = [], rgMs: number[] = [];
  const oursCpu: number[] = [], rgCpu: number[] = [];
  const oneMs: number[] = [], oneCpu: number[] = [];
  let same = true;
  let count = 0;
  await rg(["-j2", "-n", "-S", ...rgSelection(), ...q.rg]); // warm
  for (let r = 0; r < ROUNDS; r++) {
    const base = await rg(["-j2", "-n", "-S", ...rgSelection(), ...q.rg]);
    rgMs.push(base.ms);
    if (base.cpuMs !== undefined) rgCpu.push(base.cpuMs);
    const mine = await ours(q.args);
    oursMs.push(mine.ms);
    oursCpu.push(mine.cpuMs);
    const alone = await oneThread(q.args);
    oneMs.push(alone.ms);
    oneCpu.push(alone.cpuMs);
    peakRss = Math.max(peakRss, alone.rss);
    if (alone.hits.join("\n") !== mine.hits.join("\n")) {
      console.log(`  ${q.name}: one thread and two differ (or their order does)`);
    }
    if (r === 0) {
      const theirs = base.stdout.split("\n").filter((l) => l).map((l) => {
        const [path, line] = l.split(":", 2);
        return `${path}:${line}`;
      });
      const a = [...mine.hits].sort(), b = [...theirs].sort();
      same = a.length === b.length && a.every((x, i) => x === b[i]);
      count = b.length;
      if (!same) {
        const sa = new Set(a), sb = new Set(b);
        console.log(`  ${q.name}: only ours`, a.filter((x) => !sb.has(x)).slice(0, 5));
        console.log(`  ${q.name}: only rg`, b.filter((x) => !sa.has(x)).slice(0, 5));
      }
    }
  }
  const o = median(oursMs), b = median(rgMs);
  const cpu = rgCpu.length > 0
    ? `${(median(rgCpu) / 1000).toFixed(3)} / ${(median(oursCpu) / 1000).toFixed(3)} (${
      (median(oursCpu) / median(rgCpu)).toFixed(2)
    }×)`
    : "n/a";
  rows.push(
    `| ${q.name} | \`${q.args.pattern}\` | ${count} | ${(b / 1000).toFixed(3)} | ${
      (o / 1000).toFixed(3)
    } | ${(o / b).toFixed(2)}× | ${cpu} | ${same ? "yes" : "NO"} |`,
  );
  const one = median(oneMs);
  oneRows.push(
    `| ${q.name} | ${(one / 1000).toFixed(3)} | ${(one / b).toFixed(2)}× | ${
      (median(oneCpu) / 1000).toFixed(3)
    } | ${(o / one).toFixed(2)} |`,
  );
}

// First 100 matches of a common term, from the call: direct and through the real server.
const firstDirect: number[] = [];
const firstCpu: number[] = [];
/** Files one thread searches for the page: those before its end in walk order. */
let firstAlone = 0;
for (let r = 0; r < ROUNDS; r++) {
  const started = performance.now();
  const cpuStarted = cpuNow();
  const direct = await callDirect(ctx, "search_code", {
    pattern: "EXPORT_SYMBOL_GPL",
    max_results: 100,
  }) as { structuredContent?: { files_scanned: number } };
  firstDirect.push(performance.now() - started);
  firstAlone = direct.structuredContent?.files_scanned ?? 0;
  firstCpu.push(cpuNow() - cpuStarted);
}
const firstServer: number[] = [];
/** Per call through the server: the process's CPU, its busiest thread's (what a second thread cannot share), files searched. */
const firstServerCpu: number[] = [], firstBusiest: number[] = [], firstScanned: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  // Three calls a sample: the kernel's per-thread clock ticks every 10 ms.
  const threads0 = server.threadCpuMs(), cpu0 = server.cpuMs();
  const started = performance.now();
  for (let c = 0; c < 3; c++) {
    const result = await server.call("search_code", {
      pattern: "EXPORT_SYMBOL_GPL",
      max_results: 100,
    });
    const s = result.structuredContent as { total_matches: number; files_scanned: number };
    if (s.total_matches !== 100) throw new Error(`first 100: got ${s.total_matches}`);
    if (c === 0) firstScanned.push(s.files_scanned);
  }
  firstServer.push((performance.now() - started) / 3);
  firstServerCpu.push((server.cpuMs() - cpu0) / 3);
  let busiest = 0;
  for (const [id, ms] of server.threadCpuMs()) {
    busiest = Math.max(busiest, ms - (threads0.get(id) ?? 0));
  }
  firstBusiest.push(busiest / 3);
}
const serverRss = server.rss();
await server.close();

console.log(
  `\ncorpus: ${CORPUS}, ${ROUNDS} rounds, medians, interleaved with rg -j2 -n; load average ${
    Deno.loadavg().map((x) => x.toFixed(1)).join(" ")
  }\n`,
);
console.log(
  "search_code through the real server (its own process, two threads once a walk is long, ADR-064); CPU: the server process's",
);
console.log(
  "| query | pattern | matching lines (rg) | rg -j2 s | search_code s | ratio | CPU s, rg / ours | identical |",
);
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |");
for (const row of rows) console.log(row);
console.log(
  `\nfirst 100 matches of EXPORT_SYMBOL_GPL: ${(median(firstDirect) / 1000).toFixed(3)} s direct, ${
    (median(firstServer) / 1000).toFixed(3)
  } s through the server (CPU of the direct call: ${(median(firstCpu) / 1000).toFixed(3)} s)`,
);
console.log(
  `  through the server: CPU ${(median(firstServerCpu) / 1000).toFixed(3)} s (the process), ${
    (median(firstBusiest) / 1000).toFixed(3)
  } s its busiest thread; ${median(firstScanned)} files searched (one thread: ${firstAlone})`,
);
console.log(
  "\none thread for comparison (the handler on a direct context in this process; CPU: this process's)",
);
console.log("| query | one thread s | ratio to rg | CPU s | two threads / one (wall) |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const row of oneRows) console.log(row);
console.log(
  `\npeak RSS during the full scans: ${
    (serverRss.peak / 1048576).toFixed(0)
  } MiB the server process (VmHWM, ${(serverRss.now / 1048576).toFixed(0)} MiB at the end); ${
    (peakRss / 1048576).toFixed(0)
  } MiB this process (one-thread runs in it)`,
);

/**
 * A long-lived server: one fresh server's `VmHWM` after each of `LONG_SCANS` calls of
 * `Linus Torvalds` with the default page (the first 100 matches, 150–250 ms each), 300 ms apart.
 * Calls that short were not followed by ADR-118's collection; 24 in a row grew the peak to
 * 231 MB before ADR-138 (performance.md).
 */
async function longLivedPeaks(calls: number): Promise<number[]> {
  const long = new ServerProcess(CORPUS, env);
  const peaks: number[] = [];
  try {
    for (let i = 0; i < calls; i++) {
      const result = await long.call("search_code", { pattern: "Linus Torvalds" });
      if (result.isError) throw new Error(JSON.stringify(result).slice(0, 500));
      await new Promise((resolve) => setTimeout(resolve, 300));
      peaks.push(long.rss().peak);
    }
  } finally {
    await long.close();
  }
  return peaks;
}
if (LONG_SCANS > 0) {
  const peaks = await longLivedPeaks(LONG_SCANS);
  const at = [1, 10, 20, 30, 40, 60].filter((n) => n < LONG_SCANS).concat(LONG_SCANS);
  console.log(
    `peak RSS of one server over ${LONG_SCANS} first pages of a full literal search, 300 ms apart (VmHWM after calls ${
      at.join(", ")
    }): ${at.map((n) => (peaks[n - 1] / 1e6).toFixed(0)).join(", ")} MB (target ≤ 200 MB)`,
  );
}

/**
 * Issue 6's memory target: the peak RSS of one `devserver call search_code` (stdio, a fresh
 * process: the main thread, the supervisor and the tool workers) for the full literal scan, by
 * GNU `time` (`%M`, in KiB: printed as MB of 10^6 bytes and as MiB), when `/usr/bin/time` is there. Twice, since GC timing moves it by a few MB.
 */
function callPeakRss(): number | undefined {
  try {
    Deno.statSync("/usr/bin/time");
  } catch {
    return undefined;
  }
  const out = new Deno.Command("/usr/bin/time", {
    args: [
      "-f",
      "%M",
      Deno.execPath(),
      "run",
      ...devserverRunFlags(),
      MAIN_MODULE,
      "--cwd",
      CORPUS,
      "call",
      "search_code",
      JSON.stringify({ pattern: "Linus Torvalds", max_results: 10_000 }),
    ],
    cwd: CORPUS,
    env: childEnv(FULL_SCAN_ENV),
    clearEnv: true,
    stdout: "null",
    stderr: "piped",
  }).outputSync();
  const last = new TextDecoder().decode(out.stderr).trim().split("\n").pop() ?? "";
  const kib = Number(last);
  return out.success && Number.isFinite(kib) && kib > 0 ? kib : undefined;
}
const callRss = [callPeakRss(), callPeakRss()];
console.log(
  callRss.every((k) => k !== undefined)
    ? `peak RSS of one full literal scan, devserver call (stdio, GNU time): ${
      callRss.map((k) => `${(k! * 1024 / 1e6).toFixed(0)} MB (${(k! / 1024).toFixed(0)} MiB)`).join(
        ", ",
      )
    } (target ≤ 200 MB)`
    : "peak RSS of one full literal scan, devserver call (stdio): not measured (no /usr/bin/time, or the call failed)",
);
