/**
 * `ReadCache` and the shaping it keeps (ADR-081), without files: when a read
 * is told to keep, what is kept and for how long, and which shapings are
 * refused as templates (a nonce that shows outside the fence markers would
 * be repeated in every later answer).
 */

import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { RawToolResult } from "../../src/contract/result.ts";
import { refenced, templateOf } from "../../src/protocol/shape.ts";
import { ReadCache } from "../../src/tools/read_cache.ts";

const raw = (text: string): RawToolResult => ({
  kind: "ok",
  parts: [
    { text: "header", untrusted: false },
    { text, untrusted: true, label: "file-content" },
  ],
  structured: { content: text },
});

const NONCE = "0123456789abcdef0123456789abcdef";
const shaped = (body: string, structured: Record<string, unknown> = {}): CallToolResult => ({
  content: [{
    type: "text",
    text:
      `header\n<untrusted-file-content id=${NONCE}>\n${body}\n</untrusted-file-content id=${NONCE}>`,
  }],
  structuredContent: { content: body, ...structured },
});

Deno.test("read cache: a key is read, then kept on its second miss, then reused", () => {
  const cache = new ReadCache(1 << 20);
  assert.equal(cache.probe("k"), "read");
  assert.equal(cache.probe("k"), "keep");
  const r = raw("text");
  cache.put("k", r);
  assert.equal(cache.probe("k"), "reuse");
  assert.equal(cache.get("k"), r);
  assert.deepEqual(
    { hits: cache.stats.hits, misses: cache.stats.misses, entries: cache.stats.entries },
    { hits: 1, misses: 2, entries: 1 },
  );
});

Deno.test("read cache: refusals are never kept, and a replaced entry's shaping is not handed out", () => {
  const cache = new ReadCache(1 << 20);
  cache.put("k", { kind: "refused", error: "not_found", message: "m", remedy: "r" });
  assert.equal(cache.stats.entries, 0);
  const first = raw("old");
  cache.put("k", first);
  cache.attachShaped(first, templateOf(first, shaped("old"), true)!);
  assert.ok(cache.shapedOf(first, true));
  assert.equal(cache.shapedOf(first, false), undefined, "shaped with other options");
  cache.put("k", raw("new"));
  assert.equal(cache.shapedOf(first, true), undefined, "the old raw result is no longer kept");
  assert.equal(cache.holds(first), false);
});

Deno.test("read cache: a shaping whose nonce shows outside the fence markers is not kept as a template", () => {
  const r = raw("body");
  assert.ok(templateOf(r, shaped("body"), true));
  assert.equal(templateOf(r, shaped("body", { note: NONCE }), true), undefined);
  assert.equal(templateOf(r, { ...shaped("body"), isError: true }, true), undefined);
  const twice = shaped("body");
  (twice.content[0] as { text: string }).text += ` ${NONCE}`;
  assert.equal(templateOf(r, twice, true), undefined);
});

Deno.test("read cache: a refenced answer keeps every key in its place and fences with a new nonce", () => {
  const r = raw("body");
  const template = templateOf(r, shaped("body"), true)!;
  const a = refenced(template), b = refenced(template);
  assert.deepEqual(Object.keys(a), Object.keys(shaped("body")));
  const nonceOf = (x: CallToolResult) =>
    /id=([0-9a-f]{32})>/.exec((x.content[0] as { text: string }).text)![1];
  assert.notEqual(nonceOf(a), NONCE);
  assert.notEqual(nonceOf(a), nonceOf(b));
  const text = (a.content[0] as { text: string }).text;
  assert.equal(
    text,
    (shaped("body").content[0] as { text: string }).text.replaceAll(NONCE, nonceOf(a)),
  );
});
