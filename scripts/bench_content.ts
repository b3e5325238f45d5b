/**
 * Content-pipeline benchmark: what redaction and assessment cost per MiB of
 * text, on ordinary files and on inputs built to make rules backtrack, as a
 * ratio against a baseline measured in the same run on the same string:
 * `JSON.stringify` of it, which the server pays for every result anyway.
 *
 * - redact: `findSecrets` + replacement over one MiB (one half of a result);
 * - assess: `assessContent` of the MiB (the injection assessment with its fold);
 * - pipeline: `shapeToolResult` of a raw result holding the MiB in both
 *   halves (redaction of both, assessment, fencing): what the main thread does;
 * - redact (pipeline): `redactResult` of that same raw result, the redaction
 *   part of the pipeline (both halves, withheld pieces, the audit); its goal is
 *   ≤ 8 ms per MiB on every input (issue 9's 20 ms shared with assessment).
 *
 * CPU time (not wall time), medians of `--runs` runs (default 7), under the
 * `devserver` task's V8 flags (the script runs itself again with them when
 * they are missing): the server's regular expressions run under
 * `--enable-experimental-regexp-engine-on-excessive-backtracks`, which moves
 * a search that backtracks too much to the slower linear engine, so a figure
 * taken without it is not what a served result costs (ADR-093).
 * Usage: deno task bench:content
 *
 * @module
 */

import { cpuUsage } from "node:process";
import { parseArgs } from "node:util";
import { assessContent, SIGNAL_CLASSES } from "../src/content/assess.ts";
import { shapeToolResult } from "../src/content/pipeline.ts";
import { redactResult } from "../src/content/redact.ts";
import type { RawOk } from "../src/contract/result.ts";
import { redactSecrets } from "../src/secrets/find.ts";
import { rerunUnderDevserverV8Flags } from "./lib/program.ts";
import { contentInputs } from "./lib/content_inputs.ts";
import { median } from "./lib/stats.ts";

await rerunUnderDevserverV8Flags(import.meta.url);

const { values } = parseArgs({ args: Deno.args, options: { runs: { type: "string" } } });
const RUNS = Number(values.runs ?? 7);
const INPUTS = contentInputs(SIGNAL_CLASSES);

/**
 * CPU time of `f` in ms (user + system of this process): on a shared machine wall time mostly
 * measures the wait for a core, CPU time what the work costs.
 */
function time(f: () => unknown): number {
  const t0 = cpuUsage();
  f();
  const d = cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

console.log(`content pipeline, ${RUNS} runs each, medians, CPU ms per MiB`);
console.log(
  "| input | baseline JSON.stringify | redact (one half) | ratio | assess | ratio | pipeline (both halves) | ratio | redact (pipeline) | ratio |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
let worst = 0, worstAssess = 0, worstRedact = 0, worstRedactInput = "", worstInput = "";
let withinGoal = 0;
for (const [name, text] of Object.entries(INPUTS)) {
  const base: number[] = [], redact: number[] = [], assess: number[] = [], shape: number[] = [];
  const inPipeline: number[] = [];
  const raw: RawOk = {
    kind: "ok",
    parts: [{ text, untrusted: true, label: "file-content" }],
    structured: { content: text },
  };
  for (let i = 0; i < RUNS; i++) {
    base.push(time(() => JSON.stringify(text)));
    redact.push(time(() => redactSecrets(text)));
    assess.push(time(() => assessContent([{ text }])));
    shape.push(time(() => shapeToolResult(raw, { redactSecrets: true })));
    inPipeline.push(time(() => redactResult(raw, true)));
  }
  const b = median(base), r = median(redact), a = median(assess), p = median(shape);
  const q = median(inPipeline);
  if (p > worst) [worst, worstInput] = [p, name];
  if (p <= 20) withinGoal++;
  worstAssess = Math.max(worstAssess, a);
  if (q > worstRedact) [worstRedact, worstRedactInput] = [q, name];
  console.log(
    `| ${name} | ${b.toFixed(2)} | ${r.toFixed(2)} | ${(r / b).toFixed(1)}× | ${a.toFixed(2)} | ${
      (a / b).toFixed(1)
    }× | ${p.toFixed(2)} | ${(p / b).toFixed(1)}× | ${q.toFixed(2)} | ${(q / b).toFixed(1)}× |`,
  );
}
console.log(`worst assessment cost: ${worstAssess.toFixed(1)} ms per MiB (goal ≤ 10)`);
console.log(
  `worst pipeline cost: ${worst.toFixed(1)} ms per MiB of file (both halves; ${worstInput})`,
);
console.log(
  `issue 9's goal, redaction and assessment of a 1 MiB file ≤ 20 ms (the whole pipeline): ` +
    `${withinGoal} of ${Object.keys(INPUTS).length} inputs within`,
);
console.log(
  `worst redaction cost in the pipeline: ${
    worstRedact.toFixed(1)
  } ms per MiB (${worstRedactInput}; goal ≤ 8)`,
);
