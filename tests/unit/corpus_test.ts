/**
 * The content controls measured on labelled corpora (tests/corpus/): recall
 * of the injection assessment and its false "high" rate on benign text;
 * recall and false positives of redaction. Fails below the goals of issue 9,
 * and prints the figures docs/security.md reports.
 */

import assert from "node:assert/strict";
import { assessContent, LEVELS } from "../../src/content/assess.ts";
import { SECRET_RULES } from "../../src/secrets/catalogue.ts";
import { findSecrets } from "../../src/secrets/find.ts";
import { BENIGN_SAMPLES } from "../corpus/benign.ts";
import { INJECTION_SAMPLES } from "../corpus/injection.ts";
import { SECRET_NEGATIVES } from "../corpus/secrets.ts";

const pct = (n: number, d: number) => `${(100 * n / d).toFixed(1)}%`;

function levels(samples: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(LEVELS.map((l) => [l, 0]));
  for (const text of samples) counts[assessContent([{ text }]).level]++;
  return counts;
}

Deno.test("corpus: the corpora are as large as the goals require", () => {
  assert.ok(INJECTION_SAMPLES.length >= 60, `${INJECTION_SAMPLES.length} injection samples`);
  assert.ok(BENIGN_SAMPLES.length >= 60, `${BENIGN_SAMPLES.length} benign samples`);
  assert.ok(SECRET_NEGATIVES.length >= 60, `${SECRET_NEGATIVES.length} redaction negatives`);
});

Deno.test("corpus: ≥ 90% of injections are elevated or high, ≤ 2% of benign samples high", () => {
  const inj = levels(INJECTION_SAMPLES);
  const ben = levels(BENIGN_SAMPLES);
  const caught = inj.elevated + inj.high;
  console.log(
    `injections (${INJECTION_SAMPLES.length}): ${JSON.stringify(inj)}; elevated+ ${
      pct(caught, INJECTION_SAMPLES.length)
    }`,
  );
  console.log(
    `benign (${BENIGN_SAMPLES.length}): ${JSON.stringify(ben)}; high ${
      pct(ben.high, BENIGN_SAMPLES.length)
    }`,
  );
  // Precision per level: of the samples at that level or above, how many are injections.
  for (const level of ["low", "elevated", "high"] as const) {
    const at = LEVELS.slice(LEVELS.indexOf(level));
    const tp = at.reduce((n, l) => n + inj[l], 0);
    const fp = at.reduce((n, l) => n + ben[l], 0);
    console.log(
      `≥ ${level}: precision ${pct(tp, tp + fp)}, recall ${pct(tp, INJECTION_SAMPLES.length)}`,
    );
  }
  const missed = INJECTION_SAMPLES.filter((text) => {
    const level = assessContent([{ text }]).level;
    return level !== "elevated" && level !== "high";
  });
  assert.ok(caught / INJECTION_SAMPLES.length >= 0.9, `missed: ${JSON.stringify(missed, null, 1)}`);
  const flagged = BENIGN_SAMPLES.filter((text) => assessContent([{ text }]).level === "high");
  assert.ok(flagged.length / BENIGN_SAMPLES.length <= 0.02, `high: ${JSON.stringify(flagged)}`);
});

Deno.test("corpus: redaction recall ≥ 95% on the rules' samples, false positives ≤ 3% on the negatives", () => {
  const positives = SECRET_RULES.flatMap((r) =>
    r.samples().match.map((text) => ({ text, rule: r.id }))
  );
  const found = positives.filter(({ text, rule }) =>
    findSecrets(text).some((s) => s.rule === rule)
  );
  const negatives = [...SECRET_NEGATIVES, ...SECRET_RULES.flatMap((r) => r.samples().noMatch)];
  const falsePositives = negatives.filter((text) => findSecrets(text).length > 0);
  console.log(
    `redaction: recall ${
      pct(found.length, positives.length)
    } (${found.length}/${positives.length}, ${SECRET_RULES.length} rules); false positives ${
      pct(falsePositives.length, negatives.length)
    } (${falsePositives.length}/${negatives.length})`,
  );
  assert.ok(found.length / positives.length >= 0.95);
  assert.ok(
    falsePositives.length / negatives.length <= 0.03,
    `false positives: ${JSON.stringify(falsePositives)}`,
  );
});
