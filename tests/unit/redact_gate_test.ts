/**
 * The shortcuts of ADR-077 (a rule's keywords and cheap reject searched ahead as one pattern,
 * the gate; runs skipped and read by sticky patterns) change what a flood costs, never what is
 * redacted: each attack below is compared with the finder before ADR-070
 * (tests/helpers/secrets_reference.ts).
 */

import assert from "node:assert/strict";
import { SECRET_RULES } from "../../src/secrets/catalogue.ts";
import { findSecrets } from "../../src/secrets/find.ts";
import { fakeSecret, isBlockRule, type PatternRule } from "../../src/secrets/rule.ts";
import * as reference from "../helpers/secrets_reference.ts";

const GATED = SECRET_RULES.filter((r): r is PatternRule => !isBlockRule(r) && !!r.follows);

function same(text: string, what: string): number {
  const now = findSecrets(text);
  assert.deepEqual(
    now,
    reference.findSecrets(text),
    `${what}: ${JSON.stringify(text.slice(-160))}`,
  );
  return now.length;
}

Deno.test("redact-gate: attack — a secret after thousands of decoys the gate jumps over is found", () => {
  // The gate lets the scan jump to its next match: a jump one character too far, or a search
  // started past a candidate, would lose the secret that ends the flood.
  let found = 0;
  for (const rule of GATED) {
    for (const sample of rule.samples().match) {
      for (const keyword of rule.keywords) {
        for (const decoy of [`${keyword}ab `, `${keyword}${keyword}x.`, `${keyword}a\n`]) {
          found += same(decoy.repeat(2000) + sample, `${rule.id} behind ${decoy}`);
          found += same(decoy.repeat(300) + sample + decoy.repeat(300) + sample, rule.id);
        }
      }
    }
  }
  assert.ok(found > 100, `the floods end in secrets (${found})`);
});

Deno.test("redact-gate: attack — a flood of real matches that turns the gate off hides nothing after it", () => {
  // Past a few candidates the gate lets through in a row the scan stops searching with it; the
  // decoys and the secret after that are then found by the per-candidate scan, as before.
  for (const rule of GATED) {
    for (const sample of rule.samples().match) {
      const [keyword] = rule.keywords;
      const text = `${sample}\n`.repeat(20) + `${keyword}ab `.repeat(500) + sample;
      assert.ok(same(text, `${rule.id} after matches`) >= 1, rule.id);
    }
  }
});

Deno.test("redact-gate: attack — a secret glued to its own alphabet stays unfound behind a flood", () => {
  // The gate's look-behind must skip exactly what `notAfter` skips: not more (a secret after a
  // separator would be lost), not less (a token glued to `x` would now be redacted, where the
  // scan and gitleaks' `\b` do not).
  for (const rule of GATED) {
    for (const sample of rule.samples().match) {
      for (const glue of ["x", "7", "_", "-", ".", " ", "é"]) {
        for (const keyword of rule.keywords) {
          const i = sample.indexOf(keyword);
          if (i < 0) continue;
          const glued = sample.slice(0, i) + glue + sample.slice(i);
          same(`${keyword}ab `.repeat(400) + glued, `${rule.id} glued to ${glue}`);
          same(glue.repeat(400) + sample.slice(i), `${rule.id} after a run of ${glue}`);
        }
      }
    }
  }
});

Deno.test("redact-gate: attack — non-ASCII characters inside long runs are read as the class reads them", () => {
  // Past 16 characters a run is read by a pattern of its ASCII characters, then one character
  // at a time outside ASCII: a character the class accepts (é for a URL password) must not end
  // the run, one it refuses (U+00A0, \s) must, and a run ending exactly at a bound must stop.
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  let checked = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const n = 10 + (seed * 37) % 140;
    let password = fakeSecret(`p${seed}`, n, alphabet);
    const at = 16 + (seed % Math.max(1, n - 16));
    const odd = ["é", "\u00a0", "\u2028", "ﬀ", "\ud83d\ude00", "'"][seed % 6];
    password = password.slice(0, at) + odd + password.slice(at);
    const user = fakeSecret(`u${seed}`, 1 + (seed * 13) % 70, alphabet);
    const jwt = `eyJ${fakeSecret(`a${seed}`, 8 + seed * 11, alphabet)}${odd}.eyJ${
      fakeSecret(`b${seed}`, 20, alphabet)
    }.${fakeSecret(`c${seed}`, 16 + (seed % 20), alphabet)}`;
    for (const text of [`https://${user}:${password}@example.org/`, jwt, `ghp_${password}`]) {
      checked += 1;
      same(text, `seed ${seed}`);
      same(`://a:b@ `.repeat(50) + text, `seed ${seed} behind a flood`);
    }
  }
  assert.ok(checked >= 900);
});

Deno.test("redact-gate: floods of every keyword, cut samples and near misses agree with the reference", () => {
  // The bench's floods in small: one keyword repeated (one run, or separated), with samples
  // whole and cut spliced in at changing places.
  const samples = SECRET_RULES.flatMap((r) => r.samples().match);
  const keywords = [...new Set(SECRET_RULES.flatMap((r) => r.keywords))];
  let found = 0;
  keywords.forEach((keyword, i) => {
    for (const sep of ["", " ", ".", "\n", "=", ":"]) {
      const sample = samples[(i * 7 + sep.length) % samples.length];
      const cut = sample.slice(0, 5 + (i % 30));
      const flood = (keyword + sep).repeat(200);
      found += same(flood + sample + flood + cut + flood + sample, `${keyword}${sep}`);
    }
  });
  assert.ok(found > 50, `the floods hold secrets (${found})`);
});

Deno.test("redact-gate: attack — floods of overlapping secrets still go to the earlier rule", () => {
  // Overlaps are settled by a cursor over the earlier rules' spans instead of a map of every
  // character: a JWT inside an Authorization header, a key inside a URL password, a token in a
  // generic assignment, thousands of times and interleaved with misses, must be labelled as
  // the character map labelled them.
  const jwt = SECRET_RULES.find((r) => r.id === "jwt")!.samples().match[0];
  const ghp = `ghp_${fakeSecret("gate-ghp", 36)}`;
  const lines = [
    `Authorization: Bearer ${jwt.slice(jwt.indexOf("eyJ"))}`,
    `https://u:${ghp}@h/`,
    `token = ${ghp}`,
    `password = ${fakeSecret("gate-pw", 24)}`,
    "Authorization: Basic",
    "eyJaaaaaaaa.eyJaaaaaaaa.",
  ];
  let text = "";
  for (let i = 0; i < 3000; i++) text += lines[(i * 7) % lines.length] + (i % 3 ? "\n" : " ");
  assert.ok(same(text, "overlapping floods") > 1500);
});

Deno.test("redact-gate: attack — a secret among decoys just under, at and past the count that arms a case-sensitive rule's gate", () => {
  // ADR-113: a case-sensitive rule checks its candidates by the steps until 64 of them have
  // failed, and only then searches its gate. A secret right before, at or right after the
  // candidate that arms it, before and after a stretch of decoys the armed gate jumps over, and
  // with real matches that turn the gate off again in between, must be found as the reference
  // finds it.
  let found = 0, rules = 0;
  for (const rule of GATED.filter((r) => !r.ignoreCase)) {
    rules++;
    for (const sample of rule.samples().match) {
      // The secret from its keyword on, right after the last decoy (no room for a skip).
      const from = Math.min(...rule.keywords.map((k) => sample.indexOf(k)).filter((i) => i >= 0));
      const secret = sample.slice(from);
      for (const keyword of rule.keywords) {
        for (const decoy of [`${keyword}a `, `${keyword}-`]) {
          for (const before of [62, 63, 64, 65, 66]) {
            found += same(decoy.repeat(before) + secret + decoy.repeat(200) + secret, rule.id);
            found += same(
              decoy.repeat(before) + `${secret} `.repeat(12) + decoy.repeat(before) + secret,
              `${rule.id}, real matches between the decoys`,
            );
          }
        }
      }
    }
  }
  assert.ok(rules >= 10, `case-sensitive gated rules: ${rules}`);
  assert.ok(found > 500, `the decoys end in secrets (${found})`);
});
