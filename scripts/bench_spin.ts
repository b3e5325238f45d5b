/**
 * Do tool-worker threads go quiet once their call has ended? The real
 * server (sandbox, real tool workers) searches the Linux tree for a literal
 * that is nowhere (a full scan, on two threads once the pool lends the
 * second worker, ADR-064), and the call ends each way a call can end:
 * answered, cancelled by the client, timed out at the budget, its HTTP
 * client gone, the server closed under it. For each, the CPU the process's
 * tool-worker threads (Deno names them `worker-N`) use in the
 * {@linkcode WINDOW_MS} after the end is read from `/proc/self/task`, and
 * set against the same threads' CPU in a window while a scan runs (the
 * baseline, measured in the same round, so the machine's load cancels):
 * a ratio near 0 is a quiet pool, near 1 a thread still spinning. The idle
 * pool's own window is printed too. CPU is thread user+system time; wall
 * is the time from the request to its answer.
 *
 * Usage: deno task bench:spin [--rounds N]
 *
 * @module
 */

import { rerunUnderDevserverV8Flags } from "./lib/program.ts";
import { CORPUS, prepareCorpus } from "./lib/linux_corpus.ts";
import { median } from "./lib/stats.ts";
import { readThreads } from "../tests/helpers/threads.ts";

await rerunUnderDevserverV8Flags(import.meta.url);

const { createDevServer } = await import("../src/app.ts");
const { loadConfig } = await import("../src/config/load.ts");
const { createHttpHandler } = await import("../src/transport/http.ts");

/** How long the threads are watched after a call's end, and while a scan runs. */
const WINDOW_MS = 1_000;
/** How long a scan runs before it is stopped (cancel, close, disconnect). */
const RUN_MS = 600;
const NOWHERE = "zq9xj_devserver_spin_probe_kw7"; // in no file: the search walks the whole tree

const rounds = Number(Deno.args[Deno.args.indexOf("--rounds") + 1] || 3);

/** CPU ms so far of each tool-worker thread, by thread id (this bench runs with every permission). */
const workerCpu = () => readThreads("self");

/** The tool-worker threads' CPU over `ms` (sampled every 20 ms: an ending thread counts until last seen). */
async function watch(ms: number): Promise<number> {
  const first = workerCpu();
  const last = new Map(first);
  const until = performance.now() + ms;
  while (performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (const [tid, cpu] of workerCpu()) last.set(tid, cpu);
  }
  let used = 0;
  for (const [tid, cpu] of last) used += cpu - (first.get(tid) ?? 0);
  return used;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const scan = { pattern: NOWHERE, output_mode: "files_with_matches" };

async function server(env: Record<string, string> = {}) {
  const s = createDevServer(loadConfig(env, { workspaceFlag: CORPUS, cwd: CORPUS }));
  await s.sandbox.ready;
  return s;
}

type Figures = Record<string, number[]>;
const figures: Figures = {};
const add = (name: string, value: number) => (figures[name] ??= []).push(value);

await prepareCorpus();
for (let round = 1; round <= rounds; round++) {
  const load = Deno.loadavg()[0];
  const s = await server();
  add("idle pool", await watch(WINDOW_MS));

  // Baseline: the threads while a scan runs; then the client cancels it.
  const cancel = new AbortController();
  let t0 = performance.now();
  const cancelled = s.dispatcher.call("search_code", scan, { signal: cancel.signal });
  await sleep(100);
  add("running scan (baseline)", await watch(WINDOW_MS));
  cancel.abort();
  await cancelled;
  add("wall: cancelled call (ran 1.1 s)", performance.now() - t0);
  add("after cancelled", await watch(WINDOW_MS));

  t0 = performance.now();
  await s.dispatcher.call("search_code", { pattern: "EXPORT_SYMBOL_GPL", max_results: 100 });
  add("wall: answered call", performance.now() - t0);
  add("after answered", await watch(WINDOW_MS));

  // An HTTP client that goes away while its call runs.
  const http = createHttpHandler({
    hostname: "127.0.0.1",
    port: 0,
    factory: s.factory,
    legacy: "stateless",
    policy: { allowedHosts: [], allowedOrigins: [] },
    maxBodyBytes: 64 * 1024,
    requestTimeoutMs: 60_000,
    maxConcurrentCalls: 8,
    readiness: () => Promise.resolve({ ready: true, checks: {} }),
  });
  const gone = new AbortController();
  t0 = performance.now();
  const answer = http.fetch(
    new Request("http://localhost:8080/mcp", {
      method: "POST",
      signal: gone.signal,
      headers: {
        Host: "localhost",
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "search_code", arguments: scan },
      }),
    }),
  ).then((r) => r.body?.cancel(), () => {});
  await sleep(RUN_MS);
  gone.abort();
  await answer;
  while (http.inFlight > 0) await sleep(5);
  add("wall: http client gone", performance.now() - t0);
  add("after http client gone", await watch(WINDOW_MS));
  await http.close();

  // The budget: a scan that cannot finish in 400 ms.
  const short = await server({ MCP_SANDBOX__TOOL_TIMEOUT_MS: "400" });
  t0 = performance.now();
  await short.dispatcher.call("search_code", scan);
  add("wall: timed-out call", performance.now() - t0);
  add("after timed out", await watch(WINDOW_MS));
  short.close();
  await watch(WINDOW_MS); // its idle threads end
  // The server closed under a running scan: its threads must stop, not spin on.
  s.dispatcher.call("search_code", scan);
  await sleep(RUN_MS);
  s.close();
  add("after close (running scan)", await watch(WINDOW_MS));

  // Until the closed pool's threads are gone (at most 15 s): none may spin on into the next round.
  const closedAt = performance.now();
  while (workerCpu().size > 0 && performance.now() - closedAt < 15_000) await sleep(20);
  add("wall: closed pool's threads gone", performance.now() - closedAt + WINDOW_MS);
  console.log(`round ${round} done (load ${load.toFixed(2)})`);
}

const baseline = median(figures["running scan (baseline)"]);
console.log(
  `\ntool-worker threads' CPU (user+sys, ms) in the ${WINDOW_MS} ms window; ratio to the running scan's`,
);
console.log(
  `median of ${rounds} rounds, load ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")}`,
);
for (const [name, values] of Object.entries(figures)) {
  const m = median(values);
  const shown = values.map((v) => v.toFixed(0)).join(", ");
  const ratio = name.startsWith("wall") ? "" : `  ratio ${(m / baseline).toFixed(3)}`;
  console.log(`${name.padEnd(28)} ${m.toFixed(0).padStart(6)} ms  [${shown}]${ratio}`);
}
Deno.exit(0);
