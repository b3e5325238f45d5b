/**
 * `src/tools/search_matcher.ts`: the case expansion that replaces lower-casing
 * every file (ADR-067), the written-out counted repeats and the exec windows
 * that keep benign patterns off V8's slow fallback engine (ADR-066), and
 * that neither weakens the ReDoS protection.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  compileMatcher,
  EXEC_WINDOW,
  expandCase,
  MAX_UNROLL,
  searchText,
  unrollCounts,
  WindowedFinder,
} from "../../src/tools/search_matcher.ts";
import { callDirect, directContext, makeWorkspace } from "../helpers/fixtures.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { mulberry32 } from "../helpers/random.ts";

/** Random ASCII text biased toward the letters, digits and punctuation the patterns use. */
function asciiText(next: () => number, length: number): string {
  const pool = "aAbBcCfFkKpPuUxXzZ019_-[]{}<>\\ \n\t.,;:()";
  let out = "";
  for (let i = 0; i < length; i++) {
    out += next() < 0.8
      ? pool[Math.floor(next() * pool.length)]
      : String.fromCharCode(32 + Math.floor(next() * 95));
  }
  return out;
}

/** Every match of `re` (global) in `text`: index and length. */
function allMatches(re: RegExp, text: string): string[] {
  const out: string[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    out.push(`${m.index}+${m[0].length}`);
    if (m[0].length === 0) re.lastIndex++;
  }
  return out;
}

/** Whether V8's linear engine accepts the pattern. */
function linear(source: string): boolean {
  try {
    new RegExp(source, "l");
    return true;
  } catch {
    return false;
  }
}

Deno.test("expandCase: each syntax form", () => {
  const cases: [string, string][] = [
    ["abc", "[aA][bB][cC]"],
    ["ABC", "[Aa][Bb][Cc]"],
    // Classes get the other case of their letters, ranges included; negation is kept.
    ["[a-f]", "[a-f\\x41-\\x46]"],
    ["[^a-f]", "[^a-f\\x41-\\x46]"],
    ["[A-Fx]", "[A-Fx\\x61-\\x66\\x58]"],
    ["[Z-a]", "[Z-a\\x7a\\x41]"], // straddles the letters: Z and a, and the punctuation between
    ["[0-9]", "[0-9]"],
    ["[\\w-a]", "[\\w-a\\x41]"], // a class escape cannot end a range: "-" is literal
    ["[\\x41-\\x43]", "[\\x41-\\x43\\x61-\\x63]"],
    ["[]a", "[][aA]"], // the empty class
    // Escapes that are not letters keep their meaning.
    ["\\w+\\S\\d\\s\\W\\D\\b\\B", "\\w+\\S\\d\\s\\W\\D\\b\\B"],
    ["\\n\\t\\r\\f\\v", "\\n\\t\\r\\f\\v"],
    ["\\cA\\cz", "\\cA\\cz"],
    ["\\.\\(\\[", "\\.\\(\\["],
    // Letters written as escapes are letters.
    ["\\x41\\u0062", "[Aa][bB]"],
    ["\\x4", "[xX]4"], // not a hex escape without two digits: the letter x
    // Without the u flag \p{Lu} and \u{41} are the letters p and u (and a count).
    ["\\p{Lu}", "[pP]{[Ll][uU]}"],
    ["\\u{41}", "[uU]{41}"],
    ["\\c1", "\\\\[cC]1"], // no control letter: a backslash, then c
    // Group names and references are names, not text.
    ["(?<name>x)\\k<name>", "(?<name>[xX])\\k<name>"],
    ["\\k<x>", "[kK]<[xX]>"], // no named group: \k is the letter k
    ["(?:ab)", "(?:[aA][bB])"],
    // Counts are kept.
    ["[0-9]{8}[a-f]{4}", "[0-9]{8}[a-f\\x41-\\x46]{4}"],
    ["a{2,3}?", "[aA]{2,3}?"],
  ];
  for (const [pattern, expanded] of cases) {
    assert.equal(expandCase(pattern), expanded, pattern);
    if (linear(pattern)) assert.ok(linear(expanded), `${expanded} still runs in linear time`);
  }
});

/** Patterns the property checks run, one per syntax form and some combinations. */
const PROPERTY_PATTERNS = [
  "abc",
  "AbC",
  "a+b*c?",
  "[a-f]+",
  "[^a-f]+",
  "[A-Z]",
  "[0-z]+",
  "[Z-a]",
  "[^Z-a]",
  "[\\w-k]",
  "[\\x41-\\x43]",
  "[\\b\\n\\t]",
  "\\x41|\\u0062",
  "\\x4",
  "\\w+\\S",
  "\\W[^\\W]",
  "\\bfu\\B",
  "\\p{Lu}",
  "\\P",
  "\\u{2}",
  "\\k<x>",
  "(?<name>kx)",
  "\\cA|\\cb",
  "[0-9]{2}[a-f]{1,3}",
  "(?:ab|ba){2,}",
  "x{2,}?",
  "^[a-c]+$",
  ".[xX].",
  "\\[\\]\\{",
  "[\\[\\]\\\\]",
  "[]",
  "[^]",
  "z|",
];

Deno.test("expandCase: matches what V8's i flag matches, on random ASCII text", () => {
  const next = mulberry32(6_067);
  for (let round = 0; round < 30; round++) {
    const text = asciiText(next, 2_000);
    for (const pattern of PROPERTY_PATTERNS) {
      const expected = allMatches(new RegExp(pattern, "gmi"), text);
      const actual = allMatches(new RegExp(expandCase(pattern), "gm"), text);
      assert.deepEqual(actual, expected, `${pattern} → ${expandCase(pattern)} (round ${round})`);
    }
  }
});

Deno.test("unrollCounts: writes out counted repeats of one atom and matches the same", () => {
  assert.equal(unrollCounts("[0-9]{8}[a-f]{4}"), "[0-9]".repeat(8) + "[a-f]".repeat(4));
  assert.equal(unrollCounts("x{2,5}"), "xxx{0,3}");
  assert.equal(unrollCounts("x{2,5}?"), "xxx{0,3}?");
  assert.equal(unrollCounts("x{3,}?"), "xxxx*?");
  assert.equal(unrollCounts("\\d{2}\\x41{2}\\cA{2}"), "\\d\\d\\x41\\x41\\cA\\cA");
  assert.equal(unrollCounts("[]]{2}"), "[]]]"); // the empty class, then "]" twice
  // Left as written: groups, zero or large counts, a literal brace, references.
  for (
    const kept of ["(ab){3}", "a{0}", `a{${MAX_UNROLL + 1}}`, "a{,2}", "\\p{Lu}", "(?<n>a){2}"]
  ) {
    assert.equal(unrollCounts(kept), kept);
  }
  const next = mulberry32(66);
  for (let round = 0; round < 20; round++) {
    const text = asciiText(next, 2_000);
    for (const pattern of PROPERTY_PATTERNS) {
      for (const source of [pattern, expandCase(pattern)]) {
        assert.deepEqual(
          allMatches(new RegExp(unrollCounts(source), "gm"), text),
          allMatches(new RegExp(source, "gm"), text),
          `${source} → ${unrollCounts(source)}`,
        );
      }
    }
  }
});

Deno.test("WindowedFinder: no exec sees more than a window of whole lines, and every match is found", () => {
  const next = mulberry32(67);
  const lines: string[] = [];
  for (let i = 0; i < 20_000; i++) {
    // Mostly short lines, some long ones (one longer than a window).
    const length = i === 7_000 ? EXEC_WINDOW * 2 : Math.floor(next() * (next() < 0.05 ? 900 : 80));
    lines.push(asciiText(next, length).replaceAll("\n", " "));
  }
  const text = lines.join("\n");
  const re = new RegExp(unrollCounts(expandCase("[0-9]{2}[a-f]")), "gm");
  // No time switch here: the windows alone are under test.
  const finder = new WindowedFinder(re, EXEC_WINDOW, Infinity);
  const found: number[] = [];
  for (let from = 0; from <= text.length;) {
    const hit = finder.find(text, from);
    if (hit < 0) break;
    found.push(hit);
    const end = text.indexOf("\n", hit);
    from = end < 0 ? text.length + 1 : end + 1;
  }
  // The same first-match-per-line positions as one exec over the whole text.
  const whole = new RegExp(re.source, "gm");
  const expected: number[] = [];
  for (let from = 0; from <= text.length;) {
    whole.lastIndex = from;
    const m = whole.exec(text);
    if (m === null) break;
    expected.push(m.index);
    const end = text.indexOf("\n", m.index);
    from = end < 0 ? text.length + 1 : end + 1;
  }
  assert.ok(expected.length > 100);
  assert.deepEqual(found, expected);
  const longest = Math.max(...lines.map((l) => l.length));
  assert.ok(finder.stats.longest <= EXEC_WINDOW + longest, `an exec saw ${finder.stats.longest}`);
  assert.ok(finder.stats.execs > text.length / (EXEC_WINDOW + longest), "the text was cut");
});

/** A context for searchText that never stops. */
const QUIET = { stop: { reason: () => undefined } } as unknown as ToolContext;

/** Line numbers searchText finds for a matcher in `text` (latin1 = ASCII here). */
function lineNumbers(
  args: { pattern: string; regex?: boolean; case_sensitive?: boolean },
  text: string,
) {
  const bytes = new TextEncoder().encode(text);
  const found = searchText(bytes, text, compileMatcher(args), "content", 0, 0, 1e9, QUIET);
  return found.matches.map((m) => `${m.line}:${m.column}`);
}

Deno.test("searchText: case-insensitive patterns find the lines a per-line i match finds", () => {
  const next = mulberry32(2026);
  const text = asciiText(next, 60_000);
  const lines = text.split("\n");
  for (const pattern of PROPERTY_PATTERNS.filter((p) => p !== "[]")) {
    const expected: string[] = [];
    const re = new RegExp(pattern, "i");
    lines.forEach((line, i) => {
      const m = re.exec(line);
      if (m !== null) expected.push(`${i + 1}:${m.index + 1}`);
    });
    assert.deepEqual(
      lineNumbers({ pattern, regex: true, case_sensitive: false }, text),
      expected,
      pattern,
    );
  }
  // A literal (searched in a lowered copy).
  const literal = "a.(B";
  const expected = lines.flatMap((line, i) => {
    const at = line.toLowerCase().indexOf(literal.toLowerCase());
    return at < 0 ? [] : [`${i + 1}:${at + 1}`];
  });
  assert.deepEqual(lineNumbers({ pattern: literal, case_sensitive: false }, text), expected);
});

Deno.test("attack: catastrophic patterns, case-expanded and with written-out counts, still fall back to the linear engine fast", () => {
  // Nested quantifiers over a 3,000-character run, repeated: exponential backtracking on every
  // line unless V8's fallback takes over within each exec (ReDoS, THREAT-MODEL row 18).
  const text = ("a".repeat(3_000) + "!\n").repeat(40) + "A".repeat(3_000) + "!\n";
  for (
    const args of [
      { pattern: "(a+)+$", regex: true }, // smart case: [aA]
      { pattern: "(A+)+$", regex: true, case_sensitive: false },
      { pattern: "(a{1,2})+$", regex: true }, // unrolled: (aa{0,1})+$
      { pattern: "([a-z]{1,3}){2,}$", regex: true },
      { pattern: "(\\w{2}|a)+b", regex: true },
      { pattern: "(.*a){12}$", regex: true, case_sensitive: true },
    ]
  ) {
    const started = performance.now();
    const found = lineNumbers(args, text);
    const ms = performance.now() - started;
    assert.deepEqual(found, [], args.pattern);
    assert.ok(ms < 10_000, `${args.pattern} took ${ms.toFixed(0)} ms`);
  }
});

Deno.test("compileMatcher: a pattern the linear engine refuses is still refused after expansion", () => {
  for (const pattern of ["(a)\\1", "(?<n>a)\\k<n>", "x(?=y)", "(?!x)y"]) {
    assert.throws(() => compileMatcher({ pattern, regex: true }), /linear time/, pattern);
  }
});

/** ripgrep on a fixture tree: "path:line" for each matching line. */
async function ripgrep(root: string, args: string[]): Promise<string[]> {
  const out = await new Deno.Command("rg", {
    args: ["--no-config", "-n", "-S", "--no-heading", "--with-filename", ...args, "."],
    cwd: root,
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l).map((l) => {
    const [path, line] = l.split(":", 2);
    return `${path.replace(/^\.\//, "")}:${line}`;
  }).sort();
}

Deno.test("search_code: smart case gives ripgrep's lines on a fixture tree", async () => {
  const next = mulberry32(17);
  const entries: Record<string, string> = {};
  for (let f = 0; f < 12; f++) entries[`src/f${f}.c`] = asciiText(next, 8_000);
  entries["src/words.c"] = "Mutex_Lock(&a->lock)\nmutex_lock(&b->LOCK)\nMUTEX_LOCK(&c->lock)\n" +
    "deadbeef 12345678abcd 12345678ABCD\nLinus Torvalds\nlinus torvalds\nLINUS\n";
  await using ws = await makeWorkspace(entries);
  const ctx = directContext(ws.root, {
    MCP_SEARCH__MAX_RESULTS: "10000",
    MCP_SERVER__MAX_RESULT_CHARS: "1000000",
  });
  const queries: { args: Record<string, unknown>; rg: string[] }[] = [
    { args: { pattern: "linus torvalds" }, rg: ["-F", "linus torvalds"] },
    { args: { pattern: "Linus" }, rg: ["-F", "Linus"] },
    {
      args: { pattern: "mutex_lock\\(&[a-z_]+->lock\\)", regex: true },
      rg: ["mutex_lock\\(&[a-z_]+->lock\\)"],
    },
    { args: { pattern: "[0-9]{8}[a-f]{4}", regex: true }, rg: ["[0-9]{8}[a-f]{4}"] },
    { args: { pattern: "[0-9]{2}[a-f]", regex: true }, rg: ["[0-9]{2}[a-f]"] },
    { args: { pattern: "[^a-z ]{2}x", regex: true }, rg: ["[^a-z ]{2}x"] },
    { args: { pattern: "\\bk[a-c]+", regex: true }, rg: ["\\bk[a-c]+"] },
    { args: { pattern: "b{2,}", regex: true }, rg: ["b{2,}"] },
  ];
  for (const q of queries) {
    const result = await callDirect(ctx, "search_code", { ...q.args, max_results: 10000 });
    assert.ok(!("invalidParams" in result));
    const s = result.structuredContent as {
      files: { path: string; matches: { line: number }[] }[];
    };
    const ours = s.files.flatMap((f) => f.matches.map((m) => `${f.path}:${m.line}`)).sort();
    const theirs = await ripgrep(ws.root, q.rg);
    assert.ok(theirs.length > 0, `${q.args.pattern} matches something`);
    assert.deepEqual(ours, theirs, String(q.args.pattern));
  }
});

Deno.test("attack: a slow pattern on a large file is stopped between windows, not only between files", () => {
  // A file of catastrophic lines for (.*a){12}$: each window costs V8's backtrack allowance
  // before it falls back; the time budget must not wait for the whole file (ReDoS, row 18).
  const text = ("a".repeat(3_000) + "!\n").repeat(100);
  const bytes = new TextEncoder().encode(text);
  let asked = 0;
  const ctx = {
    stop: { reason: () => (++asked > 2 ? "timed_out" : undefined) },
  } as unknown as ToolContext;
  const matcher = compileMatcher({ pattern: "(.*a){12}$", regex: true, case_sensitive: true });
  const found = searchText(bytes, text, matcher, "content", 0, 0, 100, ctx);
  assert.equal(found.stopped, true);
  assert.equal(found.more, true);
  assert.ok(asked <= 4, `the stop flag was read ${asked} times`);
  // Not stopped, the same search reads the flag before each window and runs to the end.
  let windows = 0;
  const quiet = { stop: { reason: () => void windows++ } } as unknown as ToolContext;
  const fresh = compileMatcher({ pattern: "(.*a){12}$", regex: true, case_sensitive: true });
  const all = searchText(bytes, text, fresh, "content", 0, 0, 100, quiet);
  assert.equal(all.stopped, false);
  // At least two windows (more when they are fast), and the read after the last one.
  assert.ok(windows >= 3, `the flag was read ${windows} times`);
});
