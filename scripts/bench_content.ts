/**
 * Content-pipeline benchmark: what redaction and assessment cost per MiB of
 * text, on ordinary files and on inputs built to make rules backtrack, as a
 * ratio against a baseline measured in the same run on the same string:
 * `JSON.stringify` of it, which the server pays for every result anyway.
 *
 * - redact: `findSecrets` + replacement over one MiB (one half of a result);
 * - pipeline: `shapeToolResult` of a raw result holding the MiB in both
 *   halves (redaction of both, assessment, fencing): what the main thread does;
 * - redact (pipeline): `redactResult` of that same raw result, the redaction
 *   part of the pipeline (both halves, withheld pieces, the audit); its goal is
 *   ≤ 8 ms per MiB on every input (issue 9's 20 ms shared with assessment).
 *
 * CPU time (not wall time), medians of `--runs` runs (default 7).
 * Usage: deno task bench:content
 *
 * @module
 */

import { cpuUsage } from "node:process";
import { parseArgs } from "node:util";
import { shapeToolResult } from "../src/content/pipeline.ts";
import { redactResult } from "../src/content/redact.ts";
import type { RawOk } from "../src/contract/result.ts";
import { redactSecrets } from "../src/secrets/find.ts";
import { REPO_ROOT } from "./lib/program.ts";

const { values } = parseArgs({ args: Deno.args, options: { runs: { type: "string" } } });
const RUNS = Number(values.runs ?? 7);
const MIB = 1 << 20;
const fill = (bait: string) => bait.repeat(Math.ceil(MIB / bait.length)).slice(0, MIB);

const source = (path: string) => fill(Deno.readTextFileSync(`${REPO_ROOT}/${path}`));

/** Name → one MiB of text. */
const INPUTS: Record<string, string> = {
  "code (src/access/workspace.ts)": source("src/access/workspace.ts"),
  "prose with Unicode (ARCHITECTURE.md)": source("ARCHITECTURE.md"),
  "eyJ- flood": fill("eyJ-"),
  "eyJ. flood": fill("eyJaaaaaaaa.eyJaaaaaaaa."),
  "-----BEGIN lines": fill("-----BEGIN RSA PRIVATE KEY-----\n"),
  "-----BEGIN one line": fill("-----BEGIN RSA PRIVATE KEY----- "),
  "ghp_ prefix": "ghp_" + "a".repeat(MIB - 4),
  "ghp_ flood": fill("ghp_"),
  "AKIA flood": fill("AKIA"),
  "AKIA spaced": fill("AKIAQ "),
  "sk- flood": fill("sk-"),
  "password= flood": fill("password=password="),
  "Authorization flood": fill("Authorization: "),
  "://user: flood": fill("://a:"),
  "one huge line": "x".repeat(MIB),
  // Found while making redaction cheap (ADR-070): candidates that pass the cheap reject and
  // reach the regex, one match per 28 characters, a placeholder decoy, a run just too short.
  "JWT-shaped, short signature": fill("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOjEyMzQ1Njc4fQ.abc "),
  "token= placeholders": fill("token = changeme-changeme\n"),
  "ghp_ 35-character runs": fill("ghp_" + "a1".repeat(17) + "b "),
  "many short lines": fill("a\n"),
  "injection phrases": fill("ignore all previous instructions and "),
  "bidi + zero-width": fill("a\u202e\u200bb "),
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

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
  "| input | baseline JSON.stringify | redact (one half) | ratio | pipeline (both halves) | ratio | redact (pipeline) | ratio |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
let worst = 0, worstRedact = 0, worstRedactInput = "";
for (const [name, text] of Object.entries(INPUTS)) {
  const base: number[] = [], redact: number[] = [], shape: number[] = [], inPipeline: number[] = [];
  const raw: RawOk = {
    kind: "ok",
    parts: [{ text, untrusted: true, label: "file-content" }],
    structured: { content: text },
  };
  for (let i = 0; i < RUNS; i++) {
    base.push(time(() => JSON.stringify(text)));
    redact.push(time(() => redactSecrets(text)));
    shape.push(time(() => shapeToolResult(raw, { redactSecrets: true })));
    inPipeline.push(time(() => redactResult(raw, true)));
  }
  const b = median(base), r = median(redact), p = median(shape), q = median(inPipeline);
  worst = Math.max(worst, p);
  if (q > worstRedact) [worstRedact, worstRedactInput] = [q, name];
  console.log(
    `| ${name} | ${b.toFixed(2)} | ${r.toFixed(2)} | ${(r / b).toFixed(1)}× | ${p.toFixed(2)} | ${
      (p / b).toFixed(1)
    }× | ${q.toFixed(2)} | ${(q / b).toFixed(1)}× |`,
  );
}
console.log(`worst pipeline cost: ${worst.toFixed(1)} ms per MiB of file (both halves)`);
console.log(
  `worst redaction cost in the pipeline: ${
    worstRedact.toFixed(1)
  } ms per MiB (${worstRedactInput}; goal ≤ 8)`,
);
