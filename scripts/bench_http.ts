/**
 * `deno task bench:http`: HTTP throughput under wrk (the Debian package),
 * side by side in one run — a bare SDK echo server (`createMcpHandler`, one
 * trivial tool: scripts/lib/http_echo_server.ts) as the baseline, then
 * devserver's `read_file` of a small file, `read_file` spread over 50,000
 * distinct small files (each read once: the worker's read cache of ADR-081
 * can only miss) and `search_code` over a medium tree. Each: requests/s, p50/p99 latency, errors (non-2xx, socket errors,
 * and 200 answers that carry a JSON-RPC error or an `isError` result), and
 * the server's RSS sampled through the run. The goal: `read_file` at ≥ 60%
 * of the echo baseline's requests/s, no errors, RSS flat.
 *
 * Usage: deno task bench:http [--duration 30] [--rounds 6] [--connections 64] [--threads 2] [--json FILE]
 *        [--server-env NAME=VALUE]… (settings for the devserver instance, e.g. MCP_LOG__LEVEL=warn)
 *        [--compare-env NAME=VALUE]… (a second devserver instance, the same settings plus these,
 *        whose `read_file` small runs in the same alternating slices: an A/B of a setting, e.g.
 *        MCP_HTTP__MAX_CONCURRENT_CALLS=32, with CPU per ok answer compared in the same run)
 *        [--baseline DIR] (the same A/B against another checkout's devserver, e.g. /work/base:
 *        its own program, the same settings)
 *
 * An A/B runs each side as two instances, started in the order A B B A and measured in that
 * order and its reverse in alternate rounds: instances of the very same code measured up to
 * 10–20% apart in CPU per answer (ADR-110), so one instance a side reported that difference as
 * the change's. One run still resolves only a difference of about 10% or more.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { join } from "node:path";
import { MODERN_PROTOCOL_VERSION, PROTOCOL_VERSION_META_KEY } from "../src/version.ts";
import { metadataHeaders } from "../src/conform/http.ts";
import { REPO_ROOT } from "./lib/program.ts";
import { median } from "./lib/stats.ts";
import { TOOL_QUEUE_LIMIT } from "../src/app.ts";
import {
  type HttpInstance,
  postMcp,
  startHttpInstance,
  startListening,
} from "./lib/http_instance.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    duration: { type: "string", default: "30" },
    connections: { type: "string", default: "64" },
    threads: { type: "string", default: "2" },
    rounds: { type: "string", default: "6" },
    json: { type: "string" },
    "server-env": { type: "string", multiple: true, default: [] },
    "compare-env": { type: "string", multiple: true, default: [] },
    baseline: { type: "string" },
  },
});
const DURATION_S = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const THREADS = Number(values.threads);
/** A compared pair runs in this many alternating slices, so drift in the machine's load hits both. */
const ROUNDS = Math.max(1, Number(values.rounds));

/** One load run's figures. */
export interface LoadFigures {
  readonly name: string;
  readonly requestsPerSecond: number;
  readonly requests: number;
  /** Answers per second that were a 200 with a non-error result (the throughput that counts). */
  readonly okPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly socketErrors: number;
  /** 200 answers whose body is a JSON-RPC error or an isError result. */
  readonly badBodies: number;
  /** The first error answer's message, when there was one. */
  readonly sampleError?: string;
  /** Server RSS in MiB, one sample a second. */
  readonly rssMiB: number[];
  /**
   * CPU seconds (user + system, all threads) the server process spent during the run: on a
   * shared machine the figure that moves least with other people's load.
   */
  readonly cpuSeconds: number;
  /**
   * CPU seconds of the server's main thread alone (its thread id is the process id): the
   * thread that serves HTTP, the SDK and the gates, and posts to the tool workers.
   */
  readonly mainThreadCpuSeconds: number;
}

/** The wrk Lua script that POSTs `message` with the 2026-07-28 headers and counts bad bodies. */
export function wrkScript(message: Record<string, unknown>): string {
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    ...metadataHeaders(message),
  };
  const lua = (s: string) => JSON.stringify(s); // a JSON string is a valid Lua string literal here
  return [
    `wrk.method = "POST"`,
    `wrk.body = ${lua(JSON.stringify(message))}`,
    ...Object.entries(headers).map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(v)}`),
    `local threads = {}`,
    `function setup(thread) table.insert(threads, thread) end`,
    `function init(args) bad = 0 end`,
    `function response(status, headers, body)`,
    `  if status == 200 and (string.find(body, '"isError":true', 1, true)`,
    `      or string.find(body, '"error":{', 1, true)) then`,
    `    bad = bad + 1`,
    `    if first_bad == nil then first_bad = string.sub(body, 1, 300) end`,
    `  end`,
    `end`,
    `function done(summary, latency, requests)`,
    `  local total = 0`,
    `  local sample = nil`,
    `  for _, t in ipairs(threads) do`,
    `    total = total + t:get("bad")`,
    `    sample = sample or t:get("first_bad")`,
    `  end`,
    `  io.write(string.format("BAD_BODIES %d\\n", total))`,
    `  if sample then io.write("FIRST_BAD " .. string.gsub(sample, "\\n", " ") .. "\\n") end`,
    `end`,
    ``,
  ].join("\n");
}

/** How many distinct small files the cache-miss workload spreads its reads over. */
export const SPREAD_FILES = 50_000;
/** Where `SPREAD_FILES` small files live in their own workspace: `d<i % 100>/f<i>.txt`. */
const spreadPath = (i: number) => `d${i % 100}/f${i}.txt`;

/**
 * {@linkcode wrkScript}, but each request reads another of `SPREAD_FILES` distinct files:
 * file `(k * 7919) % SPREAD_FILES` for k counting up from the start of this run's block
 * (7919 is prime to the count, so k ↦ file is one-to-one). Each slice of the run (`run`, 0
 * to `runs - 1`) and each wrk thread takes its own block of k, so no file is read twice
 * while a thread makes fewer than `SPREAD_FILES / (runs * THREADS)` requests in a slice,
 * and a file read twice is only kept (ADR-081 keeps on the second miss), never answered
 * from the cache.
 */
export function wrkSpreadScript(
  message: Record<string, unknown>,
  run: number,
  runs: number,
): string {
  const body = JSON.stringify(message);
  const [before, after] = body.split(spreadPath(0));
  if (after === undefined) throw new Error("the spread message must read spreadPath(0)");
  const lua = (s: string) => JSON.stringify(s);
  const block = Math.floor(SPREAD_FILES / (runs * THREADS));
  return wrkScript(message).replace(
    "local threads = {}",
    [
      `local threads = {}`,
      `local before, after = ${lua(before)}, ${lua(after)}`,
      `local count, stride, n = ${SPREAD_FILES}, 7919, 0`,
      `function request()`,
      `  local i = ((first + n) * stride) % count`,
      `  n = n + 1`,
      `  local path = "d" .. (i % 100) .. "/f" .. i .. ".txt"`,
      `  return wrk.format(nil, nil, nil, before .. path .. after)`,
      `end`,
    ].join("\n"),
  ).replace(
    "function setup(thread) table.insert(threads, thread) end",
    `function setup(thread) thread:set("first", (${run * THREADS} + #threads) * ${block}) ` +
      `table.insert(threads, thread) end`,
  );
}

function firstBad(output: string): string | undefined {
  return /^FIRST_BAD (.*)$/m.exec(output)?.[1];
}

function toMs(value: string, unit: string): number {
  return Number(value) * ({ us: 0.001, ms: 1, s: 1000, m: 60_000 }[unit] ?? NaN);
}

/** Reads wrk's `--latency` report. */
export function parseWrk(
  output: string,
): Omit<
  LoadFigures,
  "name" | "rssMiB" | "okPerSecond" | "sampleError" | "cpuSeconds" | "mainThreadCpuSeconds"
> {
  const num = (re: RegExp) => Number(re.exec(output)?.[1] ?? NaN);
  const latency = (pct: string) => {
    const m = new RegExp(`^\\s*${pct}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(output);
    return m ? toMs(m[1], m[2]) : NaN;
  };
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(
    output,
  );
  return {
    requestsPerSecond: num(/Requests\/sec:\s+([\d.]+)/),
    requests: num(/(\d+) requests in/),
    p50Ms: latency("50"),
    p99Ms: latency("99"),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0),
    socketErrors: socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    badBodies: num(/BAD_BODIES (\d+)/),
  };
}

/** The CPU seconds (user + system, every thread) process `pid` has used so far. */
export function cpuSecondsOf(pid: number): number {
  try {
    return cpuSecondsFromStat(Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch {
    return NaN; // gone, or /proc not readable (Deno asks for --allow-all there)
  }
}

/** The CPU seconds (user + system) the main thread of process `pid` has used so far. */
export function mainThreadCpuSecondsOf(pid: number): number {
  try {
    return cpuSecondsFromStat(Deno.readTextFileSync(`/proc/${pid}/task/${pid}/stat`));
  } catch {
    return NaN;
  }
}

/** User + system CPU seconds from the text of a `/proc/PID/stat` file. */
export function cpuSecondsFromStat(stat: string): number {
  // Fields after the command (which may hold spaces and parentheses), from its last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** USER_HZ: the unit of /proc/PID/stat times on Linux. */
const CLOCK_TICKS = 100;

function rssMiB(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

const META = {
  [PROTOCOL_VERSION_META_KEY]: MODERN_PROTOCOL_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
};

function toolCall(name: string, args: Record<string, unknown>): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args, _meta: META },
  };
}

/**
 * Slices of one load joined: total answers over total time, errors summed,
 * the median slice's p50 and the worst slice's p99, RSS samples in order.
 */
export function combine(slices: LoadFigures[]): LoadFigures {
  const sum = (f: (x: LoadFigures) => number) => slices.reduce((a, x) => a + f(x), 0);
  const seconds = sum((x) => x.requests / x.requestsPerSecond);
  const okAnswers = sum((x) => x.okPerSecond * x.requests / x.requestsPerSecond);
  const p50s = slices.map((x) => x.p50Ms).sort((a, b) => a - b);
  return {
    name: slices[0].name,
    requests: sum((x) => x.requests),
    requestsPerSecond: sum((x) => x.requests) / seconds,
    okPerSecond: okAnswers / seconds,
    p50Ms: p50s[Math.floor(p50s.length / 2)],
    p99Ms: Math.max(...slices.map((x) => x.p99Ms)),
    non2xx: sum((x) => x.non2xx),
    socketErrors: sum((x) => x.socketErrors),
    badBodies: sum((x) => x.badBodies),
    rssMiB: slices.flatMap((x) => x.rssMiB),
    cpuSeconds: sum((x) => x.cpuSeconds),
    mainThreadCpuSeconds: sum((x) => x.mainThreadCpuSeconds),
    sampleError: slices.find((x) => x.sampleError)?.sampleError,
  };
}

/** One request first, so a wrong setup fails loudly instead of measuring errors. */
async function preflight(url: string, message: Record<string, unknown>): Promise<void> {
  const response = await postMcp(url, message);
  const text = await response.text();
  if (response.status !== 200 || text.includes('"isError":true') || text.includes('"error":{')) {
    throw new Error(`preflight to ${url} failed: ${response.status} ${text.slice(0, 400)}`);
  }
}

async function load(
  name: string,
  connections: number,
  url: string,
  pid: number,
  message: Record<string, unknown>,
  dir: string,
  seconds = DURATION_S,
  spread?: { readonly run: number; readonly runs: number },
): Promise<LoadFigures> {
  await preflight(url, message);
  const script = join(dir, `${name.replace(/\W+/g, "_")}.lua`);
  await Deno.writeTextFile(
    script,
    spread ? wrkSpreadScript(message, spread.run, spread.runs) : wrkScript(message),
  );
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssMiB(pid)), 1000);
  const cpuBefore = cpuSecondsOf(pid);
  const mainBefore = mainThreadCpuSecondsOf(pid);
  const out = await new Deno.Command("wrk", {
    args: [
      `-t${THREADS}`,
      `-c${connections}`,
      `-d${seconds}s`,
      "--timeout",
      "10s",
      "--latency",
      "-s",
      script,
      url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  clearInterval(sampler);
  const cpuSeconds = cpuSecondsOf(pid) - cpuBefore;
  const mainThreadCpuSeconds = mainThreadCpuSecondsOf(pid) - mainBefore;
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) throw new Error(`wrk failed: ${new TextDecoder().decode(out.stderr)}`);
  const figures = parseWrk(text);
  const ok = figures.requests - figures.non2xx - figures.badBodies;
  return {
    name,
    ...figures,
    okPerSecond: ok * figures.requestsPerSecond / figures.requests,
    rssMiB: samples,
    cpuSeconds,
    mainThreadCpuSeconds,
    sampleError: firstBad(text),
  };
}

function startEcho(): Promise<HttpInstance> {
  return startListening([
    "run",
    "-q",
    "--no-prompt",
    "--frozen",
    "--config",
    `${REPO_ROOT}/deno.json`,
    "--allow-net=127.0.0.1",
    `${REPO_ROOT}/scripts/lib/http_echo_server.ts`,
  ], "bare SDK echo");
}

/** A medium tree for search_code: copies of this repository's src/ and tests/. */
async function makeWorkspace(dir: string): Promise<string> {
  const root = join(dir, "workspace");
  await Deno.mkdir(root, { recursive: true });
  await Deno.writeTextFile(join(root, "small.txt"), "a small file\n".repeat(40));
  for (const sub of ["src", "tests", "docs", "scripts"]) {
    const out = await new Deno.Command("cp", { args: ["-r", join(REPO_ROOT, sub), root] })
      .output();
    if (!out.success) throw new Error(`cp ${sub} failed`);
  }
  return root;
}

/** The cache-miss workload's own workspace: `SPREAD_FILES` small files, none the same. */
async function makeSpreadWorkspace(dir: string): Promise<string> {
  const root = join(dir, "spread");
  for (let d = 0; d < 100; d++) await Deno.mkdir(join(root, `d${d}`), { recursive: true });
  for (let i = 0; i < SPREAD_FILES; i++) {
    await Deno.writeTextFile(
      join(root, spreadPath(i)),
      `file ${i}\n` + "a small file\n".repeat(40),
    );
  }
  return root;
}

function countFiles(dir: string): { files: number; bytes: number } {
  let files = 0, bytes = 0;
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      const sub = countFiles(path);
      files += sub.files;
      bytes += sub.bytes;
    } else if (entry.isFile) {
      files++;
      bytes += Deno.statSync(path).size;
    }
  }
  return { files, bytes };
}

/**
 * How much RSS grew over the second half of a run (last sample minus the
 * middle one): the heap grows to a plateau in the first seconds under any
 * load; a leak keeps growing after it.
 */
export function secondHalfGrowth(rss: number[]): number {
  if (rss.length < 2) return NaN;
  return rss[rss.length - 1] - rss[Math.floor(rss.length / 2)];
}

/**
 * The order round `round` measures an A/B's instances in: as started (A B B A) in even rounds,
 * reversed in odd ones, so each side is measured first, second, third and last equally often.
 */
export function abOrder<T>(round: number, started: readonly T[]): readonly T[] {
  return round % 2 === 0 ? started : [...started].reverse();
}

/**
 * One round of an A/B: the compared side's CPU per ok answer over this side's, each side the
 * mean of its instances' slices in that round.
 */
export function abRatio(mine: LoadFigures[], other: LoadFigures[]): number {
  const mean = (xs: LoadFigures[]) =>
    xs.reduce((sum, f) => sum + msPerOk(f.cpuSeconds, f), 0) / xs.length;
  return mean(other) / mean(mine);
}

/**
 * Starts another checkout's devserver over `root` with `env`, through that checkout's own
 * `scripts/lib/http_instance.ts` (its program, its flags).
 */
async function baselineStarter(
  dir: string,
  root: string,
  env: Record<string, string>,
): Promise<() => Promise<HttpInstance>> {
  const url = new URL(`file://${join(dir, "scripts/lib/http_instance.ts")}`);
  const { startHttpInstance: start } = await import(url.href);
  return () => start(root, env) as Promise<HttpInstance>;
}

/** `NAME=VALUE` pairs as an environment. */
function settingsOf(pairs: string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  );
}

/** CPU seconds per ok answer (`cpu` of `f`'s run), in milliseconds. */
export function msPerOk(cpuSeconds: number, f: LoadFigures): number {
  return 1000 * cpuSeconds / (f.okPerSecond * f.requests / f.requestsPerSecond);
}

/**
 * The A/B line: the compared instance against the default one, both against the echo of
 * the same slices; CPU per ok answer of the main thread and of the process, and its ratio.
 */
export function compareLine(
  read: LoadFigures,
  other: LoadFigures,
  base: LoadFigures,
  env: Record<string, string>,
): string {
  const setting = Object.entries(env).map(([k, v]) => `${k}=${v}`).join(" ");
  const pct = (f: LoadFigures) => (100 * f.okPerSecond / base.okPerSecond).toFixed(0);
  const main = [
    msPerOk(read.mainThreadCpuSeconds, read),
    msPerOk(other.mainThreadCpuSeconds, other),
  ];
  const all = [msPerOk(read.cpuSeconds, read), msPerOk(other.cpuSeconds, other)];
  return `${read.name} / with ${setting}: ${pct(read)}% / ${pct(other)}% of echo; ` +
    `main thread ${main[0].toFixed(3)} / ${main[1].toFixed(3)} ms per ok answer ` +
    `(${(main[1] / main[0]).toFixed(2)}×), process ${all[0].toFixed(3)} / ${all[1].toFixed(3)} ` +
    `(${(all[1] / all[0]).toFixed(2)}×); p99 ${read.p99Ms.toFixed(1)} / ${
      other.p99Ms.toFixed(1)
    } ms`;
}

function describe(f: LoadFigures, baseline?: LoadFigures): string {
  const rss = f.rssMiB.filter(Number.isFinite);
  const first = rss[Math.min(1, rss.length - 1)] ?? NaN; // after a second of warm-up
  const last = rss.at(-1) ?? NaN;
  const ratio = baseline
    ? ` (${(100 * f.okPerSecond / baseline.okPerSecond).toFixed(0)}% of echo)`
    : "";
  return `${f.name.padEnd(30)} ${f.requestsPerSecond.toFixed(0).padStart(5)} answers/s, ` +
    `${f.okPerSecond.toFixed(0).padStart(5)} ok/s${ratio}  ` +
    `p50 ${f.p50Ms.toFixed(1)} ms  p99 ${f.p99Ms.toFixed(1)} ms  ` +
    `errors: non-2xx ${f.non2xx}, socket ${f.socketErrors}, JSON-RPC/isError ${f.badBodies}  ` +
    `server CPU ${(1000 * f.cpuSeconds / f.requests).toFixed(3)} ms/answer, ` +
    `${(1000 * f.cpuSeconds / (f.okPerSecond * f.requests / f.requestsPerSecond)).toFixed(3)} ` +
    `ms/ok answer (main thread ${
      (1000 * f.mainThreadCpuSeconds / (f.okPerSecond * f.requests / f.requestsPerSecond))
        .toFixed(3)
    })  ` +
    `RSS ${first.toFixed(0)} → ${last.toFixed(0)} MiB (max ${Math.max(...rss).toFixed(0)}; ` +
    `second half ${secondHalfGrowth(rss) >= 0 ? "+" : ""}${secondHalfGrowth(rss).toFixed(0)} MiB)` +
    (f.sampleError ? `\n${" ".repeat(30)} first error answer: ${f.sampleError.slice(0, 200)}` : "");
}

if (import.meta.main) {
  const which = await new Deno.Command("wrk", {
    args: ["--version"],
    stdout: "null",
    stderr: "null",
  })
    .output().catch(() => undefined);
  if (which === undefined) {
    console.log("bench:http: wrk is not installed (apt-get install wrk); skipped");
    Deno.exit(0);
  }
  const dir = await Deno.makeTempDir({ prefix: "devserver-bench-http-" });
  try {
    const root = await makeWorkspace(dir);
    const spreadRoot = await makeSpreadWorkspace(dir);
    const tree = countFiles(root);
    console.log(
      `bench:http: wrk -t${THREADS} -c${CONNECTIONS} -d${DURATION_S}s ` +
        `(compared pairs in ${ROUNDS} alternating slices); ` +
        `workspace ${tree.files} files, ${(tree.bytes / 1e6).toFixed(1)} MB`,
    );
    const results: LoadFigures[] = [];
    const report = (f: LoadFigures, baseline?: LoadFigures) => {
      results.push(f);
      console.log(describe(f, baseline));
      return f;
    };
    // The second connection count: as many as the sandbox queues for its tool workers (32).
    const admitted = Math.min(CONNECTIONS, TOOL_QUEUE_LIMIT);
    const echoCall = toolCall("echo", { text: "hi" });
    const readCall = toolCall("read_file", { path: "small.txt" });
    const searchCall = toolCall("search_code", { pattern: "CursorCodec" });
    // Both servers run through the whole bench; each devserver run follows its
    // baseline directly, so a change in the machine's load hits both alike.
    await using echo = await startEcho();
    const serverEnv = settingsOf(values["server-env"]);
    // The A/B side, when asked for: the same settings plus --compare-env's, or another
    // checkout's program (--baseline). Each side runs as two instances started A B B A (ADR-110).
    const compareEnv = settingsOf(values["compare-env"]);
    const comparing = values["compare-env"].length > 0 || values.baseline !== undefined;
    const startCompared = values.baseline === undefined
      ? () => startHttpInstance(root, { ...serverEnv, ...compareEnv })
      : await baselineStarter(values.baseline, root, { ...serverEnv, ...compareEnv });
    await using server = await startHttpInstance(root, serverEnv);
    await using compareServer = comparing ? await startCompared() : undefined;
    await using compareServer2 = comparing ? await startCompared() : undefined;
    await using server2 = comparing ? await startHttpInstance(root, serverEnv) : undefined;
    // The cache-miss workload's server: its own workspace, the same settings.
    await using spreadServer = await startHttpInstance(spreadRoot, serverEnv);
    console.log(`devserver: ${server.program}`);
    const spreadCall = toolCall("read_file", { path: spreadPath(0) });
    const run = (
      name: string,
      c: number,
      target: HttpInstance,
      call: Record<string, unknown>,
      seconds = DURATION_S,
      spread?: { readonly run: number; readonly runs: number },
    ) => load(`${name} c${c}`, c, target.url, target.pid, call, dir, seconds, spread);
    const compared: [LoadFigures, LoadFigures, LoadFigures, number[]][] = [];
    /** Baseline and devserver (and the A/B instances) in alternating slices of the duration. */
    const pair = async (c: number) => {
      const slice = Math.max(1, Math.round(DURATION_S / ROUNDS));
      const base: LoadFigures[] = [], mine: LoadFigures[] = [], other: LoadFigures[] = [];
      const ratios: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        base.push(await run("echo (bare SDK)", c, echo, echoCall, slice));
        if (!compareServer || !compareServer2 || !server2) {
          mine.push(await run("read_file small", c, server, readCall, slice));
          continue;
        }
        const a: LoadFigures[] = [], b: LoadFigures[] = [];
        const sides = [[server, a], [compareServer, b], [compareServer2, b], [server2, a]] as const;
        for (const [target, into] of abOrder(i, sides)) {
          const name = into === a ? "read_file small" : "read_file small, compared";
          into.push(await run(name, c, target, readCall, slice));
        }
        mine.push(...a);
        other.push(...b);
        ratios.push(abRatio(a, b));
      }
      const baseline = report(combine(base));
      const read = report(combine(mine), baseline);
      if (compareServer) compared.push([baseline, read, report(combine(other), baseline), ratios]);
      return [baseline, read];
    };
    const [echo64, read64] = await pair(CONNECTIONS);
    const [echoAdmitted, readAdmitted] = await pair(admitted);
    // Reads spread over many distinct files (each read once): what the read cache cannot
    // help, so a cached small-file figure fools nobody (ADR-081). Paired with echo too.
    const spreadPair = async (c: number) => {
      const slice = Math.max(1, Math.round(DURATION_S / ROUNDS));
      const base: LoadFigures[] = [], mine: LoadFigures[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        base.push(await run("echo (bare SDK)", c, echo, echoCall, slice));
        mine.push(
          await run("read_file spread (miss)", c, spreadServer, spreadCall, slice, {
            run: i,
            runs: ROUNDS,
          }),
        );
      }
      const baseline = report(combine(base));
      return [baseline, report(combine(mine), baseline)];
    };
    const [echoSpread, readSpread] = await spreadPair(admitted);
    const perThread = readSpread.requests / (ROUNDS * THREADS);
    const block = Math.floor(SPREAD_FILES / (ROUNDS * THREADS));
    console.log(
      `read_file spread: ${readSpread.requests} requests over ${SPREAD_FILES} files, ` +
        `${perThread.toFixed(0)} a thread a slice against blocks of ${block}` +
        (perThread > block
          ? " — MORE than a block: some files were read twice"
          : ": each file read once"),
    );
    report(await run("search_code medium", CONNECTIONS, server, searchCall), echo64);
    report(await run("search_code medium", admitted, server, searchCall), echoAdmitted);
    for (
      const [read, base] of [[read64, echo64], [readAdmitted, echoAdmitted], [
        readSpread,
        echoSpread,
      ]]
    ) {
      const ratio = read.okPerSecond / base.okPerSecond;
      const cpu = (f: LoadFigures) => f.cpuSeconds / f.requests;
      const perOk = (seconds: number, f: LoadFigures) =>
        (1000 * seconds / (f.okPerSecond * f.requests / f.requestsPerSecond)).toFixed(3);
      console.log(
        `${read.name} / ${base.name}: ${(100 * ratio).toFixed(0)}% of ok answers/s (goal ≥ 60%) — ${
          ratio >= 0.6 ? "met" : "NOT met"
        }; server CPU per answer ${(cpu(read) / cpu(base)).toFixed(2)}× echo's; ` +
          `CPU per ok answer ${perOk(read.cpuSeconds, read)} ms (echo ${
            perOk(base.cpuSeconds, base)
          }), main thread ${perOk(read.mainThreadCpuSeconds, read)} ms`,
      );
    }
    const compareSetting = values.baseline === undefined
      ? compareEnv
      : { ...compareEnv, baseline: values.baseline };
    for (const [base, read, other, ratios] of compared) {
      console.log(compareLine(read, other, base, compareSetting));
      console.log(
        `  per round (two instances a side, A B B A): compared / this CPU per ok answer ${
          ratios.map((r) => r.toFixed(2)).join(", ")
        }; median ${median(ratios).toFixed(3)}`,
      );
    }
    const average = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
    console.log(`load average at the end: ${average}`);
    if (values.json) await Deno.writeTextFile(values.json, JSON.stringify(results, null, 2));
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
