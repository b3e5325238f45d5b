import assert from "node:assert/strict";
import {
  abOrder,
  abRatio,
  combine,
  compareLine,
  cpuSecondsFromStat,
  cpuSecondsOf,
  mainThreadCpuSecondsOf,
  parseWrk,
  secondHalfGrowth,
  wrkScript,
} from "../../scripts/bench_http.ts";

const SAMPLE = `Running 30s test @ http://127.0.0.1:1/mcp
  2 threads and 64 connections
  Latency Distribution
     50%   40.04ms
     75%   80.00ms
     90%  120.00ms
     99%    1.02s
  35231 requests in 30.02s, 19.51MB read
  Socket errors: connect 0, read 3, write 0, timeout 2
  Non-2xx or 3xx responses: 7
Requests/sec:   1173.59
Transfer/sec:    665.38KB
BAD_BODIES 27404
`;

Deno.test("bench:http reads wrk's report: rate, percentiles in ms, every error class", () => {
  const figures = parseWrk(SAMPLE);
  assert.equal(figures.requestsPerSecond, 1173.59);
  assert.equal(figures.requests, 35231);
  assert.equal(figures.p50Ms, 40.04);
  assert.equal(figures.p99Ms, 1020);
  assert.equal(figures.socketErrors, 5);
  assert.equal(figures.non2xx, 7);
  assert.equal(figures.badBodies, 27404);
});

Deno.test("bench:http's wrk script POSTs the body with the headers it implies", () => {
  const script = wrkScript({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "read_file",
      arguments: { path: "a" },
      _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
    },
  });
  assert.match(script, /^wrk\.method = "POST"$/m);
  assert.match(script, /^wrk\.headers\["Mcp-Method"\] = "tools\/call"$/m);
  assert.match(script, /^wrk\.headers\["Mcp-Name"\] = "read_file"$/m);
  assert.match(script, /^wrk\.headers\["MCP-Protocol-Version"\] = "2026-07-28"$/m);
  const body = JSON.parse(JSON.parse(/^wrk\.body = (.*)$/m.exec(script)![1]));
  assert.equal(body.params._meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
});

Deno.test("bench:http: RSS flatness is growth over the run's second half", () => {
  assert.equal(secondHalfGrowth([100, 200, 250, 250, 251]), 1);
  assert.equal(secondHalfGrowth([100, 120, 140, 160, 180, 200]), 40);
});

Deno.test("bench:http joins alternating slices: answers over time, the worst p99, errors summed", () => {
  const slice = (requests: number, rps: number, p50Ms: number, p99Ms: number, bad: number) => ({
    name: "x",
    requests,
    requestsPerSecond: rps,
    okPerSecond: rps * (requests - bad) / requests,
    p50Ms,
    p99Ms,
    non2xx: 0,
    socketErrors: 1,
    badBodies: bad,
    rssMiB: [requests],
    cpuSeconds: requests / 1000,
    mainThreadCpuSeconds: requests / 2000,
  });
  const joined = combine([
    slice(100, 100, 5, 50, 0),
    slice(300, 100, 7, 20, 30),
    slice(50, 50, 9, 9, 0),
  ]);
  assert.equal(joined.requests, 450);
  assert.equal(joined.requestsPerSecond, 90); // 450 answers in 1 + 3 + 1 s
  assert.equal(joined.okPerSecond, 84);
  assert.equal(joined.p50Ms, 7);
  assert.equal(joined.p99Ms, 50);
  assert.equal(joined.socketErrors, 3);
  assert.deepEqual(joined.rssMiB, [100, 300, 50]);
  assert.ok(Math.abs(joined.cpuSeconds - 0.45) < 1e-9, String(joined.cpuSeconds)); // summed
  assert.ok(Math.abs(joined.mainThreadCpuSeconds - 0.225) < 1e-9, "main thread summed");
});

Deno.test("bench:http's A/B line compares CPU per ok answer of both instances, not per answer", () => {
  const figures = (okPerSecond: number, cpuSeconds: number, main: number, p99Ms: number) => ({
    name: "read_file small c64",
    requests: 1000,
    requestsPerSecond: 100, // 10 s
    okPerSecond,
    p50Ms: 1,
    p99Ms,
    non2xx: 0,
    socketErrors: 0,
    badBodies: 0,
    rssMiB: [],
    cpuSeconds,
    mainThreadCpuSeconds: main,
  });
  const echo = figures(200, 1, 1, 5);
  // The default: 1,000 ok answers, 1 s of process CPU and 0.5 s of main thread.
  // The compared one: 500 ok (half refused), the same CPU: twice the cost per ok answer.
  const line = compareLine(figures(100, 1, 0.5, 40), figures(50, 1, 0.5, 80), echo, {
    MCP_HTTP__MAX_CONCURRENT_CALLS: "32",
  });
  assert.match(line, /with MCP_HTTP__MAX_CONCURRENT_CALLS=32: 50% \/ 25% of echo/);
  assert.match(line, /main thread 0\.500 \/ 1\.000 ms per ok answer \(2\.00×\)/);
  assert.match(line, /process 1\.000 \/ 2\.000 \(2\.00×\)/);
  assert.match(line, /p99 40\.0 \/ 80\.0 ms$/);
});

Deno.test("bench:http reads a process's CPU time (user + system) from /proc/PID/stat", () => {
  // utime 250 and stime 130 ticks (fields 14 and 15), after a command holding spaces and ")".
  const stat = "4242 (deno (worker) x) S 1 4242 4242 0 -1 4194560 9000 0 0 0 250 130 0 0 20 0 9 0";
  assert.equal(cpuSecondsFromStat(stat), 3.8);
  assert.ok(Number.isNaN(cpuSecondsOf(2 ** 30)), "a missing process has no CPU time");
  assert.ok(Number.isNaN(mainThreadCpuSecondsOf(2 ** 30)), "nor a main thread");
});

Deno.test("bench:http reads a live process's main-thread CPU, no more than the whole process's", async () => {
  // Deno lets only --allow-all read /proc/PID/*; the bench runs with -A, the suite does not, so
  // the live reading is taken in a child with every permission, as the bench has them.
  const module = new URL("../../scripts/bench_http.ts", import.meta.url).href;
  const code = `import { cpuSecondsOf, mainThreadCpuSecondsOf } from ${JSON.stringify(module)};
let x = 0; const end = performance.now() + 150; while (performance.now() < end) x++;
console.log(JSON.stringify({ main: mainThreadCpuSecondsOf(Deno.pid), all: cpuSecondsOf(Deno.pid), x }));`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "-q", "--frozen", code],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.equal(out.code, 0);
  const { main, all } = JSON.parse(new TextDecoder().decode(out.stdout));
  // The child spun 150 ms on its main thread: at least 0.1 s of it is counted there.
  assert.ok(main >= 0.1 && main <= all + 0.01, `main thread ${main} s of ${all} s`);
});

Deno.test("bench:http's A/B: each side measured first and last equally often, its ratio from the same round", () => {
  const started = ["a1", "b1", "b2", "a2"];
  const positions = new Map<string, number[]>();
  for (let round = 0; round < 4; round++) {
    abOrder(round, started).forEach((name, at) => {
      positions.set(name[0], [...positions.get(name[0]) ?? [], at]);
    });
  }
  // Over two rounds, side A stood at 0, 3, 3, 0 and side B at 1, 2, 2, 1: the same mean place.
  const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
  assert.equal(mean(positions.get("a")!), mean(positions.get("b")!));
  assert.deepEqual(abOrder(1, started), ["a2", "b2", "b1", "a1"]);
  assert.deepEqual(
    started,
    ["a1", "b1", "b2", "a2"],
    "the started order is not reordered in place",
  );
  const slice = (cpuSeconds: number, requests: number) =>
    combine([{
      name: "x",
      requests,
      requestsPerSecond: requests / 5,
      okPerSecond: requests / 5,
      p50Ms: 1,
      p99Ms: 2,
      non2xx: 0,
      socketErrors: 0,
      badBodies: 0,
      rssMiB: [],
      cpuSeconds,
      mainThreadCpuSeconds: cpuSeconds / 2,
    }]);
  // This side 0.4 and 0.6 ms per ok answer (mean 0.5), the compared side 0.6 and 0.6: 1.2×.
  const ratio = abRatio([slice(4, 10_000), slice(6, 10_000)], [slice(6, 10_000), slice(3, 5_000)]);
  assert.ok(Math.abs(ratio - 1.2) < 1e-9, `ratio ${ratio}`);
});
