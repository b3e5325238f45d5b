/**
 * Issue 9 names, family by family, the prefixes and kinds the rules must cover. The rules'
 * own samples (tests/unit/redact_test.ts) show two of each family; this walks every prefix
 * and kind the issue lists, so a rule that dropped one (`gho_`, `A3T…`, a DSA key) fails
 * here although its samples still pass. Built at test time: no secret-shaped literal.
 */

import assert from "node:assert/strict";
import { findSecrets, redactSecrets } from "../../src/secrets/find.ts";
import { ALNUM, BASE64, fakeSecret, UPPER_ALNUM } from "../../src/secrets/rule.ts";

/** `text` holds exactly one secret, found under `rule`, and none of `secret` survives redaction. */
function foundAs(rule: string, text: string, secret: string): void {
  assert.deepEqual(findSecrets(text).map((s) => s.rule), [rule], text);
  const out = redactSecrets(text);
  assert.ok(out.includes(`[redacted:${rule}]`), out);
  assert.ok(!out.includes(secret), `${rule} left ${secret} in: ${out}`);
}

Deno.test("redact: every AWS access-key prefix the issue names (AKIA ASIA ABIA ACCA A3T…)", () => {
  for (const prefix of ["AKIA", "ASIA", "ABIA", "ACCA", "A3TX", "A3T7"]) {
    const id = prefix + fakeSecret("fam-aws" + prefix, 16, UPPER_ALNUM);
    foundAs("aws-access-key-id", `aws_access_key_id = ${id}`, id);
  }
});

Deno.test("redact: every GitHub token prefix (ghp_ gho_ ghu_ ghs_ ghr_) and github_pat_", () => {
  for (const prefix of ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]) {
    const token = prefix + fakeSecret("fam-gh" + prefix, 36);
    foundAs("github-token", `export GH=${token}`, token);
  }
  const pat = `github_pat_${fakeSecret("fam-pat1", 22)}_${fakeSecret("fam-pat2", 59)}`;
  foundAs("github-fine-grained-pat", `export GH=${pat}`, pat);
});

Deno.test("redact: every Slack token kind (xoxb xoxp xoxa xoxo xoxs xoxr xoxe) and a webhook", () => {
  for (const kind of ["xoxb", "xoxp", "xoxa", "xoxo", "xoxs", "xoxr", "xoxe"]) {
    const token = `${kind}-${fakeSecret("fam-sl" + kind, 12, "0123456789")}-${
      fakeSecret("fam-sl2" + kind, 24)
    }`;
    foundAs("slack-token", `SLACK=${token}`, token);
  }
  const path = `T${fakeSecret("fam-sw1", 8)}/B${fakeSecret("fam-sw2", 8)}/${
    fakeSecret("fam-sw3", 24)
  }`;
  foundAs("slack-webhook", `url: https://hooks.slack.com/services/${path}`, path);
});

Deno.test("redact: OpenAI's key shapes (legacy, sk-proj-, sk-svcacct-, sk-admin-) and Anthropic's own label", () => {
  const urlsafe = ALNUM + "_-";
  for (const kind of ["proj", "svcacct", "admin"]) {
    const key = `sk-${kind}-${fakeSecret("fam-oa" + kind, 120, urlsafe)}`;
    foundAs("openai-api-key", `OPENAI_API_KEY=${key}`, key);
  }
  const legacy = `sk-${fakeSecret("fam-oal1", 20)}T3BlbkFJ${fakeSecret("fam-oal2", 20)}`;
  foundAs("openai-api-key", `key: ${legacy}`, legacy);
  // sk-ant- starts like an OpenAI key and sits in an OpenAI-named variable: its own label wins.
  for (const kind of ["api03", "admin01"]) {
    const key = `sk-ant-${kind}-${fakeSecret("fam-ant" + kind, 93, urlsafe)}AA`;
    foundAs("anthropic-api-key", `OPENAI_API_KEY=${key}`, key);
  }
});

Deno.test("redact: Stripe live secret and restricted keys, Google, npm, Hugging Face, GitLab", () => {
  for (const prefix of ["sk_live_", "rk_live_"]) {
    const key = prefix + fakeSecret("fam-st" + prefix, 24);
    foundAs("stripe-secret-key", `STRIPE=${key}`, key);
  }
  const google = "AIza" + fakeSecret("fam-goog", 35, ALNUM + "_-");
  foundAs("google-api-key", `maps_key: ${google}`, google);
  const npm = "npm_" + fakeSecret("fam-npm", 36);
  foundAs("npm-token", `NPM=${npm}`, npm);
  const hf = "hf_" + fakeSecret("fam-hf", 34);
  foundAs("huggingface-token", `HF=${hf}`, hf);
  const gitlab = "glpat-" + fakeSecret("fam-gl", 20);
  foundAs("gitlab-token", `GL=${gitlab}`, gitlab);
});

Deno.test("redact: .npmrc _authToken, _auth and _password lines", () => {
  for (const key of ["_authToken", "_auth", "_password"]) {
    const value = fakeSecret("fam-npmrc" + key, 40, BASE64);
    foundAs("npmrc-auth", `//registry.npmjs.org/:${key}=${value}`, value);
  }
});

Deno.test("redact: PEM private keys of every kind are withheld whole, markers included", () => {
  const body = (seed: string) =>
    Array.from({ length: 3 }, (_, i) => fakeSecret(seed + i, 64, BASE64)).join("\n");
  for (const kind of ["", "RSA ", "DSA ", "EC ", "OPENSSH ", "ENCRYPTED ", "PGP "]) {
    const tail = kind === "PGP " ? " BLOCK" : "";
    const lines = body("fam-pem" + kind);
    const block =
      `-----BEGIN ${kind}PRIVATE KEY${tail}-----\n${lines}\n-----END ${kind}PRIVATE KEY${tail}-----`;
    const text = `before\n${block}\nafter`;
    assert.equal(redactSecrets(text), "before\n[redacted:private-key]\nafter", kind || "PKCS#8");
    assert.deepEqual(findSecrets(text).map((s) => s.rule), ["private-key"]);
  }
});
