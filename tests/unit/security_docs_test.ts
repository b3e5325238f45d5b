/**
 * docs/security.md's content-control tables against the code (its denylist
 * table is checked in denylist_test.ts): the redaction rules table lists
 * every rule of `SECRET_RULES` in the order they run, the signal table
 * every class of `SIGNAL_CLASSES` with its weight, and the level thresholds
 * stated in the prose are the ones `levelOf` applies; the measured figures of
 * both pages (corpus sizes, levels, precision and recall, redaction recall and
 * false positives, rule and signal counts) are the ones the corpora give.
 */

import assert from "node:assert/strict";
import { levelOf, SIGNAL_CLASSES } from "../../src/content/assess.ts";
import { SECRET_RULES } from "../../src/secrets/catalogue.ts";
import { BENIGN_SAMPLES } from "../corpus/benign.ts";
import { INJECTION_SAMPLES } from "../corpus/injection.ts";
import { assessmentFigures, percent, redactionFigures } from "../corpus/measure.ts";

const DOC = await Deno.readTextFile(new URL("../../docs/security.md", import.meta.url));

/**
 * The rows (cells, trimmed) of the first table whose header starts with the
 * cells `header` (the page has more than one table headed "Rule").
 */
function tableHeaded(...header: string[]): string[][] {
  const lines = DOC.split("\n");
  const at = lines.findIndex((l) => {
    const cells = l.split("|").slice(1).map((c) => c.trim());
    return l.startsWith("|") && header.every((name, i) => cells[i] === name);
  });
  assert.ok(at >= 0, `docs/security.md has no table headed "${header.join(" | ")}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(at)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split("|").slice(1, -1).map((c) => c.trim()));
  }
  return rows.slice(2);
}

Deno.test("docs: security.md lists every redaction rule, in the order they run", () => {
  const listed = tableHeaded("Rule", "Finds").map((row) => row[0]);
  assert.deepEqual(listed, SECRET_RULES.map((rule) => `\`${rule.id}\``));
});

Deno.test("docs: security.md lists every injection signal with its weight", () => {
  const rows = tableHeaded("Signal");
  assert.deepEqual(
    rows.map((row) => row[0]).sort(),
    SIGNAL_CLASSES.map((c) => `\`${c.id}\``).sort(),
  );
  for (const signal of SIGNAL_CLASSES) {
    const row = rows.find((r) => r[0] === `\`${signal.id}\``)!;
    assert.equal(row[1], signal.weight.toFixed(2), `weight of ${signal.id}`);
  }
});

Deno.test("docs: security.md's level thresholds are the ones the assessment applies", () => {
  const text = DOC.replace(/\s+/g, " ");
  const stated = text.match(
    /`none` when nothing is found, `low` below ([\d.]+), `elevated` from ([\d.]+), `high` from ([\d.]+)/,
  );
  assert.ok(stated, "docs/security.md no longer states the levels");
  const [, lowBelow, elevatedFrom, highFrom] = stated.map(Number);
  assert.equal(lowBelow, elevatedFrom);
  assert.equal(levelOf(0, false), "none");
  assert.equal(levelOf(elevatedFrom - 0.001, true), "low");
  assert.equal(levelOf(elevatedFrom, true), "elevated");
  assert.equal(levelOf(highFrom - 0.001, true), "elevated");
  assert.equal(levelOf(highFrom, true), "high");
  const rules = text.match(/Redaction \((\d+) rules\)/)?.[1];
  assert.equal(Number(rules), SECRET_RULES.length, "the measured table's rule count");
});

/** The figures the corpora give, as docs/security.md and THREAT-MODEL.md must state them. */
const ASSESSED = assessmentFigures();
const REDACTED = redactionFigures();
const THREATS = await Deno.readTextFile(new URL("../../THREAT-MODEL.md", import.meta.url));

/** The second cell of the row of `table` whose first cell is `label`. */
function figureOf(table: string[][], label: string): string {
  const row = table.find((r) => r[0] === label);
  assert.ok(row, `docs/security.md's measured table has no row "${label}"`);
  return row[1];
}

Deno.test("docs: security.md's measured injection figures are the ones the corpora give", () => {
  const [header] = DOC.split("\n").filter((l) => l.startsWith("| Injection assessment ("));
  assert.ok(header, "docs/security.md has no measured injection table");
  assert.match(
    header,
    new RegExp(
      `^\\| Injection assessment \\(${INJECTION_SAMPLES.length} injections, ${BENIGN_SAMPLES.length} benign samples\\) `,
    ),
    "the corpus sizes",
  );
  const table = tableHeaded(header.split("|")[1].trim());
  const { injections: inj, benign: ben, atLevel } = ASSESSED;
  assert.equal(
    figureOf(table, "injections `elevated` or higher (goal ≥ 90%)"),
    `${percent(inj.elevated + inj.high, INJECTION_SAMPLES.length)} (${
      inj.low ? `${inj.low} low, ` : ""
    }${inj.elevated} elevated, ${inj.high} high)`,
  );
  assert.equal(
    figureOf(table, "benign samples `high` (goal ≤ 2%)"),
    `${
      percent(ben.high, BENIGN_SAMPLES.length)
    } (${ben.none} none, ${ben.low} low, ${ben.elevated} elevated${
      ben.high ? `, ${ben.high} high` : ""
    })`,
  );
  for (const { level, tp, fp } of atLevel) {
    const label = level === "high"
      ? "precision / recall at `high`"
      : `precision / recall at ≥ \`${level}\``;
    assert.equal(
      figureOf(table, label),
      `${percent(tp, tp + fp)} / ${percent(tp, INJECTION_SAMPLES.length)}`,
      label,
    );
  }
});

Deno.test("docs: security.md's measured redaction figures are the ones the corpora give", () => {
  const table = tableHeaded(`Redaction (${REDACTED.rules} rules)`);
  assert.equal(
    figureOf(table, "recall on the rules' real-shaped samples (goal ≥ 95%)"),
    `${percent(REDACTED.found, REDACTED.positives)} (${REDACTED.found} / ${REDACTED.positives})`,
  );
  const fp = REDACTED.falsePositives.length;
  assert.equal(
    figureOf(table, `false positives on ${REDACTED.negatives} negatives (goal ≤ 3%)`),
    `${percent(fp, REDACTED.negatives)} (${fp} / ${REDACTED.negatives})`,
  );
});

Deno.test("docs: THREAT-MODEL.md's content rows state the rule and signal counts and the corpus figures", () => {
  const row = (n: number) => {
    const line = THREATS.split("\n").find((l) => l.startsWith(`| ${String(n).padEnd(2)} |`));
    assert.ok(line, `THREAT-MODEL.md has no row ${n}`);
    return line.replace(/\s+/g, " ");
  };
  assert.match(row(7), new RegExp(`\\b${SECRET_RULES.length} rules as data\\b`), "row 7's rules");
  const eight = row(8);
  assert.match(
    eight,
    new RegExp(`\\(${SIGNAL_CLASSES.length} signal classes\\b`),
    "row 8's signals",
  );
  const { injections: inj, benign: ben } = ASSESSED;
  const stated = `Measured on a labelled corpus: ${
    percent(inj.elevated + inj.high, INJECTION_SAMPLES.length)
  } of ${INJECTION_SAMPLES.length} injections \`elevated\`+, ${
    percent(ben.high, BENIGN_SAMPLES.length)
  } of ${BENIGN_SAMPLES.length} benign samples \`high\`.`;
  assert.ok(eight.includes(stated), `row 8 should say: ${stated}`);
});
