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
import { xorshift32 } from "../helpers/random.ts";

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

Deno.test("redact-split: attack — generated catalogue leads, separators, schemes and values, floods past the split's guard, agree with the reference", () => {
  // Red team of ADR-131 (06:00 UTC round): every split rule's keywords in upper, lower and mixed
  // case, `Proxy-`, `==`, `:=`, quotes, CR/LF and tabs between lead and value, schemes glued or
  // spaced, values too short, just long enough, 40 and 86+2 (aws, azure) or 4,000+ long, and
  // floods of one item repeated past SPLIT_TRIAL before the next; with the catalogue, three rules
  // whose lead's first reading is a wrong one (the `exec` after a failed value decides) and one
  // that must not be split (`kq|k(x)`: its matches need not end with the group).
  const rules = [
    ...SECRET_RULES,
    rule("optional", /k(?:a)?(?<secret>a[a-z]{2})/y),
    rule("lazy", /k[a-z]{0,4}?=?(?<secret>=[0-9]{4})/y),
    rule("greedy", /k[a-z]{0,8}(?<secret>[a-z][0-9]{3})/y),
    rule("alternation", /kq|k(?<secret>z[0-9]{3})/y),
  ];
  const random = xorshift32(131);
  const next = () => Math.floor(random() * 2 ** 32);
  const pick = <T>(list: readonly T[]) => list[next() % list.length];
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const run = (n: number, alphabet = B64 + "._~-=") => {
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[next() % alphabet.length];
    return s;
  };
  const leads = [
    "Authorization",
    "AUTHORIZATION",
    "Proxy-Authorization",
    "proxy-AUTHORIZATION",
    "X-Authorization",
    "password",
    "passwd",
    "SECRET",
    "token",
    "apikey",
    "db_key",
    "-key",
    "credentials",
    "my.token-name",
    "_authToken",
    "_auth",
    "_password",
    "access_key",
    "aws_secret_key",
    "AccountKey",
    "hooks.slack.com/services/",
    "/api/webhooks/12345678901234567/",
    "://user:",
    "k",
    "ka",
    "kq",
    "kabcd",
  ];
  const separators = [
    "",
    ":",
    "=",
    ":=",
    "=>",
    "==",
    " = ",
    ": ",
    '":"',
    "': '",
    '="',
    "\r\n",
    "\t=\t",
  ];
  const schemes = [
    "",
    "",
    "Bearer ",
    "bearer",
    "BASIC ",
    "token\t",
    "Bearer    ",
    "Bearer bearer ",
  ];
  const value = () =>
    [
      () => run(next() % 14),
      () => "abc" + run(next() % 3, "abcz0123"),
      () => "z" + run(3, "0123456789"),
      () => "=" + run(4, "0123456789"),
      () => run(40, B64),
      () => run(86, B64) + "==",
      () => run(64, B64.slice(0, 62) + "_-"),
      () => run(4_000 + (next() % 200)),
      () => "xxxxxxxxxxxxxxxx",
      () => run(8 + (next() % 40)),
    ][next() % 10]();
  const item = () => {
    let lead = pick(leads);
    if (next() % 5 === 0) lead = [...lead].map((c) => next() % 3 ? c : c.toUpperCase()).join("");
    const text = lead + pick(separators) + pick(schemes) + value();
    return lead === "://user:" ? text + pick(["@host", "@", ""]) : text;
  };
  // `kq` is a whole match of the alternation, not a lead before `z123` (which the greedy rule
  // finds on its own); the reference has the three spans.
  assert.deepEqual(same("kqz123 kz123", "alternation", rules).map((s) => [s.start, s.end]), [
    [0, 2],
    [2, 6],
    [8, 12],
  ]);
  let spans = 0;
  for (let n = 0; n < 150; n++) {
    let text = "";
    for (let i = 1 + (next() % 12); i > 0; i--) {
      const one = item() + pick(["\n", " ", ";", "\r\n", ", "]);
      text += next() % 4 === 0 ? one.repeat(1 + (next() % 40)) : one;
    }
    spans += same(text, `case ${n}`, rules).length;
  }
  // The generator must reach what it attacks: the cases hold secrets to find.
  assert.ok(spans > 500, `${spans} spans`);
});
