/**
 * The WebAssembly SIMD prefilter of literal searches (ADR-103) against the
 * string path it stands in front of: a latin1 string of the bytes, a NUL
 * looked for with `indexOf`, the literal (lowered with the text when the
 * search folds case) looked for with `indexOf`. Its answer must be exact
 * where it settles a file (binary: a NUL is there; none: the literal is not)
 * and sound where it passes one on (found: the literal is there). Random
 * texts over a small alphabet of near misses, every offset around the
 * 16-byte lanes, the bytes that case folding could confuse, and through
 * `search_code` against its regex path, which never uses the prefilter.
 *
 * @module
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  BINARY,
  FOUND,
  LiteralPrefilter,
  MAX_LITERAL_BYTES,
  NONE,
  prefilterable,
  prefilterModuleBytes,
  TEXT_OFFSET,
} from "../../src/tools/literal_prefilter.ts";
import { sleb, uleb } from "../../src/tools/wasm_encoder.ts";
import { latin1Text, Walker } from "../../src/access/walk.ts";
import { requiredLiteral } from "../../src/tools/search_matcher.ts";
import { callDirect, directContext, makeWorkspace } from "../helpers/fixtures.ts";
import { mulberry32 } from "../helpers/random.ts";

/** The string path's verdict: what `Page.consider` and `searchText` would conclude. */
function oracle(bytes: Uint8Array, literal: string, fold: boolean) {
  let text = latin1Text(Buffer.from(bytes));
  const binary = text.indexOf("\0") >= 0;
  if (fold) text = text.toLowerCase();
  return { binary, holds: text.indexOf(literal) >= 0 };
}

/** The prefilter's contract, asserted for one input. */
function check(pf: LiteralPrefilter, bytes: Uint8Array, literal: string, fold: boolean): number {
  const answer = pf.scan(bytes);
  const want = oracle(bytes, literal, fold);
  const where = () => `literal ${JSON.stringify(literal)} fold=${fold} bytes [${[...bytes]}]`;
  if (answer === BINARY) assert.ok(want.binary, `binary without a NUL: ${where()}`);
  else if (answer === NONE) {
    assert.ok(!want.binary, `a NUL missed: ${where()}`);
    assert.ok(!want.holds, `the literal missed: ${where()}`);
  } else {
    assert.equal(answer, FOUND, where());
    assert.ok(want.holds, `found without the literal: ${where()}`);
  }
  return answer;
}

// Bytes a fold could confuse: the letters in both cases, `@` `` ` `` `[` `{` (the neighbours
// of the letter ranges, equal to a letter's code but for bit 0x20), latin1's upper-case À É
// (which toLowerCase lowers to à é, not to ASCII) and a newline.
const NEAR = [0x61, 0x41, 0x62, 0x42, 0x40, 0x60, 0x5b, 0x7b, 0xc1, 0xe1, 0xc9, 0xe9, 0x0a];

Deno.test("literal prefilter: random texts of near misses agree with indexOf, both cases", () => {
  const rand = mulberry32(103);
  const letters = "aAbB@`[{\n";
  let found = 0, binary = 0, none = 0;
  for (let t = 0; t < 6_000; t++) {
    const fold = rand() < 0.5;
    const k = 1 + Math.floor(rand() * (rand() < 0.9 ? 24 : 80));
    let literal = "";
    for (let i = 0; i < k; i++) literal += letters[Math.floor(rand() * letters.length)];
    if (fold) literal = literal.toLowerCase();
    const n = Math.floor(rand() * 260);
    const bytes = new Uint8Array(n);
    const nulRate = rand() < 0.5 ? 0 : 0.004;
    for (let i = 0; i < n; i++) {
      bytes[i] = rand() < nulRate ? 0 : NEAR[Math.floor(rand() * NEAR.length)];
    }
    if (rand() < 0.4 && n >= k) {
      // Plant it, in a random case when folding.
      const at = Math.floor(rand() * (n - k + 1));
      for (let j = 0; j < k; j++) {
        const c = literal.charCodeAt(j);
        bytes[at + j] = fold && c >= 0x61 && c <= 0x7a && rand() < 0.5 ? c - 32 : c;
      }
    }
    const pf = new LiteralPrefilter(literal, fold, 300);
    // Half read in place (the walker's way), half copied in.
    let answer: number;
    if (rand() < 0.5) {
      pf.buffer.set(bytes);
      answer = check(pf, pf.buffer.subarray(0, n), literal, fold);
    } else answer = check(pf, bytes, literal, fold);
    if (answer === FOUND) found++;
    else if (answer === BINARY) binary++;
    else none++;
  }
  // The generator reaches every answer often, or the test proves little.
  for (const count of [found, binary, none]) assert.ok(count > 500, `${found}/${binary}/${none}`);
});

Deno.test("literal prefilter: a match or a NUL at every offset around the 16-byte lanes", () => {
  for (const k of [1, 2, 3, 15, 16, 17, 31, 33]) {
    const literal = Array.from({ length: k }, (_, j) => "xyz"[j % 3]).join("");
    const pf = new LiteralPrefilter(literal, false, 4096);
    for (const n of [k, k + 1, k + 15, k + 16, k + 17, 47, 48, 49, 64, 100]) {
      if (n < k) continue;
      for (let at = 0; at + k <= n; at++) {
        // Filler that shares the literal's first and last bytes but never holds it.
        const bytes = new Uint8Array(n).fill(0x78);
        bytes.set(new TextEncoder().encode(literal), at);
        assert.equal(check(pf, bytes, literal, false), FOUND, `k=${k} n=${n} at=${at}`);
        // The literal cut short by one byte at its end: nowhere else in the text.
        if (at + k === n && k > 1) {
          assert.equal(check(pf, bytes.subarray(0, n - 1), literal, false), k === 1 ? FOUND : NONE);
        }
      }
      for (let z = 0; z < n; z++) {
        const bytes = new Uint8Array(n).fill(0x79);
        bytes[z] = 0;
        assert.equal(check(pf, bytes, literal, false), BINARY, `k=${k} n=${n} nul at ${z}`);
      }
    }
  }
});

Deno.test("attack: texts full of first-and-last-byte candidates that fail in the middle", () => {
  // `a…ab` with the middle wrong at the last place: every position is a candidate for the
  // vector test, and only the byte-by-byte check can reject it.
  for (const k of [3, 16, 40, MAX_LITERAL_BYTES]) {
    const literal = "a".repeat(k - 1) + "b";
    const pf = new LiteralPrefilter(literal, false, 64 * 1024);
    // The literal with its middle byte wrong, again and again: a candidate at every copy.
    const unit = literal.slice(0, Math.floor(k / 2)) + "c" + literal.slice(Math.floor(k / 2) + 1);
    const near = unit.repeat(Math.ceil(20_000 / k));
    const bytes = (text: string) => new TextEncoder().encode(text);
    assert.equal(check(pf, bytes(near), literal, false), NONE, `k=${k}`);
    assert.equal(check(pf, bytes(near + literal), literal, false), FOUND, `k=${k}`);
    assert.equal(check(pf, bytes(near + literal.slice(0, -1)), literal, false), NONE, `k=${k}`);
  }
});

Deno.test("literal prefilter: folding matches A–Z only, never @ ` [ { or latin1's À–Þ", () => {
  const pf = new LiteralPrefilter("a@z", true, 64);
  const cases: [number[], number][] = [
    [[0x61, 0x40, 0x7a], FOUND],
    [[0x41, 0x40, 0x5a], FOUND],
    [[0x41, 0x60, 0x5a], NONE], // ` is @ | 0x20, but @ is not a letter
    [[0xc1, 0x40, 0x5a], NONE], // À lowers to à, not to a
    [[0xe1, 0x40, 0x7a], NONE],
    [[0x41, 0x40, 0x7b], NONE], // { is [ | 0x20: neither is z
    [[0x41, 0x40, 0xda], NONE], // Ú
  ];
  for (const [bytes, want] of cases) {
    assert.equal(check(pf, new Uint8Array(bytes), "a@z", true), want, `[${bytes}]`);
    // The same, past the vector loop's first lanes.
    const long = new Uint8Array(40).fill(0x20);
    long.set(bytes, 37);
    assert.equal(check(pf, long, "a@z", true), want, `at 37 [${bytes}]`);
  }
  // Case-sensitive: the other case is a miss.
  const exact = new LiteralPrefilter("aZ", false, 64);
  assert.equal(exact.scan(new Uint8Array([0x41, 0x5a])), NONE);
  assert.equal(exact.scan(new Uint8Array([0x61, 0x5a])), FOUND);
});

Deno.test("literal prefilter: bytes outside its memory are copied, and the memory grows for larger ones", () => {
  const pf = new LiteralPrefilter("needle", false, 2 * 1024 * 1024);
  // The buffer it offers the walker holds 1 MiB + 1 at most, even for a larger cap.
  assert.equal(pf.buffer.length, 1024 * 1024 + 1);
  assert.equal(pf.buffer.byteOffset, TEXT_OFFSET);
  const big = new Uint8Array(1_500_000).fill(0x20);
  big.set(new TextEncoder().encode("needle"), big.length - 6);
  assert.equal(check(pf, big, "needle", false), FOUND);
  big[100] = 0;
  assert.equal(check(pf, big, "needle", false), BINARY);
  assert.equal(check(pf, new Uint8Array(0), "needle", false), NONE);
  assert.equal(check(pf, new TextEncoder().encode("needl"), "needle", false), NONE);
});

Deno.test("literal prefilter: scanInPlace answers for the first n bytes of its buffer only, and refuses n past it", () => {
  const pf = new LiteralPrefilter("needle", true, 1024);
  const text = new TextEncoder().encode("xx NEEDLE yy");
  pf.buffer.set(text);
  // The literal ends at byte 9.
  assert.equal(pf.scanInPlace(9), FOUND);
  assert.equal(pf.scanInPlace(8), NONE, "bytes past n were read");
  // A NUL before the literal, past n and then within it.
  pf.buffer[1] = 0;
  assert.equal(pf.scanInPlace(text.length), BINARY);
  assert.equal(pf.scanInPlace(1), NONE, "the NUL past n was read");
  pf.buffer.fill(0x20);
  assert.equal(pf.scanInPlace(text.length), NONE, "an earlier scan's bytes were remembered");
  assert.equal(pf.scanInPlace(pf.buffer.length), NONE);
  assert.throws(() => pf.scanInPlace(pf.buffer.length + 1), RangeError);
});

Deno.test("literal prefilter: only 1–512 ASCII characters are taken; the module is valid", () => {
  assert.ok(prefilterable("a"));
  assert.ok(prefilterable("x".repeat(MAX_LITERAL_BYTES)));
  assert.ok(!prefilterable(""));
  assert.ok(!prefilterable("x".repeat(MAX_LITERAL_BYTES + 1)));
  assert.ok(!prefilterable("café"));
  assert.throws(() => new LiteralPrefilter("é", false, 10), RangeError);
  assert.throws(() => new LiteralPrefilter("Ab", true, 10), RangeError);
  assert.ok(WebAssembly.validate(prefilterModuleBytes() as Uint8Array<ArrayBuffer>));
  // The encoder's integers (spec 5.2.2).
  assert.deepEqual(uleb(0), [0]);
  assert.deepEqual(uleb(127), [0x7f]);
  assert.deepEqual(uleb(128), [0x80, 0x01]);
  assert.deepEqual(uleb(624485), [0xe5, 0x8e, 0x26]);
  assert.deepEqual(sleb(-1), [0x7f]);
  assert.deepEqual(sleb(63), [0x3f]);
  assert.deepEqual(sleb(64), [0xc0, 0x00]);
  assert.deepEqual(sleb(-64), [0x40]);
  assert.deepEqual(sleb(-65), [0xbf, 0x7f]);
  assert.deepEqual(sleb(-123456), [0xc0, 0xbb, 0x78]);
});

Deno.test("walker: reads into a buffer it is given, and replaces one too small for a file", async () => {
  await using ws = await makeWorkspace({ "a.txt": "small\n", "b.txt": "x".repeat(5000) });
  const ctx = directContext(ws.root, {});
  const given = new Uint8Array(new ArrayBuffer(4096 + 64), 64, 4096);
  const walker = new Walker(
    ctx.workspace.walkPolicy,
    ctx.workspace.policy.root,
    ctx.workspace.resolve(""),
    { buffer: given },
  );
  const seen: [string, boolean, string][] = [];
  for (const event of walker.walk()) {
    if (event.kind !== "file") continue;
    const read = walker.read(event);
    assert.ok(read.ok);
    const inGiven = read.bytes.buffer === given.buffer && read.bytes.byteOffset === 64;
    seen.push([event.name, inGiven, new TextDecoder().decode(read.bytes)]);
  }
  assert.deepEqual(seen, [
    ["a.txt", true, "small\n"],
    ["b.txt", false, "x".repeat(5000)],
  ]);
});

Deno.test("search_code: a prefiltered literal gives what its regex twin gives, binaries and folds included", async () => {
  const nul = (s: string, at: number) => {
    const b = new TextEncoder().encode(s);
    b[at] = 0;
    return b;
  };
  const latin1 = new Uint8Array([0xc9, 0x41, 0x42, 0x43, 0x0a, 0x61, 0x62, 0x63, 0x0a]); // "ÉABC\nabc\n"
  await using ws = await makeWorkspace({
    "plain.txt": "one\nthe Needle here\nnone\nneedle\n",
    "end.txt": "no newline at the end: Needle",
    "bin_after.txt": nul("Needle first, then a NUL\nxxxx", 27),
    "bin_before.txt": nul("x NUL first\nthen Needle\n", 0),
    "upper.txt": "NEEDLE\nNeEdLe\n",
    "latin1.txt": latin1,
    "split.txt": "Need\nle\n",
  });
  const ctx = directContext(ws.root, {});
  for (
    const [pattern, extra] of [
      ["Needle", {}],
      ["needle", {}], // smart case: insensitive
      ["needle", { case_sensitive: true }],
      ["abc", {}],
      ["ÉABC", {}], // non-ASCII: the string path, no prefilter
      ["d\nl", {}], // spans lines: never a match
    ] as const
  ) {
    for (const output_mode of ["content", "count", "files_with_matches"]) {
      const args = { pattern, output_mode, ...extra };
      const literal = await callDirect(ctx, "search_code", args);
      const regex = await callDirect(ctx, "search_code", {
        ...args,
        pattern: pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
        regex: true,
      });
      assert.ok(!("invalidParams" in literal) && !("invalidParams" in regex));
      assert.deepEqual(
        literal.structuredContent,
        regex.structuredContent,
        `${pattern} ${output_mode}`,
      );
    }
  }
  const needle = await callDirect(ctx, "search_code", { pattern: "needle" });
  assert.ok(!("invalidParams" in needle));
  const s = needle.structuredContent as {
    files: { path: string }[];
    skipped: { binary: number };
  };
  assert.deepEqual(s.files.map((f) => f.path).sort(), ["end.txt", "plain.txt", "upper.txt"]);
  assert.equal(s.skipped.binary, 2);
});

Deno.test("requiredLiteral: the runs every match must contain, and none where it cannot tell", () => {
  const cases: [string, string | undefined][] = [
    ["mutex_lock\\(&[a-z_]+->lock\\)", "mutex_lock(&"],
    ["[0-9]{8}[a-f]{4}", undefined],
    ["foo|bar", undefined], // an alternation at the top
    ["abc?def", "def"], // c is optional: "ab" and "def" are the runs
    ["ab+cd", "ab"], // b once at least: the run ends after it
    ["x{0,3}yz", "yz"],
    ["hello{2}world", "hello"],
    ["(abc)def", "def"], // a group claims nothing
    ["EXPORT_SYMBOL(_GPL)?\\(", "EXPORT_SYMBOL"],
    ["\\bstatic int\\b", "static int"],
    ["\\\\path\\\\to", "\\path\\to"],
    ["ab{,3}cd", "ab"], // `{,3}` is no quantifier: its characters end the run
    ["\\x41bc", undefined], // an escape spelling a character: not decoded, nothing claimed
    ["\\101bc", undefined],
    ["\\u0041bc", undefined],
    ["\\cAbc", undefined],
    ["caf\u00e9", undefined], // non-ASCII
    ["a.b", "a"],
    ["[abc]]def", "def"], // a class ends at its first `]`, and the lone `]` ends a run
    ["(?:a|b)*xyz", "xyz"],
  ];
  for (const [pattern, want] of cases) assert.equal(requiredLiteral(pattern), want, pattern);
});

Deno.test("requiredLiteral: every match of random patterns holds it, with and without i", () => {
  const rand = mulberry32(104);
  const pieces = [
    "a",
    "b",
    "c",
    "ab",
    "\\(",
    "\\.",
    "\\-",
    ".",
    "[ab]",
    "[^a]",
    "(a|b)",
    "(?:ab)",
    "(a(b)c)",
    "\\d",
    "\\s",
    "\\w",
    "\\b",
    "^",
    "$",
    "{",
    "}",
    "]",
    "1",
  ];
  const quantifiers = ["", "", "", "", "?", "*", "+", "{0,2}", "{1,3}", "{2}", "{2,}", "+?", "*?"];
  const alphabet = "abcABC(.-1 \n{}]";
  let checked = 0;
  for (let t = 0; t < 4_000; t++) {
    let pattern = "";
    const items = 1 + Math.floor(rand() * 8);
    for (let i = 0; i < items; i++) {
      const piece = pieces[Math.floor(rand() * pieces.length)];
      const quantifiable = !["^", "$", "\\b", "{", "}"].includes(piece);
      pattern += piece + (quantifiable ? quantifiers[Math.floor(rand() * quantifiers.length)] : "");
    }
    let re: RegExp;
    try {
      re = new RegExp(pattern, "gm");
    } catch {
      continue;
    }
    const literal = requiredLiteral(pattern);
    if (literal === undefined) continue;
    const folded = new RegExp(pattern, "gmi");
    for (let s = 0; s < 6; s++) {
      let text = "";
      for (let i = 0; i < 40; i++) text += alphabet[Math.floor(rand() * alphabet.length)];
      for (const [regex, fold] of [[re, false], [folded, true]] as const) {
        for (const m of text.matchAll(regex)) {
          const got = fold ? m[0].toLowerCase() : m[0];
          const want = fold ? literal.toLowerCase() : literal;
          assert.ok(
            got.includes(want),
            `${pattern} matched ${JSON.stringify(m[0])} without ${want}`,
          );
          checked++;
        }
      }
    }
  }
  assert.ok(checked > 2_000, `only ${checked} matches checked`);
});

Deno.test("search_code: a regex prefiltered on its required literal finds the lines a per-line test finds", async () => {
  const files: Record<string, string | Uint8Array> = {
    "a.c": "mutex_lock(&dev->lock);\nmutex_lock(&x);\nMUTEX_LOCK(&d->lock)\n",
    "b.c": "no lock here\nmutex_lock (&a->lock)\n",
    "c.h": "#define X mutex_lock(&p->lock)",
    "d.bin": new Uint8Array([...new TextEncoder().encode("mutex_lock(&q->lock)\n"), 0, 0x0a]),
    "e.txt": "static int x;\nstatic  int y;\nSTATIC INT Z;\n",
  };
  await using ws = await makeWorkspace(files);
  const ctx = directContext(ws.root, {});
  for (
    const [pattern, fold] of [
      ["mutex_lock\\(&[a-z_]+->lock\\)", true],
      ["MUTEX_LOCK\\(&[a-z_]+->lock\\)", false],
      ["\\bstatic int\\b", true],
      ["STATIC INT", false],
    ] as const
  ) {
    const re = new RegExp(pattern, fold ? "i" : "");
    const want: string[] = [];
    for (const [path, body] of Object.entries(files).sort()) {
      if (typeof body !== "string") continue; // the binary file is skipped
      body.split("\n").forEach((line, i) => {
        if (re.test(line)) want.push(`${path}:${i + 1}`);
      });
    }
    const result = await callDirect(ctx, "search_code", { pattern, regex: true });
    assert.ok(!("invalidParams" in result));
    const s = result.structuredContent as {
      files: { path: string; matches: { line: number }[] }[];
      skipped: { binary: number };
    };
    const got = s.files.flatMap((f) => f.matches.map((m) => `${f.path}:${m.line}`));
    assert.deepEqual(got, want, pattern);
    assert.ok(want.length > 0, pattern);
    // Counted binary whether it holds the literal or not, as the string path counts it.
    assert.equal(s.skipped.binary, 1, pattern);
  }
});

Deno.test("search_code: with a size cap above the prefilter's first memory, a large file's late match is found", async () => {
  // 1.5 MB: larger than the 1 MiB + 1 the walker is first given, so the walker grows its own
  // buffer and the prefilter copies the bytes into its memory, grown for them.
  const big = "x".repeat(1_500_000) + "\nthe needle at the end\n";
  await using ws = await makeWorkspace({ "a.txt": "needle early\n", "big.txt": big });
  const ctx = directContext(ws.root, { MCP_SEARCH__MAX_FILE_BYTES: String(2 * 1024 * 1024) });
  for (const regex of [false, true]) {
    const result = await callDirect(ctx, "search_code", { pattern: "needle", regex });
    assert.ok(!("invalidParams" in result));
    const s = result.structuredContent as {
      files: { path: string; matches: { line: number }[] }[];
      skipped: { too_large: number };
    };
    assert.deepEqual(
      s.files.map((f) => `${f.path}:${f.matches.map((m) => m.line).join(",")}`),
      ["a.txt:1", "big.txt:2"],
    );
    assert.equal(s.skipped.too_large, 0);
  }
});
