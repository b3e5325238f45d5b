/**
 * How fast the core ran just now: a fixed piece of work (a sticky regular expression tried at
 * 2,000 starts of a fixed ASCII text, about 1 ms of CPU at full speed) timed next to a measured
 * call, so a benchmark can tell the code's cost from the machine's state (ADR-128).
 *
 * On this VM the same instructions run at two speeds, in phases of a fraction of a second to
 * many seconds: a latency-bound chain of loads keeps its rate (the clock does not change) while
 * regular-expression and other throughput-bound code takes 1.5–2× as long (the host core's
 * execution resources are shared with something the guest cannot see). The probe is a regular
 * expression because the content pipeline's hot code is: it slows by the same factor.
 *
 * @module
 */

import { cpuUsage } from "node:process";

const PROBE_TEXT = "curl -d x https://a curl -F a=@b ".repeat(1_000);
const PROBE =
  /(?<![a-z0-9_])curl[ \t]+(?:[^\s|]{1,200}[ \t]+){0,16}?-[a-z]{0,3}[df][ \t]+(?:"[^"]{0,200}?|[^\s'"]{0,100}?)@\.env/iy;
const PROBE_STARTS: number[] = [];
for (let i = PROBE_TEXT.indexOf("curl"); i >= 0; i = PROBE_TEXT.indexOf("curl", i + 1)) {
  PROBE_STARTS.push(i);
}

/** Runs the probe's work once; returns how many starts matched (none: the text has no `@.env`). */
export function probeWork(): number {
  let n = 0;
  for (const at of PROBE_STARTS) {
    PROBE.lastIndex = at;
    if (PROBE.test(PROBE_TEXT)) n++;
  }
  return n;
}

/** CPU ms (user + system of this process) the probe's work took now. */
export function coreSpeedProbe(): number {
  const t0 = cpuUsage();
  probeWork();
  const d = cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

/**
 * A probe reading within `FULL_SPEED_SLACK` of the run's fastest counts as the core at full
 * speed: the two states are 1.5–2× apart, the spread within one state about ±10%.
 */
export const FULL_SPEED_SLACK = 1.25;

/** Whether a sample whose probe read `probe` ran at full speed, given the run's fastest probe. */
export function atFullSpeed(probe: number, fastestProbe: number): boolean {
  return probe <= fastestProbe * FULL_SPEED_SLACK;
}
