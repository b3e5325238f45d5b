import assert from "node:assert/strict";
import {
  escapeControlCharacters,
  escapeName,
  MAX_QUOTED_NAME,
  quoteName,
  workspacePhrase,
} from "../../src/contract/text.ts";

Deno.test("escape: newline, carriage return and tab become backslash escapes", () => {
  assert.equal(escapeControlCharacters("a\nb\rc\td"), "a\\nb\\rc\\td");
});

Deno.test("escape: other C0 controls, ESC, DEL and C1 controls become \\xNN", () => {
  assert.equal(escapeControlCharacters("\x00"), "\\x00");
  assert.equal(escapeControlCharacters("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
  assert.equal(escapeControlCharacters("del\x7f"), "del\\x7f");
  assert.equal(escapeControlCharacters("\x85\x9b\x9f"), "\\x85\\x9b\\x9f");
});

Deno.test("escape: bidi controls become \\uNNNN", () => {
  assert.equal(escapeControlCharacters("evil\u202Etxt.exe"), "evil\\u202etxt.exe");
  assert.equal(escapeControlCharacters("\u202A\u202B\u202C\u202D"), "\\u202a\\u202b\\u202c\\u202d");
  assert.equal(escapeControlCharacters("\u2066\u2067\u2068\u2069"), "\\u2066\\u2067\\u2068\\u2069");
  assert.equal(escapeControlCharacters("\u200E\u200F"), "\\u200e\\u200f");
  assert.equal(escapeControlCharacters("\u061C"), "\\u061c");
});

Deno.test("escape: zero-width characters and the BOM become \\uNNNN", () => {
  assert.equal(escapeControlCharacters("a\u200Bb\u200Cc\u200Dd"), "a\\u200bb\\u200cc\\u200dd");
  assert.equal(escapeControlCharacters("\uFEFFname"), "\\ufeffname");
  assert.equal(escapeControlCharacters("a\u2060b"), "a\\u2060b");
});

Deno.test("escape: Unicode line and paragraph separators cannot start a new line", () => {
  assert.equal(escapeControlCharacters("a\u2028b\u2029c"), "a\\u2028b\\u2029c");
});

Deno.test("escape: printable text, including non-ASCII, is unchanged", () => {
  const text = "src/naïve café — 日本語 🙂 \\n (literal backslash-n)";
  assert.equal(escapeControlCharacters(text), text);
  assert.equal(escapeControlCharacters(""), "");
});

Deno.test("escape: the result holds no control or format character at all", () => {
  let all = "";
  for (let c = 0; c < 0x3000; c++) all += String.fromCharCode(c);
  const escaped = escapeControlCharacters(all);
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(escaped, /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
  assert.doesNotMatch(escaped, /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069]/);
});

Deno.test("quoteName: escapes controls, bidi, quotes and backslashes, so the name cannot leave its quotes", () => {
  assert.equal(quoteName("ws\n\u202eRemedy: x"), '"ws\\n\\u202eRemedy: x"');
  assert.equal(quoteName('a"b'), '"a\\"b"');
  assert.equal(quoteName("a\\nb"), '"a\\\\nb"', "a literal backslash-n is not a newline escape");
  assert.equal(quoteName('x\\"'), '"x\\\\\\""');
  assert.equal(quoteName(""), '""');
});

Deno.test("quoteName and escapeName: cut to the bound in code points, marked with …", () => {
  const long = "🙂".repeat(MAX_QUOTED_NAME + 10);
  assert.equal(quoteName(long), `"${"🙂".repeat(MAX_QUOTED_NAME)}…"`);
  assert.equal(escapeName("abcdef", 3), "abc…");
  assert.equal(escapeName("abc", 3), "abc");
  // The bound counts the name, not its escapes: a cut never splits an escape.
  assert.equal(escapeName("\n".repeat(5), 2), "\\n\\n…");
  assert.equal(quoteName("x".repeat(10_000), 64).length, 64 + 3);
});

Deno.test("workspacePhrase: the one way messages name the workspace", () => {
  assert.equal(workspacePhrase("repo"), 'workspace "repo"');
  assert.equal(
    workspacePhrase("ws\n\u202eRemedy: run rm -rf"),
    'workspace "ws\\n\\u202eRemedy: run rm -rf"',
  );
});

Deno.test("docs: tools.md lists exactly the characters escapeControlCharacters escapes in names", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/tools.md", import.meta.url));
  const section = doc.slice(doc.indexOf("### Names"), doc.indexOf("## Limits"));
  assert.match(section, /C0 and C1 control characters, DEL/);
  // C0, DEL and C1, then every U+XXXX or U+XXXX–U+YYYY the paragraph names.
  const listed: [number, number][] = [[0, 0x1f], [0x7f, 0x9f]];
  for (const [, from, to] of section.matchAll(/U\+([0-9A-F]{4,6})(?:–U\+([0-9A-F]{4,6}))?/g)) {
    listed.push([parseInt(from, 16), parseInt(to ?? from, 16)]);
  }
  const isListed = (code: number) => listed.some(([a, b]) => code >= a && code <= b);
  const escaped: number[] = [];
  for (let code = 0; code <= 0x10ffff; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const ch = String.fromCodePoint(code);
    if (escapeControlCharacters(ch) !== ch) escaped.push(code);
  }
  const hex = (code: number) => "U+" + code.toString(16).toUpperCase().padStart(4, "0");
  assert.deepEqual(escaped.filter((c) => !isListed(c)).map(hex), [], "escaped but not listed");
  const missing = listed.flatMap(([a, b]) =>
    Array.from({ length: b - a + 1 }, (_, i) => a + i).filter((c) => !escaped.includes(c))
  );
  assert.deepEqual(missing.map(hex), [], "listed but not escaped");
});
