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

Deno.test("redact-memo: attack — whether a redacted part ends with a line feed is told right without reading it (a secret or a withheld piece at the very end, ADR-127)", async () => {
  // The fence adds a line feed before its closing marker unless the text ends with one; the
  // redaction says which without reading its result. A secret that ends the text leaves it
  // ending with a marker's `]`, a withheld piece over the final line feed too, and anything
  // else with the text's own last character. Checked against reading the result, on every
  // rule's samples at the end of the text, with and without line feeds, through the pipeline.
  const { shapeToolResult } = await import("../../src/content/pipeline.ts");
  const { SECRET_RULES } = await import("../../src/secrets/catalogue.ts");
  const texts = [""];
  for (const rule of SECRET_RULES) {
    for (const sample of [...rule.samples().match, ...rule.samples().noMatch]) {
      texts.push(sample, `${sample}\n`, `x\n${sample}`, `${sample}\n\n`, `${sample} ${sample}`);
    }
  }
  let atEnd = 0;
  for (const text of texts) {
    for (const withheld of [undefined, text.length > 0 ? text.length - 1 : undefined]) {
      const raw = {
        kind: "ok" as const,
        parts: [{ text, untrusted: true as const, label: "file-content" as const }],
        structured: {},
        ...(withheld === undefined ? {} : {
          withheld: [{
            rule: "generic-secret",
            pieces: [{ at: { part: 0 }, start: withheld, end: text.length }],
          }],
        }),
      };
      const { texts: out, endsWithNewline } = redactResult(raw, true);
      assert.equal(endsWithNewline[0], out[0].endsWith("\n"), JSON.stringify(text));
      if (out[0].endsWith("]") && out[0] !== text) atEnd++;
      const shaped = shapeToolResult(raw, { redactSecrets: true });
      const block = (shaped.content[0] as { text: string }).text;
      const body = out[0] === "" || out[0].endsWith("\n") ? out[0] : out[0] + "\n";
      assert.ok(block.includes(`>\n${body}</untrusted-file-content id=`), JSON.stringify(text));
    }
  }
  assert.ok(atEnd > 20, `${atEnd} texts ended with a marker`);
});
