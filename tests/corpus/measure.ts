/**
 * The content controls' figures on the labelled corpora of this folder, computed once for
 * `tests/unit/corpus_test.ts` (which fails below issue 9's goals) and
 * `tests/unit/security_docs_test.ts` (which fails when docs/security.md or THREAT-MODEL.md
 * report other figures than these).
 */

import { assessContent, type Level, LEVELS } from "../../src/content/assess.ts";
import { SECRET_RULES } from "../../src/secrets/catalogue.ts";
import { findSecrets } from "../../src/secrets/find.ts";
import { BENIGN_SAMPLES } from "./benign.ts";
import { INJECTION_SAMPLES } from "./injection.ts";
import { SECRET_NEGATIVES } from "./secrets.ts";

/** How many samples of a corpus reached each level. */
export type LevelCounts = Record<Level, number>;

/** Precision and recall of "at this level or above" as a detector of injections. */
export interface AtLevel {
  readonly level: Exclude<Level, "none">;
  /** Injections at the level or above. */
  readonly tp: number;
  /** Benign samples at the level or above. */
  readonly fp: number;
}

/** The assessment's figures on the two injection corpora. */
export interface AssessmentFigures {
  readonly injections: LevelCounts;
  readonly benign: LevelCounts;
  readonly atLevel: readonly AtLevel[];
  /** The injection samples below `elevated`. */
  readonly missed: readonly string[];
  /** The benign samples at `high`. */
  readonly flagged: readonly string[];
}

/** Redaction's figures on the rules' samples and the negatives. */
export interface RedactionFigures {
  readonly rules: number;
  readonly positives: number;
  readonly found: number;
  readonly negatives: number;
  readonly falsePositives: readonly string[];
}

function levels(samples: readonly string[]): { counts: LevelCounts; of: Level[] } {
  const counts = Object.fromEntries(LEVELS.map((l) => [l, 0])) as LevelCounts;
  const of = samples.map((text) => assessContent([{ text }]).level);
  for (const level of of) counts[level]++;
  return { counts, of };
}

/** The injection assessment measured on `INJECTION_SAMPLES` and `BENIGN_SAMPLES`. */
export function assessmentFigures(): AssessmentFigures {
  const inj = levels(INJECTION_SAMPLES);
  const ben = levels(BENIGN_SAMPLES);
  const atLevel = (["low", "elevated", "high"] as const).map((level) => {
    const at = LEVELS.slice(LEVELS.indexOf(level));
    return {
      level,
      tp: at.reduce((n, l) => n + inj.counts[l], 0),
      fp: at.reduce((n, l) => n + ben.counts[l], 0),
    };
  });
  return {
    injections: inj.counts,
    benign: ben.counts,
    atLevel,
    missed: INJECTION_SAMPLES.filter((_, i) => inj.of[i] !== "elevated" && inj.of[i] !== "high"),
    flagged: BENIGN_SAMPLES.filter((_, i) => ben.of[i] === "high"),
  };
}

/** Redaction measured on every rule's must-match samples and on the negatives. */
export function redactionFigures(): RedactionFigures {
  const positives = SECRET_RULES.flatMap((r) =>
    r.samples().match.map((text) => ({ text, rule: r.id }))
  );
  const found = positives.filter(({ text, rule }) =>
    findSecrets(text).some((s) => s.rule === rule)
  );
  const negatives = [...SECRET_NEGATIVES, ...SECRET_RULES.flatMap((r) => r.samples().noMatch)];
  return {
    rules: SECRET_RULES.length,
    positives: positives.length,
    found: found.length,
    negatives: negatives.length,
    falsePositives: negatives.filter((text) => findSecrets(text).length > 0),
  };
}

/** `n / d` as the docs write it: one decimal, without a trailing `.0` (`92.9%`, `100%`). */
export function percent(n: number, d: number): string {
  return `${(100 * n / d).toFixed(1).replace(/\.0$/, "")}%`;
}
