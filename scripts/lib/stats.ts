/**
 * Small figures the benchmarks share.
 *
 * @module
 */

import process from "node:process";

/** The median of `xs`; of an even count, the upper of the two middle values. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** CPU time of this process so far (user + system, every thread), in ms. */
export function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
