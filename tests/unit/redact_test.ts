import assert from "node:assert/strict";
import { SECRET_RULES } from "../../src/secrets/catalogue.ts";
import { findSecrets, redactSecrets } from "../../src/secrets/find.ts";
import { LineSecrets } from "../../src/secrets/cut.ts";
import {
  fakeSecret,
  isBlockRule,
  isPlaceholder,
  type PatternRule,
  shannonEntropy,
} from "../../src/secrets/rule.ts";
import { Redactor } from "../../src/content/redact.ts";

Deno.test("redact: rule ids are unique, lowercase and every rule has samples of both kinds", () => {
  const ids = SECRET_RULES.map((r) => r.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const rule of SECRET_RULES) {
    assert.match(rule.id, /^[a-z0-9]+(?:-[a-z0-9]+)*$/);
    assert.ok(rule.description.length > 10, rule.id);
    assert.ok(rule.keywords.length > 0, rule.id);
    const samples = rule.samples();
    assert.ok(samples.match.length >= 2, `${rule.id}: at least two real-shaped samples`);
    assert.ok(samples.noMatch.length >= 2, `${rule.id}: at least two near misses`);
  }
});

for (const rule of SECRET_RULES) {
  Deno.test(`redact: ${rule.id} finds its samples under its own label and none of its near misses`, () => {
    const { match, noMatch } = rule.samples();
    for (const sample of match) {
      const found = findSecrets(sample);
      assert.deepEqual(found.map((s) => s.rule), [rule.id], `${rule.id} in ${sample}`);
      const out = redactSecrets(sample);
      assert.ok(out.includes(`[redacted:${rule.id}]`));
      // Only the secret is replaced: the text before it survives.
      assert.ok(out.startsWith(sample.slice(0, found[0].start)));
      // What the rule found is secret material: it is gone from the output.
      assert.ok(!out.includes(sample.slice(found[0].start, found[0].end)));
    }
    for (const sample of noMatch) {
      assert.deepEqual(findSecrets(sample), [], `${rule.id}: ${sample}`);
    }
  });
}

/** Unescaped `*`, `+` or `{n,}` outside a character class: an unbounded quantifier. */
function unboundedQuantifiers(source: string): string[] {
  const found: string[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "*" || (c === "+" && source[i - 1] !== "?")) found.push(`${c} at ${i}`);
    else if (c === "{" && /^\{\d+,\}/.test(source.slice(i))) found.push(`{n,} at ${i}`);
  }
  return found;
}

Deno.test("redact: every pattern's quantifiers are bounded (the linear-time shape)", () => {
  for (const rule of SECRET_RULES) {
    const patterns = isBlockRule(rule) ? [rule.begin, rule.end] : [(rule as PatternRule).pattern];
    for (const re of patterns) {
      assert.deepEqual(unboundedQuantifiers(re.source), [], `${rule.id}: ${re.source}`);
      assert.ok(re.sticky, `${rule.id} is sticky: tried only at a keyword`);
    }
  }
  assert.deepEqual(unboundedQuantifiers("a[+*]{2,5}\\+"), [], "the checker ignores classes");
  assert.equal(unboundedQuantifiers("a+b*c{3,}").length, 3, "the checker finds + * {n,}");
});

Deno.test("redact: no pattern holds a lookaround or a backreference", () => {
  // V8's linear engine refuses both (and also counted repetitions as large as a token's, so it
  // cannot vouch for these patterns; the bounded shape above and the benchmark on hostile input
  // in scripts/bench_content.ts do). Lookarounds are the rule's notAfter / notBefore tables.
  for (const rule of SECRET_RULES) {
    const patterns = isBlockRule(rule) ? [rule.begin, rule.end] : [(rule as PatternRule).pattern];
    for (const re of patterns) {
      assert.doesNotMatch(re.source, /\(\?<?[=!]|\\[1-9]|\\k</, `${rule.id}: ${re.source}`);
    }
  }
});

Deno.test("redact: a more specific rule is not shadowed by a generic one", () => {
  const anthropic = "sk-ant-api03-" + fakeSecret("shadow", 93) + "AA";
  assert.deepEqual(findSecrets(`OPENAI_API_KEY=${anthropic}`).map((s) => s.rule), [
    "anthropic-api-key",
  ]);
  const gh = "ghp_" + fakeSecret("shadow2", 36);
  assert.deepEqual(findSecrets(`token = "${gh}"`).map((s) => s.rule), ["github-token"]);
  const jwt = `eyJ${fakeSecret("a", 20)}.eyJ${fakeSecret("b", 30)}.${fakeSecret("c", 40)}`;
  assert.deepEqual(findSecrets(`Authorization: Bearer ${jwt}`).map((s) => s.rule), ["jwt"]);
});

Deno.test("redact: [redacted:RULE] replaces only the secret; names, hosts and users stay", () => {
  const pw = fakeSecret("pw", 18);
  assert.equal(
    redactSecrets(`DATABASE_URL=postgres://app:${pw}@db.internal:5432/app`),
    "DATABASE_URL=postgres://app:[redacted:url-credentials]@db.internal:5432/app",
  );
  const value = fakeSecret("gv", 24, "ABCDEFGHJKabcdefgh23456789#%");
  assert.equal(
    redactSecrets(`db_password = "${value}"`),
    'db_password = "[redacted:generic-secret]"',
  );
});

Deno.test("redact: placeholders are kept", () => {
  for (
    const text of [
      'password = "changeme"',
      "api_key: REPLACE_ME",
      "token = <your-token>",
      "api_key = <your-key>",
      "secret: xxxxxxxxxxxxxxxx",
      "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
      "password: ${DB_PASSWORD}",
      "api_key = 'example-api-key-1234'",
    ]
  ) assert.deepEqual(findSecrets(text), [], text);
  assert.ok(isPlaceholder("REPLACE_ME") && isPlaceholder("xxxx") && !isPlaceholder("k8Jq2Lm9"));
});

Deno.test("redact: entropy is Shannon's, in bits per character", () => {
  assert.equal(shannonEntropy(""), 0);
  assert.equal(shannonEntropy("aaaa"), 0);
  assert.equal(shannonEntropy("abab"), 1);
  assert.equal(shannonEntropy("abcd"), 2);
  assert.ok(Math.abs(shannonEntropy("aé") - 1) < 1e-9);
});

Deno.test("redact: a private key spanning many lines is one redaction, markers included", () => {
  const key = [
    "-----BEGIN OPENSSH PRIVATE KEY-----",
    ...Array.from({ length: 20 }, (_, i) => fakeSecret("k" + i, 70)),
    "-----END OPENSSH PRIVATE KEY-----",
  ].join("\n");
  const counts = new Map<string, number>();
  assert.equal(redactSecrets(`x\n${key}\ny`, counts), "x\n[redacted:private-key]\ny");
  assert.deepEqual([...counts], [["private-key", 1]]);
});

Deno.test("redact: a private key without its END line is still withheld to the end of its body", () => {
  const body = Array.from({ length: 5 }, (_, i) => fakeSecret("t" + i, 64)).join("\n");
  const text = `-----BEGIN RSA PRIVATE KEY-----\n${body}\n\nnext paragraph: hello`;
  assert.equal(redactSecrets(text), "[redacted:private-key]\n\nnext paragraph: hello");
});

Deno.test("redact: the secrets a line window shows are their pieces on each line, whole or cut", () => {
  const lines = Array.from({ length: 4 }, (_, i) => fakeSecret("c" + i, 64));
  const source = [
    "# deploy key",
    "-----BEGIN RSA PRIVATE KEY-----",
    ...lines,
    "-----END RSA PRIVATE KEY-----",
    "done",
    `token = ${fakeSecret("tk", 24, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789")}`,
  ].join("\n") + "\n";
  const secrets = new LineSecrets(source);
  assert.deepEqual(secrets.on(3, 4), [{
    rule: "private-key",
    id: 0,
    whole: false,
    pieces: [{ line: 3, start: 0, end: 64 }, { line: 4, start: 0, end: 64 }],
  }]);
  assert.deepEqual(secrets.on(1, 8, { cutOnly: true }), [], "the whole block is in the window");
  assert.deepEqual(secrets.on(1, 8).map((s) => [s.id, s.whole, s.pieces.length]), [[0, true, 6]]);
  assert.deepEqual(secrets.on(8, 8), [], "the window holds none of a secret");
  assert.deepEqual(secrets.on(1, 3).map((c) => c.pieces.length), [2]);
  // The END line cut after 10 characters: only what is returned is a piece.
  assert.deepEqual(secrets.on(7, 7, { lastLineChars: 10 })[0].pieces, [
    { line: 7, start: 0, end: 10 },
  ]);
  // A secret on a later line keeps its own id and its columns within its line.
  const [token] = secrets.on(9, 9);
  assert.equal(token.id, 1);
  assert.equal(token.whole, true);
  assert.deepEqual(token.pieces, [{ line: 9, start: 8, end: 32 }]);
  assert.deepEqual(secrets.on(20, 30), [], "past the end");
});

Deno.test("redact: Redactor counts across calls and redactDeep reaches every string", () => {
  const aws = "AKIA" + fakeSecret("r", 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567");
  const redactor = new Redactor();
  const out = redactor.redactDeep({ a: [aws, { b: `k=${aws}` }], n: 1, t: true, z: null });
  assert.deepEqual(out, {
    a: ["[redacted:aws-access-key-id]", { b: "k=[redacted:aws-access-key-id]" }],
    n: 1,
    t: true,
    z: null,
  });
  redactor.redact(aws);
  assert.deepEqual([...redactor.counts], [["aws-access-key-id", 3]]);
  assert.ok(!JSON.stringify([...redactor.counts]).includes(aws), "the audit never holds a secret");
});
