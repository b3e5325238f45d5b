/**
 * The per-match shortcuts of ADR-087 (the `secret` group read as an unnamed capture, the last
 * value's verdict compared before the map, each rule's marker built once per run of its spans,
 * the PEM header regex tried only at a letter) change what a flood of matches costs, never what
 * is redacted: each attack is compared with the finder before ADR-070
 * (tests/helpers/secrets_reference.ts).
 */

import assert from "node:assert/strict";
import { SECRET_RULES } from "../../src/secrets/catalogue.ts";
import { groupEndsPattern, redactSecrets } from "../../src/secrets/find.ts";
import { fakeSecret, isBlockRule, type PatternRule } from "../../src/secrets/rule.ts";
import * as reference from "../helpers/secrets_reference.ts";
import { mulberry32 } from "../helpers/random.ts";
import { sameAsReference } from "../helpers/secrets_oracle.ts";

const same = sameAsReference;

const GROUPED = SECRET_RULES.filter((r): r is PatternRule =>
  !isBlockRule(r) && r.pattern.source.includes("(?<secret>")
);

Deno.test("redact-flood: attack — a pattern with another capturing group keeps its named secret, not capture 1", () => {
  // Reading capture 1 instead of the named group is exact only when the secret is the
  // pattern's one capturing group; a rule with a group before it must still report the group.
  const rule: PatternRule = {
    id: "two-groups",
    description: "test rule",
    keywords: ["key"],
    pattern: /key(a|b)=(?<secret>[0-9]{6})/y,
    samples: () => ({ match: [], noMatch: [] }),
  };
  const spans = same("x keyb=123456 keya=654321", "two groups", [rule]);
  assert.deepEqual(spans.map((s) => [s.start, s.end]), [[7, 13], [19, 25]]);
  // And a secret that also occurs earlier in the match is placed at its last occurrence.
  const echo: PatternRule = { ...rule, id: "echo", pattern: /key=[0-9]{6}:(?<secret>[0-9]{6})/y };
  const [span] = same("key=123456:123456", "echo", [echo]);
  assert.deepEqual([span.start, span.end], [11, 17]);
  assert.ok(GROUPED.length >= 8, "the catalogue's grouped rules are covered below");
});

Deno.test("redact-flood: attack — a real secret between floods of one placeholder is judged on its own value", () => {
  // The last value's verdict is reused only for an equal value: a secret after 2,000 copies of
  // a rejected one, or alternating with it, must still be redacted, and a placeholder after a
  // flood of real secrets must not.
  for (const rule of GROUPED) {
    for (const sample of rule.samples().match) {
      for (const decoy of rule.samples().noMatch) {
        const flood = `${decoy}\n`.repeat(2000) + sample + "\n";
        assert.ok(same(flood, `${rule.id} after ${decoy}`).length >= 1, rule.id);
        same(`${sample}\n${decoy}\n`.repeat(300), `${rule.id} alternating`);
        same(`${sample}\n`.repeat(300) + decoy, `${rule.id} placeholder after matches`);
      }
    }
  }
});

Deno.test("redact-flood: attack — floods of matches of several rules get each rule's own marker", () => {
  // Markers are built once per run of one rule's spans: two rules interleaved must each keep
  // their label, and the counts must be the reference's.
  const ghp = `ghp_${fakeSecret("flood-ghp", 36)}`;
  const auth = `Authorization: Bearer ${fakeSecret("flood-auth", 40)}`;
  const pem = "-----BEGIN RSA PRIVATE KEY-----\n";
  const text = `${ghp} ${auth} ${pem.trim()} ;\n`.repeat(500) + `${ghp}\n`.repeat(50) +
    pem.repeat(50);
  const counts = new Map<string, number>(), expected = new Map<string, number>();
  assert.equal(redactSecrets(text, counts), reference.redactSecrets(text, expected));
  assert.deepEqual([...counts].sort(), [...expected].sort());
  assert.equal(counts.get("github-token"), 550);
  assert.equal(counts.get("http-authorization"), 500);
  // PEM opening lines glued to header-like and lowercase lines: the header regex is tried only
  // where a line starts with a letter, as a header line does.
  for (
    const next of ["Proc-Type: 4,ENCRYPTED\n", "proc-type: 4\n", "-----END RSA PRIVATE KEY-----\n"]
  ) {
    same(`${pem}${next}`.repeat(200) + `${pem}${fakeSecret("pem", 64)}\n`, `pem then ${next}`);
  }
});

Deno.test("redact-flood: attack — a secret group followed by more pattern is looked up in the match, not placed at its end", () => {
  // A secret that ends the pattern starts `secret.length` before the match's end; one followed
  // by anything (url-credentials' `@`, an escaped paren, a second group) must not be placed so.
  const ends = (source: string) => groupEndsPattern(source, source.indexOf("(?<secret>"));
  const tails = GROUPED.filter((r) => ends(r.pattern.source)).map((r) => r.id);
  assert.deepEqual(GROUPED.filter((r) => !tails.includes(r.id)).map((r) => r.id), [
    "url-credentials",
  ]);
  assert.equal(ends(String.raw`a(?<secret>[)\]]{3})`), true);
  assert.equal(ends(String.raw`a(?<secret>x\))`), true);
  assert.equal(ends(String.raw`a(?<secret>x)\)`), false);
  assert.equal(ends(String.raw`a(?<secret>x)(y)`), false);
  assert.equal(ends(String.raw`a(?<secret>x(?:y))z`), false);
  assert.equal(ends(String.raw`a(?<secret>x[(]))`), false);
  // The same secret twice in a match: placed at its last occurrence either way.
  const rule: PatternRule = {
    id: "twice",
    description: "test rule",
    keywords: ["k="],
    pattern: /k=(?<secret>[0-9]{4}):[0-9]{4}|k=[0-9]{4}=(?<secret>[0-9]{4})/y,
    samples: () => ({ match: [], noMatch: [] }),
  };
  same("k=1234=1234 k=5678:5678", "twice", [rule]);
});

const TAILED = SECRET_RULES.filter((r): r is PatternRule =>
  !isBlockRule(r) && !!r.follows?.some((step) => "literal" in step)
);

Deno.test("redact-flood: attack — a secret after near misses whose tail is missing, short or out of reach is found", () => {
  // The tail probe lets the scan give up where no tail follows and jump to the last candidate
  // that can still reach the next one: a reach one character too short, a probe one character
  // too demanding, or a jump past a candidate would lose the secret. Texts are built from each
  // rule's keywords, literals and runs at their bounds (min − 1, min, max, max + 1).
  assert.deepEqual(TAILED.map((r) => r.id).sort(), [
    "discord-webhook",
    "jwt",
    "sendgrid-api-key",
    "url-credentials",
  ]);
  const random = mulberry32(87);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  let found = 0;
  for (const rule of TAILED) {
    const steps = rule.follows!;
    const pieces: string[] = [...rule.keywords, " ", "\n", "x"];
    for (const step of steps) {
      if ("literal" in step) pieces.push(step.literal);
      else {
        const char = ALPHABET.find((c) => step.chars.test(c))!;
        for (const n of [step.min - 1, step.min, step.max ?? step.min + 40, (step.max ?? 0) + 1]) {
          if (n > 0) pieces.push(char.repeat(n));
        }
      }
    }
    const samples = rule.samples().match;
    for (let i = 0; i < 120; i++) {
      let text = "";
      const n = 5 + Math.floor(random() * 40);
      for (let j = 0; j < n; j++) text += random() < 0.04 ? pick(samples) : pick(pieces);
      found += same(text, `${rule.id} #${i}`).length;
      found += same(pick(rule.keywords).repeat(300) + text + pick(samples), rule.id).length;
    }
    // Near misses with no tail at all, then the secret.
    for (const sample of samples) {
      for (const keyword of rule.keywords) {
        same(`${keyword}${pieces.at(-2)}`.repeat(1000) + sample, `${rule.id} no tail`);
      }
    }
  }
  assert.ok(found > 200, `the texts hold secrets (${found})`);
});

const ALPHABET = "a0A_-.:/@=+%~!$&'*,;".split("");
