/**
 * Shows the machine's two speeds (ADR-128): slot after slot, CPU time of fixed pieces of work of
 * different kinds, so a phase in which some kinds of code run slower shows as a change in some
 * columns and not in others. The pieces, each the same instructions in every slot:
 *
 * - `chase`: a dependent chain of loads through an L1-resident permutation (bound by latency:
 *   follows the clock);
 * - `ilp`: four independent sums over 64 KiB (bound by throughput);
 * - `probe`: `bench:content`'s core speed probe (a sticky regular expression, natively compiled,
 *   whose backtracking jumps through popped code addresses);
 * - `indirect`: calls through a table of eight functions in a fixed pseudo-random order;
 * - `branchy`: the same order taken by conditional branches instead.
 *
 * Prints one line a slot and a summary: each column's median over the slots whose probe read
 * fast and over those whose probe read slow, and its correlation with the probe. Pin it to one
 * CPU to keep migrations out (`taskset -c 0`).
 *
 * Usage: deno run -A scripts/core_speed_phases.ts [--slots 200]
 *
 * @module
 */

import { cpuUsage } from "node:process";
import { parseArgs } from "node:util";
import { coreSpeedProbe, FULL_SPEED_SLACK } from "./lib/core_speed.ts";
import { median } from "./lib/stats.ts";

const { values } = parseArgs({ args: Deno.args, options: { slots: { type: "string" } } });
const SLOTS = Number(values.slots ?? 200);

const CHAIN = 1 << 12;
const next = new Int32Array(CHAIN);
{
  const order = Array.from({ length: CHAIN }, (_, i) => i);
  for (let i = CHAIN - 1, s = 12345; i > 0; i--) {
    s = (s * 1103515245 + 12345) >>> 0;
    const j = s % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  for (let i = 0; i < CHAIN; i++) next[order[i]] = order[(i + 1) % CHAIN];
}
function chase(): number {
  let p = 0;
  for (let i = 0; i < 2_000_000; i++) p = next[p];
  return p;
}
const BYTES = new Uint8Array(1 << 16).map((_, i) => (i * 131) & 255);
function ilp(): number {
  let a = 0, b = 0, c = 0, d = 0;
  for (let r = 0; r < 40; r++) {
    for (let i = 0; i < BYTES.length; i += 4) {
      a += BYTES[i];
      b ^= BYTES[i + 1];
      c += BYTES[i + 2] << 1;
      d |= BYTES[i + 3];
    }
  }
  return a + b + c + d;
}
const FUNCTIONS = [
  (x: number) => x + 1,
  (x: number) => x ^ 3,
  (x: number) => x * 3,
  (x: number) => x - 7,
  (x: number) => (x >> 1) + 5,
  (x: number) => x | 9,
  (x: number) => x + 11,
  (x: number) => x & 0xffff,
];
const ORDER = Uint8Array.from({ length: 4096 }, (_, i) => (i * 2654435761 >>> 13) & 7);
function indirect(): number {
  let x = 1;
  for (let r = 0; r < 60; r++) {
    for (let i = 0; i < ORDER.length; i++) x = FUNCTIONS[ORDER[i]](x) | 0;
  }
  return x;
}
function branchy(): number {
  let x = 0;
  for (let r = 0; r < 120; r++) {
    for (let i = 0; i < ORDER.length; i++) {
      const p = ORDER[i];
      if (p === 0) x += 1;
      else if (p === 1) x ^= 5;
      else if (p === 2) x -= 3;
      else if (p === 3) x += 7;
      else if (p & 4) x = (x * 3) | 0;
    }
  }
  return x;
}

let sink = 0;
function ms(f: () => number): number {
  const t0 = cpuUsage();
  sink += f();
  const d = cpuUsage(t0);
  return (d.user + d.system) / 1000;
}
const WORK = { chase, ilp, indirect, branchy } as const;
type Column = "probe" | keyof typeof WORK;
const columns: Column[] = ["chase", "ilp", "probe", "indirect", "branchy"];
const rows: Record<Column, number>[] = [];
for (let s = 0; s < SLOTS + 3; s++) {
  const row = {} as Record<Column, number>;
  for (const c of columns) row[c] = c === "probe" ? coreSpeedProbe() : ms(WORK[c]);
  if (s < 3) continue; // the first slots compile the work
  rows.push(row);
  console.log(`${s - 3} ${columns.map((c) => `${c} ${row[c].toFixed(2)}`).join(" ")}`);
}
const fastest = Math.min(...rows.map((r) => r.probe));
const fast = rows.filter((r) => r.probe <= fastest * FULL_SPEED_SLACK);
const slow = rows.filter((r) => r.probe >= fastest * 1.5);
function correlation(xs: number[], ys: number[]): number {
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length,
    my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}
console.log(
  `${rows.length} slots: ${fast.length} with the probe ≤ ${FULL_SPEED_SLACK}× its fastest ` +
    `(${fastest.toFixed(2)} ms), ${slow.length} at ≥ 1.5×`,
);
for (const c of columns) {
  const f = fast.length > 0 ? median(fast.map((r) => r[c])).toFixed(2) : "–";
  const w = slow.length > 0 ? median(slow.map((r) => r[c])).toFixed(2) : "–";
  const r = correlation(rows.map((x) => x[c]), rows.map((x) => x.probe));
  console.log(
    `${c}: fast slots ${f} ms, slow slots ${w} ms, correlation with the probe ${r.toFixed(2)}`,
  );
}
if (sink === 0.5) console.log(sink); // keeps the work's results alive
