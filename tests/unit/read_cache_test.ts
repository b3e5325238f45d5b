/**
 * `ReadCache` and the shaping it keeps (ADR-081), without files: when a read
 * is told to keep, what is kept and for how long, and which shapings are
 * refused as templates (a nonce that shows outside the fence markers would
 * be repeated in every later answer).
 */

import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { RawToolResult } from "../../src/contract/result.ts";
import { hexRunsOf, refenced, templateOf } from "../../src/protocol/shape.ts";
import { containsFolded } from "../../src/content/fence.ts";
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

Deno.test("read cache, attack: content holding the nonce drawn next (in capitals, inside a longer hex run, or split by a non-hex character) is fenced with another", () => {
  const planted = "fedcba9876543210fedcba9876543210";
  const other = "00112233445566778899aabbccddeeff";
  const near = "a1b2c3d4e5f60718293a4b5c6d7e8f90";
  const body = `key ${"C0FFEE" + planted.toUpperCase() + "BEEF"} and ${near.slice(0, 16)}-${
    near.slice(16)
  } end`;
  const template = templateOf(raw(body), shaped(body), true)!;
  // The planted nonce is drawn first and must be refused; the split one is no occurrence.
  const draws = [planted, near, other];
  const result = refenced(template, () => draws.shift()!);
  const text = (result.content[0] as { text: string }).text;
  assert.equal(draws.length, 1, "the planted nonce was drawn again, the split one kept");
  assert.equal(text.split(near).length, 3, "the kept nonce is in the two markers only");
  // A nonce of another shape (not what newNonce draws) is checked against the text itself.
  const odd = ["key", "zzzz"];
  const other2 = refenced(template, () => odd.shift()!);
  assert.ok((other2.content[0] as { text: string }).text.includes("id=zzzz>"));
});

Deno.test("read cache: the kept hex runs answer exactly what a case-insensitive search of the text answers", () => {
  const hex = "0123456789abcdefABCDEF";
  let seed = 0x9e3779b9;
  const rand = (n: number) => {
    seed ^= seed << 13, seed ^= seed >>> 17, seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  let found = 0;
  for (let round = 0; round < 300; round++) {
    const nonce = Array.from({ length: 32 }, () => "0123456789abcdef"[rand(16)]).join("");
    let text = "";
    const len = rand(200);
    for (let i = 0; i < len; i++) {
      const pick = rand(10);
      text += pick < 7 ? hex[rand(hex.length)] : pick < 8 ? "xyz\u212a\u0130 "[rand(6)] : "";
      if (rand(40) === 0) {
        const cut = nonce.slice(rand(8));
        text += rand(2) ? cut.toUpperCase() : cut;
      }
    }
    if (rand(3) === 0) text += nonce.toUpperCase();
    const runs = hexRunsOf([text]);
    assert.equal(runs.some((r) => r.includes(nonce)), containsFolded(text, nonce), text);
    if (containsFolded(text, nonce)) found++;
  }
  assert.ok(found > 50 && found < 250, `both answers were exercised (${found} of 300 found)`);
});
