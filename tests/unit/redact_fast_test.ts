/**
 * The faster secret finder (ADR-070) changes what redaction costs, never
 * what it redacts: it is compared with the one it replaced
 * (tests/helpers/secrets_reference.ts) on hostile text, and each rule's
 * cheap reject with its own pattern.
 */

import assert from "node:assert/strict";
import { SECRET_RULES } from "../../src/secrets/catalogue.ts";
import { findSecrets, passesFollows } from "../../src/secrets/find.ts";
import {
  fakeSecret,
  isBlockRule,
  isPlaceholder,
  type PatternRule,
  shannonEntropy,
} from "../../src/secrets/rule.ts";
import { SECRET_NEGATIVES } from "../corpus/secrets.ts";
import * as reference from "../helpers/secrets_reference.ts";

const PATTERN_RULES = SECRET_RULES.filter((r): r is PatternRule => !isBlockRule(r));

/** A small deterministic generator, so a failure names its seed. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  return {
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
  };
}

const SAMPLES = SECRET_RULES.flatMap((r) => r.samples().match);
/** Pieces hostile text is made of: every keyword in both cases, near misses, separators. */
const PIECES = [
  ...SECRET_RULES.flatMap((r) => r.keywords.flatMap((k) => [k, k.toUpperCase(), k.toLowerCase()])),
  "-----BEGIN RSA PRIVATE KEY-----\n",
  "-----END RSA PRIVATE KEY-----",
  "Proc-Type: 4,ENCRYPTED\n",
  "T3BlbkFJ",
  "proj-",
  ".eyJ",
  "Bearer ",
  "password",
  "ord",
  "_key",
  "=",
  ":",
  " = ",
  ": ",
  "=>",
  '"',
  "'",
  "@",
  "/",
  ".",
  "-",
  "_",
  " ",
  "\n",
  "\t",
  "\\n",
  "changeme",
  "xxxxxxxx",
  "${TOKEN}",
  "\u00a0", // no-break space: \s for the pattern, not ASCII for the tables
  "\u212a", // Kelvin sign: lowercases to k, is not k for a case-insensitive pattern
  "\u0130", // İ: lowercases to two characters
  "\u2028",
  "é",
];
const ALPHABETS = ["ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "0123456789abcdef", undefined];

function hostileText(seed: number): string {
  const g = generator(seed);
  let text = "";
  const parts = 1 + g.int(40);
  for (let i = 0; i < parts; i++) {
    const roll = g.int(10);
    if (roll < 5) text += g.pick(PIECES);
    else if (roll < 8) text += fakeSecret(`h${seed}.${i}`, g.int(90), g.pick(ALPHABETS));
    else if (roll < 9) text += g.pick(SAMPLES);
    else text += g.pick(SAMPLES).slice(0, 1 + g.int(60)); // a cut-off secret
  }
  return text;
}

Deno.test("redact-fast: the finder finds exactly what the one it replaced finds, on hostile text", () => {
  let found = 0;
  for (let seed = 1; seed <= 2500; seed++) {
    const text = hostileText(seed);
    const now = findSecrets(text);
    assert.deepEqual(now, reference.findSecrets(text), `seed ${seed}: ${JSON.stringify(text)}`);
    found += now.length;
  }
  assert.ok(found > 500, `the hostile texts hold secrets to find (${found})`);
  for (const text of [...SAMPLES, ...SECRET_NEGATIVES, SAMPLES.join("\n"), SAMPLES.join("")]) {
    assert.deepEqual(findSecrets(text), reference.findSecrets(text), text);
  }
});

Deno.test("redact-fast: every rule's cheap reject lets through every place its pattern matches", () => {
  // If a step were narrower than the pattern, a secret would be skipped without the regex
  // ever being tried: each keyword occurrence where the sticky pattern matches must pass.
  let checked = 0;
  for (const rule of PATTERN_RULES.filter((r) => r.follows)) {
    const sticky = new RegExp(rule.pattern.source, rule.pattern.flags.replace("y", "") + "y");
    const texts = [...rule.samples().match];
    for (let seed = 1; seed <= 800; seed++) texts.push(hostileText(seed * 7919 + rule.id.length));
    for (const text of texts) {
      const hay = rule.ignoreCase ? text.toLowerCase() : text;
      for (const keyword of rule.keywords) {
        const k0 = rule.ignoreCase ? keyword.toLowerCase() : keyword;
        for (let k = hay.indexOf(k0); k >= 0; k = hay.indexOf(k0, k + 1)) {
          if (hay.length !== text.length) break; // the lowercase copy moved the offsets
          sticky.lastIndex = k;
          if (!sticky.test(text)) continue;
          checked++;
          assert.ok(
            passesFollows(rule, text, k + keyword.length),
            `${rule.id} rejected a match at ${k}: ${JSON.stringify(text.slice(k, k + 120))}`,
          );
        }
      }
    }
  }
  assert.ok(checked > 200, `places where a pattern matches were checked (${checked})`);
});

Deno.test("redact-fast: attack — a secret hidden behind a decoy prefix is still found", () => {
  // A decoy is the keyword followed by a run the cheap reject turns down (too short, or the
  // wrong shape): the scan must move on one character, not past the decoy's run, and the
  // real token glued after it must be found whole.
  for (const rule of PATTERN_RULES.filter((r) => r.follows)) {
    for (const sample of rule.samples().match) {
      const alone = findSecrets(sample).filter((s) => s.rule === rule.id);
      assert.equal(alone.length, 1, `${rule.id}: ${sample}`);
      const secret = sample.slice(alone[0].start, alone[0].end);
      for (const keyword of rule.keywords) {
        for (const decoy of [`${keyword}ab `, `${keyword}\n`, `${keyword}${keyword}x `]) {
          for (const text of [decoy + sample, decoy.repeat(50) + sample]) {
            const spans = findSecrets(text).filter((s) => s.rule === rule.id);
            assert.ok(
              spans.some((s) => text.slice(s.start, s.end) === secret),
              `${rule.id} behind ${JSON.stringify(decoy)}: ${text.slice(-200)}`,
            );
          }
        }
      }
    }
  }
  // The runs a reject scans are bounded by the pattern's own: a JWT whose first part is just
  // over the pattern's 4,096 is not one, one at exactly 4,096 still is.
  const part = (n: number) => fakeSecret("jwt-long", n, "abcdefghijklmnopqrstuvwxyz0123456789");
  const tail = `.eyJ${part(20)}.${part(30)}`;
  assert.deepEqual(findSecrets(`eyJ${part(4096)}${tail}`).map((s) => s.rule), ["jwt"]);
  assert.deepEqual(findSecrets(`eyJ${part(4097)}${tail}`).map((s) => s.rule), []);
});

Deno.test("redact-fast: every cheap reject reads a bounded stretch (linear time, ADR-018)", () => {
  // A step without a bound before the last would let one candidate scan to the end of the
  // text, and a flood of candidates make the scan quadratic; the last run is read only as far
  // as its minimum.
  for (const rule of PATTERN_RULES) {
    const steps = rule.follows ?? [];
    steps.slice(0, -1).forEach((step, i) => {
      if ("literal" in step) return;
      assert.ok(Number.isFinite(step.max), `${rule.id}: step ${i + 1} has no max`);
      assert.ok(step.max! <= 8192, `${rule.id}: step ${i + 1} reads up to ${step.max}`);
    });
    const last = steps.at(-1);
    if (last && !("literal" in last)) assert.ok(last.min <= 255, `${rule.id}: last min`);
  }
});

Deno.test("redact-fast: a cheap reject that could misread the pattern is refused when prepared", () => {
  const overlapping: PatternRule = {
    id: "test-overlap",
    description: "a run that swallows the literal after it",
    keywords: ["zz"],
    pattern: /zz[a-z.]{3,9}\.[0-9]{2}/y,
    follows: [{ chars: /[a-z.]/, min: 3, max: 9 }, { literal: "." }],
    samples: () => ({ match: [], noMatch: [] }),
  };
  assert.throws(() => findSecrets("zzabc.12", [overlapping]), /overlaps the next one/);
  const prefixed: PatternRule = {
    ...overlapping,
    id: "test-prefix",
    keywords: ["zz", "zzq"],
    follows: [{ chars: /[a-z]/, min: 3 }],
  };
  assert.throws(() => findSecrets("zzabc.12", [prefixed]), /no keyword may start another/);
});

Deno.test("redact-fast: entropy and placeholders are judged as before", () => {
  const g = generator(42);
  const strings = [
    "abcdefghabcdefgh", // exactly 3 bits: the floor itself
    "aabbccddeeffgghh",
    "abcdefgh".repeat(3),
    "ab_xxxxxxxx",
    "abcdefghi_xxxx",
    "ab-",
    "____",
    "\n\n\n",
    "A\u2028\u2028",
    "xX",
    "é".repeat(5),
    "",
  ];
  for (let i = 0; i < 3000; i++) {
    strings.push(
      fakeSecret(`e${i}`, g.int(40), g.pick(["ab", "abc_-", "xX_", "abcdefgh", "é\u00e8a-"])),
    );
    strings.push(g.pick(PIECES) + fakeSecret(`p${i}`, g.int(12), "x_-") + g.pick(PIECES));
  }
  for (const s of strings) {
    assert.equal(shannonEntropy(s), reference.shannonEntropy(s), JSON.stringify(s));
    assert.equal(isPlaceholder(s), reference.isPlaceholder(s), JSON.stringify(s));
  }
  assert.equal(shannonEntropy("abcdefghabcdefgh"), 3);
});
