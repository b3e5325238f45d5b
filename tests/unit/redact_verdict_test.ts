/**
 * ADR-126: a rule's scan remembers verdicts in a table of 256 slots (a value in the slot its
 * length and three of its code units name) instead of a Map, and its spans are typed lists
 * kept by one object. What is redacted must not change: each attack is compared with the
 * finder before ADR-070 (tests/helpers/secrets_reference.ts), and the redacted text with the
 * spans' markers.
 */

import assert from "node:assert/strict";
import { SECRET_RULES } from "../../src/secrets/catalogue.ts";
import {
  findSecrets,
  redactSecrets,
  redactSecretsEnding,
  replaceSpans,
  verdictSlot,
} from "../../src/secrets/find.ts";
import { secretMarker } from "../../src/secrets/cut.ts";
import { fakeSecret, type PatternRule } from "../../src/secrets/rule.ts";
import { sameAsReference as same } from "../helpers/secrets_oracle.ts";

const MIXED = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";

/** `inner` wrapped so the value starts with `first`, has `middle` at its middle and ends with `last`. */
function shaped(first: string, middle: string, last: string, inner: string): string {
  const n = inner.length + 3;
  const half = n >> 1;
  return first + inner.slice(0, half - 1) + middle + inner.slice(half - 1) + last;
}

Deno.test("redact-verdict: attack — a real secret sharing its verdict slot with a placeholder is still redacted, and the placeholder is not", () => {
  // The slot names a value by its length and three code units: values an attacker builds to
  // share them evict each other. A slot's verdict may be reused only for an equal value.
  const secret = shaped("Q", "m", "Z", fakeSecret("slot-secret", 22, MIXED));
  const placeholder = shaped("Q", "m", "Z", "changeme-changeme-chan");
  const lowEntropy = shaped("Q", "m", "Z", "aaaaaaaaaaaaaaaaaaaaab");
  assert.equal(secret.length, placeholder.length);
  assert.equal(verdictSlot(secret), verdictSlot(placeholder), "the attack shares one slot");
  assert.equal(verdictSlot(secret), verdictSlot(lowEntropy));
  assert.notEqual(secret, placeholder);
  const lines = [secret, placeholder, lowEntropy].map((v) => `token = ${v}\n`);
  // Alternating, so no value is the last one judged, and each lookup lands on the other's slot.
  for (const order of [[0, 1], [1, 0], [0, 1, 2], [2, 1, 0], [1, 2, 0, 0, 1]]) {
    const text = order.map((i) => lines[i]).join("").repeat(200);
    const spans = same(text, `slot order ${order}`);
    const expected = order.filter((i) => i === 0).length * 200;
    assert.equal(spans.length, expected, `${order}: every copy of the secret, nothing else`);
  }
});

Deno.test("redact-verdict: attack — more distinct values than slots, cycled, are each judged right", () => {
  // 600 values (secrets and placeholders mixed) cycled three times: more than the table holds,
  // so slots are overwritten while earlier values come back.
  const values = Array.from(
    { length: 600 },
    (_, i) =>
      i % 3 === 0
        ? `changeme-${String(i).padStart(6, "0")}x`
        : fakeSecret(`cycle-${i}`, 18 + (i % 5), MIXED),
  );
  const text = [0, 1, 2].map(() => values.map((v) => `api_key: ${v}\n`).join("")).join("");
  const spans = same(text, "600 values cycled");
  assert.ok(spans.length >= 1000, `${spans.length} secrets found`);
  for (const s of spans) assert.ok(!text.slice(s.start, s.end).startsWith("changeme"));
});

Deno.test("redact-verdict: attack — a flood of 40,000 matches grows the span lists through a dozen doublings without losing one", () => {
  // `Authorization:` twice per 30 characters: each header's value is the next keyword. The
  // typed span lists start at 16 and double; the count and every marker must survive it.
  const text = "Authorization: ".repeat(80_000);
  const spans = findSecrets(text);
  assert.equal(spans.length, 40_000);
  const counts = new Map<string, number>();
  const out = redactSecrets(text, counts);
  assert.deepEqual([...counts], [["http-authorization", 40_000]]);
  assert.equal(out, replaceSpans(text, spans));
  assert.equal(out.split(secretMarker("http-authorization")).length - 1, 40_000);
  same(text.slice(0, 60_000), "a slice of the flood");
});

Deno.test("redact-verdict: the finder's markers are cut.ts's secretMarker (the fence's nonce check relies on their brackets, ADR-127)", () => {
  for (const rule of SECRET_RULES) {
    const [sample] = rule.samples().match;
    const counts = new Map<string, number>();
    const out = redactSecrets(sample, counts);
    assert.ok(out.includes(secretMarker(rule.id)), `${rule.id}: ${out}`);
    assert.match(secretMarker(rule.id), /^\[[^\[\]]*\]$/);
  }
});

Deno.test("redact-verdict: attack — a secret whose span takes the text's final line feed leaves it ending with a marker, as redactSecretsEnding says (ADR-127)", () => {
  // No catalogue rule's span holds a line feed today; one that does must not leave the fence
  // believing the text still ends with one (its closing marker would then share the line).
  const rule: PatternRule = {
    id: "line-secret",
    description: "test rule",
    keywords: ["key="],
    pattern: /key=(?<secret>[0-9]{6}\n?)/y,
    samples: () => ({ match: [], noMatch: [] }),
  };
  for (const text of ["key=123456\n", "a key=123456\nb\n", "key=123456", "key=12345\n", "x\n"]) {
    const { text: out, endsWithNewline } = redactSecretsEnding(text, undefined, [rule]);
    assert.equal(endsWithNewline, out.endsWith("\n"), JSON.stringify(text));
    assert.equal(out, replaceSpans(text, findSecrets(text, [rule])));
  }
  assert.equal(
    redactSecretsEnding("key=123456\n", undefined, [rule]).text,
    "key=[redacted:line-secret]",
  );
});
