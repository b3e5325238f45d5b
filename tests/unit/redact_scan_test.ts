/**
 * The one keyword pass of ADR-092 (a loop over pairs of code units and a table, exact keywords
 * recorded once and then unnamed from the table or looked for by `indexOf` after repeated
 * misses, folded ones recorded at every offset, the gate searched only for dense candidates) and
 * the tail probe and parallel span lists of ADR-093 change what redaction costs, never what it
 * redacts: each attack on a shortcut is compared with the finder before ADR-070
 * (tests/helpers/secrets_reference.ts).
 */

import assert from "node:assert/strict";
import { SECRET_RULES } from "../../src/secrets/catalogue.ts";
import { redactSecrets } from "../../src/secrets/find.ts";
import { fakeSecret, isBlockRule, type PatternRule } from "../../src/secrets/rule.ts";
import * as reference from "../helpers/secrets_reference.ts";
import { mulberry32 } from "../helpers/random.ts";
import { sameAsReference } from "../helpers/secrets_oracle.ts";

const same = sameAsReference;

const PATTERN_RULES = SECRET_RULES.filter((r): r is PatternRule => !isBlockRule(r));
const URLSAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const anthropicKey = () => `sk-ant-api03-${fakeSecret("scan-an", 93, URLSAFE)}AA`;

Deno.test("redact-scan: attack — a key behind hundreds of decoys of its first three characters is still found", () => {
  // After 64 misses the pass looks an exact keyword up by indexOf instead of comparing it; a
  // wrong next offset, or a keyword taken for absent, would let the key through.
  for (const decoys of [63, 64, 65, 500]) {
    const key = anthropicKey();
    const text = "sk-a ".repeat(decoys) + `KEY=${key}\n` + "sk-an ".repeat(decoys) + key;
    const spans = same(text, `${decoys} decoys`);
    assert.equal(spans.filter((s) => s.rule === "anthropic-api-key").length, 2, `${decoys}`);
  }
  // A keyword that is absent after its decoys must not stop the others that share its start.
  const text = "sk-a ".repeat(200) + `sk_live_${fakeSecret("scan-st", 24)}`;
  assert.deepEqual(same(text, "stripe after sk-a decoys").map((s) => s.rule), [
    "stripe-secret-key",
  ]);
});

Deno.test("redact-scan: attack — once an exact keyword is seen, the keywords that share its start are still looked for", () => {
  // A seen exact keyword is unnamed from the table only where every keyword of the list is
  // seen: a flood of sk- (seen at once) must not hide a later sk-ant- or sk_live_ key, nor a
  // flood of ghp_ a later gho_ token.
  const gho = `gho_${fakeSecret("scan-gho", 36)}`;
  for (
    const [flood, key, rule] of [
      ["sk-", anthropicKey(), "anthropic-api-key"],
      ["sk-x ", `sk_live_${fakeSecret("scan-st2", 24)}`, "stripe-secret-key"],
      ["ghp_ ", gho, "github-token"],
      ["eyJ-", gho, "github-token"],
    ]
  ) {
    const text = flood.repeat(3000) + " " + key + " " + flood.repeat(10);
    assert.ok(same(text, `${rule} after ${flood}`).some((s) => s.rule === rule), rule);
  }
});

Deno.test("redact-scan: attack — keywords at the text's last code units, and texts cut after each code unit", () => {
  // The pass reads pairs and a third code unit; past the end it uses the list for "no third
  // unit". Every sample cut at every length (so a keyword ends exactly at the end) and every
  // keyword alone at the end must agree with the reference.
  for (const rule of PATTERN_RULES) {
    for (const keyword of rule.keywords) {
      for (const variant of [keyword, keyword.toUpperCase(), keyword.toLowerCase()]) {
        same(`x ${variant}`, `${rule.id} keyword at the end`);
        same(variant, `${rule.id} keyword alone`);
      }
    }
  }
  for (const sample of SECRET_RULES.flatMap((r) => r.samples().match)) {
    for (let cut = 0; cut <= sample.length; cut++) same(sample.slice(0, cut), "cut sample");
  }
});

Deno.test("redact-scan: attack — folded keywords in mixed case and beside non-ASCII look-alikes", () => {
  // The pass folds ASCII letters only, as V8's non-Unicode i does: the Kelvin sign, the long s
  // (ſ, which uppercases to S), dotted İ and fullwidth letters must neither start nor complete
  // a keyword, while every ASCII case mix must.
  const value = fakeSecret("scan-fold", 32);
  const looks = ["\u212a", "\u017f", "\u0130", "\uff33", "\u0131"];
  const random = mulberry32(92);
  for (let round = 0; round < 400; round++) {
    const word = ["password", "secret", "token", "api_key", "authorization", "accountkey="][
      Math.floor(random() * 6)
    ];
    let mixed = "";
    for (const ch of word) {
      const r = random();
      mixed += r < 0.1
        ? looks[Math.floor(random() * looks.length)]
        : r < 0.5
        ? ch.toUpperCase()
        : ch;
    }
    same(`${mixed} = "${value}"\n${mixed}: Bearer ${value}\n`, `folded ${mixed}`);
  }
});

Deno.test("redact-scan: attack — keywords the pair table cannot hold (one code unit, not ASCII) are searched alone", () => {
  // A rule set may hold a keyword of one code unit or one that is not ASCII; the pass hands
  // those to indexOf (or their own i pattern) and merges their offsets with the others'.
  const rules: PatternRule[] = [
    {
      id: "one-unit",
      description: "test rule",
      keywords: ["q", "qz"],
      pattern: /qz?=(?<secret>[0-9]{6})/y,
      samples: () => ({ match: [], noMatch: [] }),
    },
    {
      id: "not-ascii",
      description: "test rule",
      keywords: ["clé", "CLÉ"],
      pattern: /cl[éÉ]=(?<secret>[0-9]{6})/iy,
      ignoreCase: true,
      samples: () => ({ match: [], noMatch: [] }),
    },
    {
      id: "wide-third",
      description: "test rule",
      keywords: ["abé"],
      pattern: /abé=(?<secret>[0-9]{6})/y,
      samples: () => ({ match: [], noMatch: [] }),
    },
  ];
  const text = "q=123456 qz=234567 clé=345678 CLÉ=456789 Clé=567890 abé=678901 ab";
  const spans = same(text, "alone keywords", rules);
  assert.deepEqual(spans.map((s) => s.rule), [
    "one-unit",
    "one-unit",
    "not-ascii",
    "not-ascii",
    "not-ascii",
    "wide-third",
  ]);
});

Deno.test("redact-scan: attack — a folded rule's sparse candidates, checked without its gate, find what the gate would", () => {
  // The gate is searched only where a folded rule's candidates are dense; around the
  // threshold (64 candidates, one per 64 code units) a real secret after near misses must be
  // found either way.
  const secret = `client_secret: ${fakeSecret("scan-g", 32, URLSAFE)}`;
  for (const misses of [10, 63, 64, 65, 2000]) {
    for (const spacing of [1, 40, 70, 400]) {
      const decoy = "token ignored" + " ".repeat(spacing);
      const text = decoy.repeat(misses) + secret + "\n" + decoy.repeat(3);
      assert.ok(
        same(text, `${misses} misses, spacing ${spacing}`).some((s) => s.rule === "generic-secret"),
      );
    }
  }
});

Deno.test("redact-scan: attack — a folded rule's keywords at one offset and interleaved are merged as its own searches were", () => {
  // npmrc-auth's _authToken and _auth start at the same offset; aws-secret-access-key has four
  // keywords: the merged candidates keep one per offset and every offset in order.
  const random = mulberry32(93);
  const pieces = [
    "_authToken=",
    "_AUTH=",
    "_password = ",
    "access_key = ",
    "AWS_SECRET=",
    "AccessKey: ",
    fakeSecret("scan-m1", 40, URLSAFE.slice(0, 62) + "/+"),
    fakeSecret("scan-m2", 12),
    " ",
    "\n",
    "${NPM_TOKEN}",
  ];
  for (let round = 0; round < 300; round++) {
    let text = "";
    for (let i = 0; i < 30; i++) text += pieces[Math.floor(random() * pieces.length)];
    same(text, `merged round ${round}`);
  }
});

Deno.test("redact-scan: attack — a tail after 60,000 near misses, and tails with characters outside ASCII", () => {
  // The tail probe is indexOf and a loop now: a real JWT after a flood of dots that are not
  // tails, a sendgrid key after a flood of SG.-like dots, and a run class that accepts
  // characters outside ASCII must agree with the reference.
  const jwt = `eyJ${fakeSecret("scan-j1", 30, URLSAFE)}.eyJ${fakeSecret("scan-j2", 60, URLSAFE)}.${
    fakeSecret("scan-j3", 43, URLSAFE)
  }`;
  const flood = "eyJaaaaaaaa.eyJaaaaaaaa.".repeat(5000);
  assert.ok(same(flood + jwt, "jwt after near misses").some((s) => s.rule === "jwt"));
  assert.ok(same(jwt + flood + jwt, "jwt around near misses").length === 2);
  const sg = `SG.${fakeSecret("scan-s1", 22, URLSAFE)}.${fakeSecret("scan-s2", 43, URLSAFE)}`;
  assert.ok(
    same("SG.a.b.c.".repeat(20000) + " " + sg, "sendgrid").some((s) =>
      s.rule === "sendgrid-api-key"
    ),
  );
  const wide: PatternRule = {
    id: "wide-tail",
    description: "test rule",
    keywords: ["k:"],
    pattern: /k:[a-z]{1,4}\/(?<secret>[^\s]{4,20})/y,
    follows: [{ chars: /[a-z]/, min: 1, max: 4 }, { literal: "/" }, { chars: /[^\s]/, min: 4 }],
    samples: () => ({ match: [], noMatch: [] }),
  };
  for (
    const text of [
      "k:ab/ééé k:ab/éééé k:a/é\u00a0éé k:abcd/\u2028éé\u00e9\u00e9x k:ab/\ud83d\ude00\ud83d\ude00",
      "k:ab/é".repeat(300) + " k:ab/éééé",
      "k:ab/".repeat(300) + "ééé",
    ]
  ) same(text, "non-ASCII tail", [wide]);
});

Deno.test("redact-scan: attack — floods of matches of two rules interleaved keep spans ordered, counted and labelled", () => {
  // Spans are parallel lists until findSecrets returns; the redacted text and the counts of
  // a flood of interleaved matches of several rules must be the reference's.
  const random = mulberry32(94);
  const samples = SECRET_RULES.flatMap((r) => r.samples().match);
  let text = "";
  for (let i = 0; i < 3000; i++) text += samples[Math.floor(random() * samples.length)] + "\n";
  same(text, "interleaved matches");
  const counts = new Map<string, number>(), want = new Map<string, number>();
  assert.equal(redactSecrets(text, counts), reference.redactSecrets(text, want));
  assert.deepEqual([...counts].sort(), [...want].sort());
});

Deno.test("redact-scan: attack — every exact keyword's first three code units, thousands of times, then the keywords", () => {
  // The pass switches an exact keyword to indexOf only once its misses have cost about a search
  // of the rest: on a text made of every exact keyword's start (and every folded one's but the
  // last unit), the keys placed after the flood, and between its copies, must all be found.
  const starts = PATTERN_RULES.flatMap((r) =>
    r.keywords.filter((k) => k.length > 3).map((k) => r.ignoreCase ? k.slice(0, -1) : k.slice(0, 3))
  );
  const flood = (starts.join("# ") + "# ").repeat(400);
  const samples = SECRET_RULES.flatMap((r) => r.samples().match);
  const text = flood + samples.join("\n") + "\n" + flood.slice(0, 5000) + samples.join(" ; ");
  const spans = same(text, "starts flood");
  assert.ok(spans.length >= samples.length, `${spans.length} of ${samples.length} samples`);
});
