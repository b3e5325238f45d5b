/**
 * The content controls measured on labelled corpora (tests/corpus/): recall
 * of the injection assessment and its false "high" rate on benign text;
 * recall and false positives of redaction. Fails below the goals of issue 9,
 * and prints the figures docs/security.md reports (computed in tests/corpus/measure.ts;
 * tests/unit/security_docs_test.ts fails when the docs report others).
 */

import assert from "node:assert/strict";
import { BENIGN_SAMPLES } from "../corpus/benign.ts";
import { INJECTION_SAMPLES } from "../corpus/injection.ts";
import { assessmentFigures, percent as pct, redactionFigures } from "../corpus/measure.ts";
import { SECRET_NEGATIVES } from "../corpus/secrets.ts";

Deno.test("corpus: the corpora are as large as the goals require", () => {
  assert.ok(INJECTION_SAMPLES.length >= 60, `${INJECTION_SAMPLES.length} injection samples`);
  assert.ok(BENIGN_SAMPLES.length >= 60, `${BENIGN_SAMPLES.length} benign samples`);
  assert.ok(SECRET_NEGATIVES.length >= 60, `${SECRET_NEGATIVES.length} redaction negatives`);
});

Deno.test("corpus: ≥ 90% of injections are elevated or high, ≤ 2% of benign samples high", () => {
  const { injections: inj, benign: ben, atLevel, missed, flagged } = assessmentFigures();
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
  for (const { level, tp, fp } of atLevel) {
    console.log(
      `≥ ${level}: precision ${pct(tp, tp + fp)}, recall ${pct(tp, INJECTION_SAMPLES.length)}`,
    );
  }
  assert.equal(caught, INJECTION_SAMPLES.length - missed.length);
  assert.ok(caught / INJECTION_SAMPLES.length >= 0.9, `missed: ${JSON.stringify(missed, null, 1)}`);
  assert.equal(flagged.length, ben.high);
  assert.ok(flagged.length / BENIGN_SAMPLES.length <= 0.02, `high: ${JSON.stringify(flagged)}`);
});

Deno.test("corpus: redaction recall ≥ 95% on the rules' samples, false positives ≤ 3% on the negatives", () => {
  const r = redactionFigures();
  console.log(
    `redaction: recall ${
      pct(r.found, r.positives)
    } (${r.found}/${r.positives}, ${r.rules} rules); ` +
      `false positives ${
        pct(r.falsePositives.length, r.negatives)
      } (${r.falsePositives.length}/${r.negatives})`,
  );
  assert.ok(r.found / r.positives >= 0.95);
  assert.ok(
    r.falsePositives.length / r.negatives <= 0.03,
    `false positives: ${JSON.stringify(r.falsePositives)}`,
  );
});
