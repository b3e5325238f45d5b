/**
 * docs/security.md's content-control tables against the code (its denylist
 * table is checked in denylist_test.ts): the redaction rules table lists
 * every rule of `SECRET_RULES` in the order they run, the signal table
 * every class of `SIGNAL_CLASSES` with its weight, and the level thresholds
 * stated in the prose are the ones `levelOf` applies.
 */

import assert from "node:assert/strict";
import { levelOf, SIGNAL_CLASSES } from "../../src/content/assess.ts";
import { SECRET_RULES } from "../../src/secrets/catalogue.ts";

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
