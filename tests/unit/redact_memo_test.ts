/**
 * The two halves of a result redacted with one memo (ADR-071): what each
 * half shows and the audit are those of redacting each alone.
 */

import assert from "node:assert/strict";
import { fakeSecret } from "../../src/secrets/rule.ts";
import { Redactor, redactResult } from "../../src/content/redact.ts";

Deno.test("redact-memo: the two halves share their search and keep their own counts", () => {
  const aws = "AKIA" + fakeSecret("memo", 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567");
  const gh = "ghp_" + fakeSecret("memo2", 36);
  const text = `key ${aws}\ntoken ${gh}\n`;
  const raw = {
    kind: "ok" as const,
    parts: [{ text, untrusted: true as const, label: "file-content" as const }],
    structured: { content: text, again: [text, `only ${gh}`] },
  };
  const { texts, structured, redaction } = redactResult(raw, true);
  const expected = new Redactor().redact(text);
  assert.equal(texts[0], expected);
  assert.deepEqual(structured, {
    content: expected,
    again: [expected, "only [redacted:github-token]"],
  });
  // Text half: 1 + 1; structured half: 2 × aws, 3 × github. The larger per rule.
  assert.deepEqual(redaction, {
    applied: true,
    count: 5,
    rules: [{ rule: "aws-access-key-id", count: 2 }, { rule: "github-token", count: 3 }],
  });
  const off = redactResult(raw, false);
  assert.equal(off.texts[0], text);
  assert.equal(off.structured, raw.structured);
  assert.equal(off.redaction.applied, false);
});

Deno.test("redact-memo: attack — long strings of one length cannot pass for each other in the memo", () => {
  // V8 hashes strings of 16,384 characters or more by their length: a result of many such
  // strings, one holding a secret, must have each redacted on its own text.
  const secret = "ghp_" + fakeSecret("long", 36);
  const filler = "x".repeat(20_000);
  const strings = Array.from(
    { length: 12 },
    (_, i) => filler.slice(0, 20_000 - 3) + String(i).padStart(2, "0") + " ",
  );
  strings[7] = filler.slice(0, 20_000 - 41) + " " + secret;
  assert.ok(strings.every((s) => s.length === strings[0].length));
  const raw = {
    kind: "ok" as const,
    parts: strings.map((text) => ({
      text,
      untrusted: true as const,
      label: "file-content" as const,
    })),
    structured: { lines: [...strings].reverse() },
  };
  const { texts, structured, redaction } = redactResult(raw, true);
  texts.forEach((t, i) =>
    assert.equal(t.includes("[redacted:github-token]"), i === 7, `part ${i}`)
  );
  assert.ok(texts.every((t) => !t.includes(secret)));
  const lines = (structured as { lines: string[] }).lines;
  lines.forEach((t, i) =>
    assert.equal(t.includes("[redacted:github-token]"), i === 4, `line ${i}`)
  );
  assert.deepEqual(redaction.rules, [{ rule: "github-token", count: 1 }]);
});
