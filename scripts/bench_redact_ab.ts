/**
 * Redaction A/B: the `redact (pipeline)` and `pipeline (both halves)` columns of
 * `scripts/bench_content.ts` on its inputs, for this checkout and a base checkout (`--base`,
 * for example `git worktree add --detach /tmp/redact-base main`), loaded in the same process
 * and measured in alternating rounds, so the ratio holds on a loaded machine where the
 * absolute figures do not. Each cell: CPU ms per MiB (user + system of the process), median
 * of `--runs` rounds, the minimum in brackets, then the median wall time; the ratio is this
 * checkout's median CPU over the base's. Issue 9's redaction goal is ≤ 10 ms per MiB on every
 * input (ADR-092, ADR-093).
 *
 * Run it with the server's V8 flags too (the regex fallback engine changes the figures):
 * `deno run -q -A --v8-flags=--enable-experimental-regexp-engine-on-excessive-backtracks,--enable-experimental-regexp-engine,--max-semi-space-size=4 scripts/bench_redact_ab.ts --base /tmp/redact-base`
 *
 * @module
 */

import { parseArgs } from "node:util";
import type { RawOk } from "../src/contract/result.ts";
import { REPO_ROOT } from "./lib/program.ts";
import { contentInputs } from "./lib/content_inputs.ts";
import { cpuNow, median } from "./lib/stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    base: { type: "string" },
    runs: { type: "string" },
    only: { type: "string" },
    pipeline: { type: "boolean" },
  },
});
if (!values.base) {
  console.error("usage: bench_redact_ab.ts --base DIR [--runs N] [--only TEXT] [--pipeline]");
  Deno.exit(2);
}
const RUNS = Number(values.runs ?? 7);

interface Side {
  readonly name: string;
  readonly redactResult: (raw: RawOk, on: boolean) => unknown;
  readonly shapeToolResult: (raw: RawOk, options: { redactSecrets: boolean }) => unknown;
  readonly signalClasses: readonly { words?: string[]; lineWords?: string[]; symbols?: string[] }[];
}

async function side(name: string, root: string): Promise<Side> {
  const redact = await import(`${root}/src/content/redact.ts`);
  const pipeline = await import(`${root}/src/content/pipeline.ts`);
  const assess = await import(`${root}/src/content/assess.ts`);
  return {
    name,
    redactResult: redact.redactResult,
    shapeToolResult: pipeline.shapeToolResult,
    signalClasses: assess.SIGNAL_CLASSES,
  };
}

const sides = [await side("base", values.base), await side("this", REPO_ROOT)];

/** The inputs of `scripts/bench_content.ts`, in its order and with its names. */
const INPUTS = contentInputs(sides[1].signalClasses);

/** CPU ms and wall ms of one call of `f`. */
function time(f: () => unknown): [number, number] {
  const wall = performance.now(), cpu = cpuNow();
  f();
  return [cpuNow() - cpu, performance.now() - wall];
}

const load = () => Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
const columns = values.pipeline ? ["redact (pipeline)", "pipeline"] : ["redact (pipeline)"];
console.log(
  `redaction A/B, ${RUNS} alternating rounds, CPU ms per MiB: median [min] / wall median; ` +
    `load ${load()}; base ${values.base}`,
);
console.log(
  `| input | ${columns.flatMap((c) => [`${c} base`, `${c} this`, "ratio"]).join(" | ")} |`,
);
console.log(`|---|${columns.map(() => "---:|---:|---:|").join("")}`);
let worst = 0, worstInput = "";
for (const [name, text] of Object.entries(INPUTS)) {
  if (values.only && !name.includes(values.only)) continue;
  const raw: RawOk = {
    kind: "ok",
    parts: [{ text, untrusted: true, label: "file-content" }],
    structured: { content: text },
  };
  // [side][column] → cpu and wall samples
  const cpu = sides.map(() => columns.map(() => [] as number[]));
  const wall = sides.map(() => columns.map(() => [] as number[]));
  for (let round = 0; round < RUNS; round++) {
    // Alternate which side goes first, so neither always runs on a warmer cache.
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const s of order) {
      const calls = [
        () => sides[s].redactResult(raw, true),
        () => sides[s].shapeToolResult(raw, { redactSecrets: true }),
      ];
      columns.forEach((_, c) => {
        const [u, w] = time(calls[c]);
        cpu[s][c].push(u);
        wall[s][c].push(w);
      });
    }
  }
  const cells = columns.flatMap((_, c) => {
    const cell = (s: number) =>
      `${median(cpu[s][c]).toFixed(1)} [${Math.min(...cpu[s][c]).toFixed(1)}] / ${
        median(wall[s][c]).toFixed(1)
      }`;
    return [cell(0), cell(1), `${(median(cpu[1][c]) / median(cpu[0][c])).toFixed(2)}×`];
  });
  const mine = median(cpu[1][0]);
  if (mine > worst) [worst, worstInput] = [mine, name];
  console.log(`| ${name} | ${cells.join(" | ")} |`);
}
console.log(
  `worst redaction cost in the pipeline (this checkout): ${
    worst.toFixed(1)
  } ms CPU per MiB (${worstInput}; goal ≤ 10); load ${load()}`,
);
