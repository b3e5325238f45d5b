import assert from "node:assert/strict";
import { REDACTION_RULES, Redactor } from "../../src/content/redact.ts";

// Samples are assembled at run time so the repository itself holds no secret-shaped strings.
const alnum = (n: number) => "aB3dE5gH7jK9mN1pQ2sT4vW6yZ8".repeat(20).slice(0, n);
const upper = (n: number) => "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".repeat(10).slice(0, n);

/** kind → [a sample that must be redacted, a near miss that must not]. */
const SAMPLES: Record<string, [string, string]> = {
  private_key: [
    ["-----BEGIN RSA PRIVATE KEY-----", alnum(64), "-----END RSA PRIVATE KEY-----"].join("\n"),
    ["-----BEGIN PUBLIC KEY-----", alnum(64), "-----END PUBLIC KEY-----"].join("\n"),
  ],
  aws_access_key_id: ["AKIA" + upper(16), "AKIA" + upper(15)],
  github_token: ["ghp_" + alnum(36), "ghp_" + alnum(35)],
  gitlab_token: ["glpat-" + alnum(20), "glpat-" + alnum(19)],
  slack_token: ["xoxb-" + alnum(12), "xoxz-" + alnum(12)],
  stripe_secret_key: ["sk_live_" + alnum(24), "sk_test_" + alnum(24)],
  google_api_key: ["AIza" + alnum(35), "AIza" + alnum(34)],
  npm_token: ["npm_" + alnum(36), "npm_" + alnum(35)],
  openai_api_key: [
    "sk-proj-" + alnum(20) + "T3BlbkFJ" + alnum(20),
    "sk-proj-" + alnum(20) + "XXXXXXXX" + alnum(20),
  ],
  anthropic_api_key: ["sk-ant-" + alnum(32), "sk-ant-" + alnum(31)],
  jwt: [
    "eyJ" + alnum(12) + ".eyJ" + alnum(12) + "." + alnum(20),
    "eyJ" + alnum(12) + ".eyJ" + alnum(12),
  ],
};

Deno.test("redact: there is a sample for every built-in rule", () => {
  assert.deepEqual(Object.keys(SAMPLES).sort(), REDACTION_RULES.map((r) => r.kind).sort());
  for (const rule of REDACTION_RULES) assert.ok(rule.pattern.global, `${rule.kind} is global`);
});

for (const [kind, [positive, negative]] of Object.entries(SAMPLES)) {
  Deno.test(`redact: ${kind} is replaced and counted; its near miss is left alone`, () => {
    const redactor = new Redactor();
    const out = redactor.redact(`before ${positive} after`);
    assert.equal(out, `before [REDACTED:${kind}] after`);
    assert.deepEqual(redactor.audit(), [{ kind, count: 1 }]);

    const clean = new Redactor();
    const text = `before ${negative} after`;
    assert.equal(clean.redact(text), text);
    assert.deepEqual(clean.audit(), []);
  });
}

Deno.test("redact: the audit counts every match across calls, sorted by kind", () => {
  const redactor = new Redactor();
  const aws = SAMPLES.aws_access_key_id[0];
  const gh = SAMPLES.github_token[0];
  assert.equal(
    redactor.redact(`${aws} and ${aws}`),
    "[REDACTED:aws_access_key_id] and [REDACTED:aws_access_key_id]",
  );
  redactor.redact(`token=${gh}`);
  redactor.redact("nothing here");
  assert.deepEqual(redactor.audit(), [
    { kind: "aws_access_key_id", count: 2 },
    { kind: "github_token", count: 1 },
  ]);
});

Deno.test("redact: a secret is never repeated in the audit", () => {
  const redactor = new Redactor();
  const secret = SAMPLES.npm_token[0];
  redactor.redact(secret);
  assert.ok(!JSON.stringify(redactor.audit()).includes(secret));
});

Deno.test("redact: the same global pattern works on consecutive calls", () => {
  const redactor = new Redactor();
  const aws = SAMPLES.aws_access_key_id[0];
  for (let i = 0; i < 3; i++) assert.equal(redactor.redact(aws), "[REDACTED:aws_access_key_id]");
  assert.deepEqual(redactor.audit(), [{ kind: "aws_access_key_id", count: 3 }]);
});

Deno.test("redact: redactDeep redacts every string in nested objects and arrays", () => {
  const redactor = new Redactor();
  const aws = SAMPLES.aws_access_key_id[0];
  const slack = SAMPLES.slack_token[0];
  const input = {
    path: "notes.txt",
    size: 12,
    ok: true,
    none: null,
    entries: [{ name: `key-${aws}` }, { name: "plain", tags: ["x", slack] }],
    nested: { deeper: { value: `a ${aws} b` } },
  };
  const out = redactor.redactDeep(input);
  assert.deepEqual(out, {
    path: "notes.txt",
    size: 12,
    ok: true,
    none: null,
    entries: [
      { name: "key-[REDACTED:aws_access_key_id]" },
      { name: "plain", tags: ["x", "[REDACTED:slack_token]"] },
    ],
    nested: { deeper: { value: "a [REDACTED:aws_access_key_id] b" } },
  });
  assert.equal(input.nested.deeper.value, `a ${aws} b`, "the input is not modified");
  assert.deepEqual(redactor.audit(), [
    { kind: "aws_access_key_id", count: 2 },
    { kind: "slack_token", count: 1 },
  ]);
});

Deno.test("redact: a private key spanning many lines is one redaction", () => {
  const redactor = new Redactor();
  const key = [
    "-----BEGIN OPENSSH PRIVATE KEY-----",
    ...Array.from({ length: 20 }, () => alnum(70)),
    "-----END OPENSSH PRIVATE KEY-----",
  ].join("\n");
  assert.equal(redactor.redact(`x\n${key}\ny`), "x\n[REDACTED:private_key]\ny");
  assert.deepEqual(redactor.audit(), [{ kind: "private_key", count: 1 }]);
});

Deno.test("redact: a custom rule set replaces the built-in one", () => {
  const redactor = new Redactor([{ kind: "word", pattern: /\bsecret\b/g }]);
  assert.equal(
    redactor.redact("a secret and " + SAMPLES.npm_token[0]),
    "a [REDACTED:word] and " + SAMPLES.npm_token[0],
  );
});
