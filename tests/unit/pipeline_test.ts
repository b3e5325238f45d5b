import assert from "node:assert/strict";
import { shapeToolResult } from "../../src/content/pipeline.ts";
import { DEFAULT_REMEDIES, refusal } from "../../src/contract/refusal.ts";
import { textOf } from "../helpers/fixtures.ts";
import { readRefusal } from "../helpers/results.ts";

const AWS = "AKIA" + "ABCDEFGHIJKLMNOP";
const GH = "ghp_" + "a1B2c3D4e5".repeat(4);
const ON = { redactSecrets: true };
const OFF = { redactSecrets: false };

const FENCE =
  /<untrusted-file-content id=([0-9a-f]{32})>\n([\s\S]*?)<\/untrusted-file-content id=\1>/g;

Deno.test("pipeline: a refusal is an isError result whose text and _meta carry code and remedy", () => {
  const result = shapeToolResult(
    refusal("not_found", 'Nothing exists at that path in the workspace "ws".'),
    ON,
  );
  assert.deepEqual(readRefusal(result, "not_found"), {
    error: "not_found",
    message: 'Nothing exists at that path in the workspace "ws".',
    remedy: DEFAULT_REMEDIES.not_found,
  });
  assert.equal(
    textOf(result),
    `Refused (not_found): Nothing exists at that path in the workspace "ws".\nRemedy: ${DEFAULT_REMEDIES.not_found}`,
  );
  assert.doesNotMatch(textOf(result), /untrusted-file-content/);
});

Deno.test("pipeline: untrusted parts are fenced with one nonce, trusted parts are not", () => {
  const result = shapeToolResult({
    kind: "ok",
    parts: [
      { text: "header from the server", untrusted: false },
      { text: "file line 1\nfile line 2", untrusted: true },
      { text: "a trusted note", untrusted: false },
      { text: "more file text\n", untrusted: true },
    ],
    structured: { path: "a.txt" },
  }, ON);
  assert.equal(result.isError, undefined);
  const text = textOf(result);
  assert.equal(result.content.length, 1);
  const fences = [...text.matchAll(FENCE)];
  assert.equal(fences.length, 2);
  assert.equal(fences[0][1], fences[1][1], "one nonce per response");
  assert.equal(fences[0][2], "file line 1\nfile line 2\n");
  assert.equal(fences[1][2], "more file text\n");
  const outside = text.replace(FENCE, "");
  assert.ok(outside.startsWith("header from the server\n"));
  assert.match(outside, /a trusted note/);
  assert.doesNotMatch(outside, /file line/);
  assert.deepEqual(result.structuredContent, {
    path: "a.txt",
    untrusted_content: true,
    redactions: [],
  });
});

Deno.test("pipeline: each response gets a fresh nonce", () => {
  const raw = { kind: "ok" as const, parts: [{ text: "x", untrusted: true }], structured: {} };
  const a = [...textOf(shapeToolResult(raw, ON)).matchAll(FENCE)][0][1];
  const b = [...textOf(shapeToolResult(raw, ON)).matchAll(FENCE)][0][1];
  assert.notEqual(a, b);
});

Deno.test("pipeline: secrets are redacted in text and structured halves and audited", () => {
  const result = shapeToolResult({
    kind: "ok",
    parts: [
      { text: "read_file: lines 1-2 of 2.", untrusted: false },
      { text: `1\tkey=${AWS}\n2\ttoken=${GH}`, untrusted: true },
    ],
    structured: { content: `key=${AWS}\ntoken=${GH}\n`, meta: { list: [AWS] } },
  }, ON);
  const text = textOf(result);
  assert.ok(!text.includes(AWS) && !text.includes(GH), text);
  assert.ok(!JSON.stringify(result.structuredContent).includes(AWS));
  assert.ok(!JSON.stringify(result.structuredContent).includes(GH));
  assert.match(text, /1\tkey=\[REDACTED:aws_access_key_id\]\n2\ttoken=\[REDACTED:github_token\]/);
  const structured = result.structuredContent as Record<string, unknown>;
  assert.equal(
    structured.content,
    "key=[REDACTED:aws_access_key_id]\ntoken=[REDACTED:github_token]\n",
  );
  assert.deepEqual(structured.meta, { list: ["[REDACTED:aws_access_key_id]"] });
  assert.equal(structured.untrusted_content, true);
  // Two AWS keys (one in content, one in meta.list) and one GitHub token: the text half
  // shows the same file again, so it does not add to the count.
  assert.deepEqual(structured.redactions, [
    { kind: "aws_access_key_id", count: 2 },
    { kind: "github_token", count: 1 },
  ]);
  // The note is trusted (outside every fence) and names kinds and counts only.
  const outside = text.replace(FENCE, "");
  assert.match(outside, /\nRedacted: 2 × aws_access_key_id, 1 × github_token\.$/);
});

Deno.test("pipeline: one secret shown in both halves is counted once", () => {
  const result = shapeToolResult({
    kind: "ok",
    parts: [{ text: `1\t${AWS}`, untrusted: true }],
    structured: { content: `${AWS}\n` },
  }, ON);
  const structured = result.structuredContent as Record<string, unknown>;
  assert.deepEqual(structured.redactions, [{ kind: "aws_access_key_id", count: 1 }]);
  assert.match(textOf(result), /Redacted: 1 × aws_access_key_id\.$/);
});

Deno.test("pipeline: a secret only in the text half is still audited", () => {
  const result = shapeToolResult({
    kind: "ok",
    parts: [{ text: `name ${GH}`, untrusted: true }],
    structured: { count: 1 },
  }, ON);
  assert.deepEqual((result.structuredContent as Record<string, unknown>).redactions, [
    { kind: "github_token", count: 1 },
  ]);
});

Deno.test("pipeline: trusted parts are not passed through redaction", () => {
  const result = shapeToolResult({
    kind: "ok",
    parts: [{ text: `trusted ${AWS}`, untrusted: false }],
    structured: {},
  }, ON);
  assert.equal(textOf(result), `trusted ${AWS}`);
  assert.deepEqual((result.structuredContent as Record<string, unknown>).redactions, []);
});

Deno.test("pipeline: with redaction off, secrets pass through and nothing is audited", () => {
  const result = shapeToolResult({
    kind: "ok",
    parts: [{ text: `key=${AWS}`, untrusted: true }],
    structured: { content: `key=${AWS}` },
  }, OFF);
  const text = textOf(result);
  assert.ok(text.includes(`key=${AWS}`));
  assert.doesNotMatch(text, /Redacted:/);
  assert.deepEqual(result.structuredContent, {
    content: `key=${AWS}`,
    untrusted_content: true,
    redactions: [],
  });
  assert.equal([...text.matchAll(FENCE)].length, 1, "still fenced");
});
