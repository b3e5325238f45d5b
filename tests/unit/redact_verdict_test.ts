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
import { mulberry32 } from "../helpers/random.ts";

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

Deno.test("redact-verdict: the finder's markers are secretMarker's, bracketed (the fence's nonce check relies on their brackets, ADR-127)", () => {
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

/*
 * Red team of ADR-126 (round 5): every value of a flood in one slot, and the span lists fed
 * overlaps, adjacency, a span at the very end and empty texts, each compared with the reference.
 */

Deno.test("redact-verdict: attack — 240 secrets and placeholders built into one slot, interleaved, are each judged on their own", () => {
  // Same length, first, middle and last unit: one slot for all of them, so every value evicts
  // the one before and none is the last value judged when it comes back.
  const values: string[] = [];
  for (let i = 0; i < 240; i++) {
    const inner = i % 2 === 0
      ? fakeSecret(`one-slot-${i}`, 22, MIXED)
      : `changeme${String(i).padStart(14, "x")}`;
    values.push(shaped("Q", "m", "Z", inner));
  }
  const slot = verdictSlot(values[0]);
  for (const v of values) assert.equal(verdictSlot(v), slot, v);
  assert.equal(new Set(values).size, values.length);
  // Each value three times, the repeats far apart and in another order.
  const order = [...values, ...[...values].reverse(), ...values.filter((_, i) => i % 3 === 0)];
  for (const key of ["token = ", "api_key: "]) {
    const text = order.map((v) => `${key}${v}\n`).join("");
    const spans = same(text, `one slot, ${key}`);
    for (const s of spans) {
      assert.ok(!text.slice(s.start, s.end).includes("changeme"), "a placeholder kept");
    }
    // A value's verdict is the same at each of its occurrences, whatever was judged between.
    const kept = new Map<string, number>();
    for (const s of spans) {
      const v = text.slice(s.start, s.end);
      kept.set(v, (kept.get(v) ?? 0) + 1);
    }
    for (const [v, n] of kept) assert.equal(n, order.filter((o) => o === v).length, v);
    assert.ok(kept.size > 100, `${key}: ${kept.size} of 120 secrets kept`);
  }
});

Deno.test("redact-verdict: attack — catalogue samples glued, overlapping, adjacent and at the very end give the reference's spans", () => {
  // Samples of every rule joined with nothing, a blank, a line feed or another sample's head
  // between them, so spans of different rules touch, overlap (the earlier rule keeps its own)
  // and end the text; empty texts and a lone sample too.
  const samples = SECRET_RULES.flatMap((rule) => rule.samples().match);
  const next = mulberry32(0x126);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  assert.deepEqual(findSecrets(""), []);
  let spans = 0;
  for (let n = 0; n < 300; n++) {
    let text = "";
    for (let k = 1 + Math.floor(next() * 5); k > 0; k--) {
      const sample = pick(samples);
      text += pick(["", "", " ", "\n", "=", sample.slice(0, Math.floor(sample.length / 2))]) +
        sample;
    }
    if (next() < 0.3) text += pick(["\n", "\r\n", " "]);
    const found = same(text, `#${n}`);
    spans += found.length;
    const { text: out, endsWithNewline } = redactSecretsEnding(text);
    assert.equal(out, replaceSpans(text, found), `#${n}`);
    assert.equal(endsWithNewline, out.endsWith("\n"), `#${n}: the fence's hint`);
  }
  assert.ok(spans > 300, `${spans} spans`);
});

Deno.test("redact-verdict: attack — a later rule's span that overlaps an earlier rule's by one unit is dropped, one that touches it is kept", () => {
  // Two rules whose spans are built to meet: the earlier rule's span starts one unit before
  // the later one's ends (overlap), or exactly where it ends (adjacent), on either side.
  const rule = (id: string, keyword: string, pattern: RegExp): PatternRule => ({
    id,
    description: "test rule",
    keywords: [keyword],
    pattern,
    samples: () => ({ match: [], noMatch: [] }),
  });
  const head = rule("head", "aa=", /aa=(?<secret>[A-Za-z0-9]{6})/y);
  const tail = rule("tail", "7m", /(?<secret>7m[A-Za-z]{5})/y);
  const cases: [string, PatternRule[], [number, number, string][]][] = [
    // "Xk9Qz7" is head's [3, 9); "7mwpRtK" is tail's [8, 15): one unit shared.
    ["aa=Xk9Qz7mwpRtK", [tail, head], [[8, 15, "tail"]]],
    ["aa=Xk9Qz7mwpRtK", [head, tail], [[3, 9, "head"]]],
    // "Xk9Qz8" ends at 9, where "7mwpRtK" starts: both kept, in either order.
    ["aa=Xk9Qz87mwpRtK", [tail, head], [[3, 9, "head"], [9, 16, "tail"]]],
    ["aa=Xk9Qz87mwpRtK", [head, tail], [[3, 9, "head"], [9, 16, "tail"]]],
    // And at the very end of the text, followed by a line feed or not.
    ["x aa=Xk9Qz87mwpRtK\n", [tail, head], [[5, 11, "head"], [11, 18, "tail"]]],
  ];
  for (const [text, rules, expected] of cases) {
    const what = `${text} with ${rules.map((r) => r.id)}`;
    const spans = same(text, what, rules);
    assert.deepEqual(spans.map((s) => [s.start, s.end, s.rule]), expected, what);
    const { text: out, endsWithNewline } = redactSecretsEnding(text, undefined, rules);
    assert.equal(endsWithNewline, out.endsWith("\n"), what);
  }
});
