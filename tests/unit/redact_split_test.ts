/**
 * ADR-131: a pattern whose `secret` group ends it is tried as two sticky `test`s, the part
 * before the group (the lead) and the group (the value), and `exec` only where the value fails
 * after the lead's first reading. That changes what a match costs, never what is redacted: each
 * attack is compared with the finder before ADR-070 (tests/helpers/secrets_reference.ts), and
 * the rules built here make the lead's first reading a wrong one, so a finder that trusted it
 * (no `exec` after the value fails) misses their secrets.
 */

import assert from "node:assert/strict";
import { SECRET_RULES } from "../../src/secrets/catalogue.ts";
import { findSecrets, splitAt } from "../../src/secrets/find.ts";
import { fakeSecret, isBlockRule, type PatternRule } from "../../src/secrets/rule.ts";
import { sameAsReference as same } from "../helpers/secrets_oracle.ts";

const rule = (id: string, pattern: RegExp, keywords = ["k"]): PatternRule => ({
  id,
  description: "test rule",
  keywords,
  pattern,
  samples: () => ({ match: [], noMatch: [] }),
});

Deno.test("redact-split: attack — a lead whose first reading leaves no value still finds the pattern's later reading", () => {
  // `k(?:a)?` reads `ka` first; at `kabc` the value (`a..`) then fails at `b`, and only the
  // reading `k` + `abc` matches. A finder that took the lead's end as the secret's start would
  // redact nothing here.
  const optional = rule("optional", /k(?:a)?(?<secret>a[a-z]{2})/y);
  const [span] = same("x kabc y", "optional lead", [optional]);
  assert.deepEqual([span.start, span.end], [3, 6]);
  // The same with a lazy run (as generic-secret's name run) and a bounded greedy one.
  const lazy = rule("lazy", /k[a-z]{0,4}?=?(?<secret>=[0-9]{4})/y);
  assert.deepEqual(same("k==1234", "lazy lead", [lazy]).map((s) => [s.start, s.end]), [[2, 7]]);
  const greedy = rule("greedy", /k[a-z]{0,8}(?<secret>[a-z][0-9]{3})/y);
  assert.deepEqual(same("kabcd123", "greedy lead", [greedy]).map((s) => [s.start, s.end]), [
    [4, 8],
  ]);
});

Deno.test("redact-split: attack — a flood of wrong first readings, then real ones, is found whole", () => {
  // The scan stops trying the split once its value has failed often (a flood of near misses);
  // before and after that point, and when matches follow the flood, every secret is found.
  const optional = rule("optional", /k(?:a)?(?<secret>a[a-z]{2})/y);
  for (const n of [1, 15, 16, 17, 40, 500]) {
    const text = "kabc ".repeat(n) + "kaabc ".repeat(n) + "kab ".repeat(n) + "kabc\n";
    const spans = same(text, `flood of ${n}`, [optional]);
    assert.equal(spans.length, 2 * n + 1, `flood of ${n}`);
  }
  // Near misses of the catalogue (the lead matches, the value does not) between real secrets.
  const bearer = `Authorization: Bearer ${fakeSecret("split-bearer", 40)}`;
  const token = `token = ${fakeSecret("split-token", 24)}x9`;
  for (const miss of ["Authorization: Bearer x", "token = abc", "authorization==a", "apikey: ''"]) {
    same(`${miss}\n`.repeat(300) + `${bearer}\n${token}\n`, `after ${miss}`);
    same(`${bearer}\n${miss}\n${token}\n`.repeat(200), `alternating ${miss}`);
  }
});

Deno.test("redact-split: attack — Authorization near misses where the scheme, quotes or `=` shift the secret", () => {
  // `=` is in the secret's class and after `[:=]`; a scheme needs a space; quotes are optional:
  // where the secret starts is the pattern's choice, checked against the reference.
  const value = fakeSecret("split-auth", 20);
  for (
    const text of [
      `authorization==${value}`,
      `authorization:=${value}`,
      `Authorization: bearer${value}`,
      `Authorization: Bearer    ${value}`,
      `Authorization: Bearer \t${value}`,
      `"authorization": "Basic ${value}"`,
      `Proxy-Authorization: token ${value}`,
      `Authorization: Bearer bearer ${value}`,
      `Authorization: digest ${value.slice(0, 11)}`,
      `authorization ${value}`,
    ]
  ) {
    same(text, text);
    same(`${text}\n`.repeat(100), `flood of ${text}`);
  }
});

Deno.test("redact-split: the catalogue's rules whose secret ends the pattern are split, the others not", () => {
  // The split applies where the group ends the pattern and nothing outside a group alternates
  // with it; `a|(x)` must not be split (its matches need not end with the group).
  assert.equal(splitAt("a|(x)", 2, "y"), undefined);
  assert.equal(splitAt("(?:a|b)c(x)", 8, "y")?.lead.source, "(?:a|b)c");
  assert.equal(splitAt("[|(]c(x)", 5, "y")?.value.source, "(?:x)");
  const split = SECRET_RULES.filter((r): r is PatternRule => !isBlockRule(r)).filter((r) => {
    const open = r.pattern.source.indexOf("(?<secret>");
    return open >= 0 && r.pattern.source.endsWith(")") &&
      splitAt(r.pattern.source.replace("(?<secret>", "("), open, "y") !== undefined;
  }).map((r) => r.id);
  for (const id of ["http-authorization", "generic-secret", "npmrc-auth"]) {
    assert.ok(split.includes(id), id);
  }
  // And every match sample of the catalogue is still found exactly once, where the reference has it.
  for (const r of SECRET_RULES) {
    for (const sample of r.samples().match) {
      assert.equal(same(sample, r.id).length, 1, r.id);
      assert.equal(findSecrets(`${sample}\n`.repeat(50)).length, 50, r.id);
    }
  }
});
