/**
 * How `search_code` searches one file's text: the pattern compiled to a
 * {@linkcode Matcher} (a literal with `String.indexOf`, a regular expression
 * with V8's default engine over the whole latin1 string, refused when it
 * cannot run in linear time), and {@linkcode searchText}, which confirms each
 * candidate on its own line, counts line numbers, decodes only matching and
 * context lines, cuts long lines and notes the secrets they show.
 *
 * @module
 */

import { ToolRefusal } from "../contract/refusal.ts";
import { LineSecrets } from "../secrets/cut.ts";
import type { ToolContext } from "./types.ts";

import { linearEngineAvailable, MAX_LINE_CHARS } from "./search_code_spec.ts";
export { linearEngineAvailable, MAX_LINE_CHARS };

/** What decides how a pattern is compiled: the `search_code` arguments that shape matching. */
export interface MatcherArgs {
  readonly pattern: string;
  readonly regex?: boolean;
  readonly case_sensitive?: boolean;
}

/** How results are returned. */
export type OutputMode = "content" | "files_with_matches" | "count";

/** One matching line as returned. */
export interface MatchOut {
  line: number;
  column: number;
  text: string;
  cut?: boolean;
  before?: string[];
  after?: string[];
}

/**
 * The most characters one regex `exec` is given at once: whole lines from
 * the search position up to the first line end after this many (a longer
 * line is given whole). V8's
 * `--enable-experimental-regexp-engine-on-excessive-backtracks` counts
 * backtracks per `exec` call and moves that call to the linear engine
 * (~150× slower) past `--regexp-backtracks-before-fallback` (50,000): over a
 * whole file the failed attempts of a benign pattern at every position add
 * up past it, over a window they do not, while a catastrophic pattern still
 * passes it within one line (ADR-066).
 */
export const EXEC_WINDOW = 16_384;

/** A compiled search: finds matching lines in one file's text. */
export interface Matcher {
  /** Whether to search the decoded text (non-ASCII pattern) instead of latin1. */
  readonly decoded: boolean;
  /**
   * Whether the text is lower-cased before searching: a case-insensitive
   * literal (lower-cased too), or a case-insensitive regex with non-ASCII
   * characters (lower-cased outside its escapes). An ASCII regex is made
   * case-insensitive by {@linkcode expandCase} instead, and searches the text
   * as it is (ADR-067). (V8's `i` flag would
   * do it, but its linear fallback engine has no case folding, so a runaway
   * `i` pattern would never be stopped.)
   */
  readonly lower: boolean;
  /**
   * Index of the next candidate at or after `from` (a line start), or -1
   * (also when `stopped` says so between two windows of a regex search).
   */
  find(text: string, from: number, stopped?: () => boolean): number;
  /** The match's offset in `line`, or -1 when the line itself does not match. */
  inLine(line: string): number;
  /**
   * A literal pattern of ASCII characters, as `find` looks for it (lower-cased with `fold`):
   * files can be prefiltered on their bytes for it (`./literal_prefilter.ts`, ADR-103).
   */
  readonly literal?: { readonly text: string; readonly fold: boolean };
}

/** Compiles the pattern; refuses `bad_pattern` one that is invalid or cannot run in linear time. */
export function compileMatcher(args: MatcherArgs): Matcher {
  const caseSensitive = args.case_sensitive ?? hasUpperCase(args.pattern, args.regex ?? false);
  const fold = !caseSensitive;
  // deno-lint-ignore no-control-regex
  const decoded = /[^\x00-\x7f]/.test(args.pattern);
  // Non-ASCII case folding is Unicode's, which only toLowerCase knows: that path lowers the text.
  // So does a literal: indexOf over a lowered copy measured faster than the expanded regex (ADR-067).
  const lower = fold && (decoded || !args.regex);
  if (!args.regex) {
    const literal = fold ? args.pattern.toLowerCase() : args.pattern;
    return {
      decoded,
      lower,
      find: (text, from) => text.indexOf(literal, from),
      inLine: (line) => line.indexOf(literal),
      ...(!decoded ? { literal: { text: literal, fold } } : {}),
    };
  }
  try {
    new RegExp(args.pattern, "m");
  } catch (error) {
    throw new ToolRefusal(
      "bad_pattern",
      `The pattern is not a valid regular expression: ${
        (error as Error).message.replace(/^Invalid regular expression: /, "").slice(0, 200)
      }.`,
    );
  }
  // Refused as the client wrote it, so the message shows their pattern, not the rewritten one.
  assertLinear(args.pattern, "m");
  const source = unrollCounts(
    !fold ? args.pattern : lower ? lowerOutsideEscapes(args.pattern) : expandCase(args.pattern),
  );
  assertLinear(source, "m");
  const whole = new RegExp(source, "gm");
  const line = new RegExp(source, "m");
  const windows = new WindowedFinder(whole);
  const required = decoded ? undefined : requiredLiteral(args.pattern);
  return {
    decoded,
    lower,
    ...(required !== undefined && required.length >= MIN_REQUIRED_LITERAL
      ? { literal: { text: fold ? required.toLowerCase() : required, fold } }
      : {}),
    find: (text, from, stopped) => windows.find(text, from, stopped),
    inLine(text) {
      const m = line.exec(text);
      return m === null ? -1 : m.index;
    },
  };
}

/** The shortest literal a regex must contain for its files to be prefiltered on it (ADR-104). */
export const MIN_REQUIRED_LITERAL = 3;

const QUANTIFIER = /^\{(\d+)(?:,(\d*))?\}/;

/**
 * The longest run of ASCII characters that every match of the regular
 * expression (V8 syntax, no `u` flag, as `search_code` compiles it) contains
 * as written, or undefined when none is found. Conservative by construction
 * (ADR-104): only the top-level sequence is read, and nothing is inferred
 * from what it cannot read — an alternation at the top gives undefined;
 * groups, classes, `.`, assertions, the escapes of one character, a class
 * or an assertion (`\n`, `\d`, `\b`), and a `{` or `}` that is not a
 * quantifier end a run, while an escaped ASCII punctuation character (`\(`,
 * `\.`, `\-`) is that character; any other escape of a letter or digit
 * (`\x41`, `\101`, `\u0041`, `\cA`, `\p{…}`) gives undefined; an atom under `?`, `*` or a count
 * from 0 is left out, one under `+` or a count from 1 ends its run after
 * itself. Any non-ASCII character gives undefined (such patterns search the
 * decoded text).
 */
export function requiredLiteral(pattern: string): string | undefined {
  const n = pattern.length;
  for (let i = 0; i < n; i++) if (pattern.charCodeAt(i) > 0x7f) return undefined;
  let best = "";
  let run = "";
  const end = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  let i = 0;
  while (i < n) {
    const ch = pattern[i];
    let atom: string | undefined; // a literal character, when the item is one
    let next: number;
    if (ch === "|") return undefined;
    if (ch === "\\") {
      const c = pattern[i + 1];
      if (c === undefined) return undefined;
      if (/^[!-\/:-@[-`{-~]$/.test(c)) atom = c;
      // One character or a class, or an assertion: `\d`, `\n`, `\b` …. Any other letter or
      // digit escape (`\x41`, `\u0041`, `\101`, `\cA`, `\k<…>`, `\p{…}`) spells characters
      // this reading does not decode, so it claims nothing of the pattern.
      else if (!"dDwWsSbBnrtfv".includes(c)) return undefined;
      next = i + 2;
    } else if (ch === "[") {
      next = afterClass(pattern, i);
    } else if (ch === "(") {
      // The whole group, nested groups, classes and escapes included.
      let depth = 0;
      next = i;
      while (next < n) {
        const c = pattern[next];
        if (c === "\\") next += 2;
        else if (c === "[") next = afterClass(pattern, next);
        else {
          if (c === "(") depth++;
          else if (c === ")" && --depth === 0) {
            next++;
            break;
          }
          next++;
        }
      }
    } else if ("^$.)*+?{}]".includes(ch)) {
      next = i + 1;
    } else {
      atom = ch;
      next = i + 1;
    }
    // The quantifier on the item, if any.
    let min = 1, repeats = false;
    const q = pattern[next];
    if (q === "*" || q === "?" || q === "+") {
      min = q === "+" ? 1 : 0;
      repeats = true;
      next++;
    } else if (q === "{") {
      const m = QUANTIFIER.exec(pattern.slice(next, next + 24));
      if (m !== null) {
        min = Number(m[1]);
        repeats = true;
        next += m[0].length;
      }
    }
    if (repeats && pattern[next] === "?") next++; // lazy
    if (atom === undefined || min === 0) end();
    else {
      run += atom;
      if (repeats) end();
    }
    i = next;
  }
  end();
  return best === "" ? undefined : best;
}

/** The index after the character class that opens at `open` (its `]`; escapes skipped). */
function afterClass(pattern: string, open: number): number {
  let i = open + 1;
  while (i < pattern.length && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
  return i + 1;
}

/**
 * How long one window's `exec` may take before the next windows of the
 * same text are made 16× larger. A benign pattern scans a window
 * in well under a millisecond, even in the linear engine; a catastrophic one
 * spends V8's whole backtrack allowance in every window before it falls
 * back (up to the allowance times the line length, ~150 ms for `(.*a){14}$`
 * on 3,000-character lines), so for it many windows only multiply that cost;
 * growing them keeps it to a few windows a file, still with the stop flag
 * read between them.
 */
export const SLOW_WINDOW_MS = 5;

/**
 * Finds the first match of `re` (global) at or after `from`, a line start,
 * over windows of whole lines of about {@linkcode EXEC_WINDOW} characters,
 * so that no one `exec` sees more (a match never spans lines, so none is
 * lost at a window's edge: `inLine` confirms each on its own line anyway).
 * After a window slower than `slowMs` the windows of that text grow 16×.
 * Results never depend on the windows, only the time does.
 */
export class WindowedFinder {
  readonly #re: RegExp;
  readonly #window: number;
  readonly #slowMs: number;
  #text: string | undefined;
  #size = 0;
  /** How many `exec` calls were made, and the most characters one saw (for tests). */
  readonly stats = { execs: 0, longest: 0 };

  constructor(re: RegExp, window = EXEC_WINDOW, slowMs = SLOW_WINDOW_MS) {
    this.#re = re;
    this.#window = window;
    this.#slowMs = slowMs;
  }

  /** Index of the match, or -1 when there is none or `stopped` returned true before a window. */
  find(text: string, from: number, stopped?: () => boolean): number {
    if (text !== this.#text) {
      this.#text = text;
      this.#size = this.#window;
    }
    const re = this.#re;
    const length = text.length;
    while (from <= length) {
      // Between windows the call's stop flag is read: a slow pattern on a large file ends on time.
      if (stopped?.()) return -1;
      let end = from + this.#size >= length ? length : text.indexOf("\n", from + this.#size);
      if (end < 0) end = length;
      const view = from === 0 && end === length ? text : text.slice(from, end);
      this.stats.execs++;
      if (view.length > this.stats.longest) this.stats.longest = view.length;
      const started = end === length ? 0 : performance.now();
      re.lastIndex = 0;
      const m = re.exec(view);
      if (m !== null) return from + m.index;
      if (end < length && performance.now() - started > this.#slowMs) this.#size *= 16;
      from = end + 1;
    }
    return -1;
  }
}

/** The largest count {@linkcode unrollCounts} writes out. */
export const MAX_UNROLL = 16;

/**
 * A regular expression with each counted repeat of one character, escape or
 * class written out (`[0-9]{8}` → eight `[0-9]`; `x{2,5}` → `xxx{0,3}`;
 * `x{3,}` → `xxxx*`), counts up to {@linkcode MAX_UNROLL}. It matches the
 * same: but V8 runs a counted loop with a counter and backtracking at every
 * start position, and the written-out form with its quick first-character
 * checks, 20–40× faster on a pattern like `[0-9]{8}[a-f]{4}` (ADR-066).
 * Groups, `\1`, `\k<…>` and assertions are left as written; so is the whole
 * pattern when the result would be over 8 KB.
 */
export function unrollCounts(source: string): string {
  let out = "";
  let last: string | undefined; // the atom just written, when it may be repeated
  let i = 0;
  const n = source.length;
  while (i < n) {
    const ch = source[i];
    let end = i + 1;
    let atom: string | undefined;
    if (ch === "\\") {
      const next = source[i + 1] ?? "";
      if (next === "x" && isHex(source[i + 2]) && isHex(source[i + 3])) end = i + 4;
      else if (next === "u" && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) end = i + 6;
      else if (next === "c" && /^[A-Za-z]$/.test(source[i + 2] ?? "")) end = i + 3;
      else end = i + 2;
      // A back reference or an assertion is not one character.
      atom = /^[0-9bBk]$/.test(next) ? undefined : source.slice(i, end);
      if (next >= "0" && next <= "9") {
        while (end < n && source[end] >= "0" && source[end] <= "9") end++;
      }
    } else if (ch === "[") {
      end = i + 1;
      if (source[end] === "^") end++;
      while (end < n && source[end] !== "]") end += source[end] === "\\" ? 2 : 1;
      end = Math.min(n, end + 1);
      atom = source.slice(i, end);
    } else if (ch === "{") {
      const q = /^\{(\d+)(?:(,)(\d*))?\}(\?)?/.exec(source.slice(i, i + 24));
      if (q !== null && last !== undefined) {
        const min = Number(q[1]);
        const max = q[2] === undefined ? min : q[3] === "" ? Infinity : Number(q[3]);
        const lazy = q[4] ?? "";
        if (min >= 1 && min <= MAX_UNROLL && max >= min) {
          const rest = max === min
            ? ""
            : max === Infinity
            ? `${last}*${lazy}`
            : `${last}{0,${max - min}}${lazy}`;
          out = out.slice(0, out.length - last.length) + last.repeat(min) + rest;
          last = undefined;
          i += q[0].length;
          continue;
        }
      }
      atom = q === null ? ch : undefined;
      if (q !== null) end = i + q[0].length;
    } else if (ch === "(" && source[i + 1] === "?") {
      const head = /^\(\?(?:<(?![=!])[^>]*>|[a-zA-Z]*-?[a-zA-Z]*:|<?[=!]?)/.exec(
        source.slice(i, i + 200),
      );
      end = i + (head ? head[0].length : 2);
    } else if (!"()|^$*+?".includes(ch)) {
      atom = ch;
    }
    out += source.slice(i, end);
    last = atom;
    i = end;
  }
  return out.length > 8192 ? source : out;
}

const isUpper = (c: number) => c >= 0x41 && c <= 0x5a;
const isLower = (c: number) => c >= 0x61 && c <= 0x7a;
const isHex = (ch: string | undefined) => ch !== undefined && /^[0-9a-fA-F]$/.test(ch);
const hexEscape = (c: number) => "\\x" + c.toString(16).padStart(2, "0");

/** `[aA]` for an ASCII letter's code, undefined for any other character. */
function bothCases(c: number): string | undefined {
  if (isUpper(c)) return `[${String.fromCharCode(c, c + 32)}]`;
  if (isLower(c)) return `[${String.fromCharCode(c, c - 32)}]`;
  return undefined;
}

/**
 * A regular expression (V8 syntax, no `u` flag) made case-insensitive for
 * ASCII letters without the `i` flag: each letter it matches, written as
 * itself, as `\x41`/`\u0041` or as an identity escape (`\a`, and `\p`, `\k`
 * where no named group makes it a reference: without `u` they are letters),
 * becomes a class of both cases (`a` → `[aA]`); a class gets the other case of
 * every letter it holds, ranges included (`[a-f]` → `[a-fA-F]`, `[0-z]` keeps
 * its own, `[^a-f]` → `[^a-fA-F]`). Escapes that are not letters (`\w \S \d
 * \b \cA \1`), group names (`(?<name>`, `\k<name>`), modifiers (`(?i:`) and
 * quantifiers are kept as written. Matches what the `i` flag matches on ASCII
 * text (tested against it); non-ASCII letters are not folded (a pattern with
 * any takes the lower-cased path instead).
 */
export function expandCase(pattern: string): string {
  const named = /\(\?<[^=!]/.test(pattern);
  let out = "";
  let i = 0;
  const n = pattern.length;
  while (i < n) {
    const ch = pattern[i];
    if (ch === "\\") {
      const next = pattern[i + 1];
      if (next === undefined) {
        out += ch;
        i++;
      } else if ("dDsSwWbBnrtvf".includes(next)) {
        out += ch + next;
        i += 2;
      } else if (next >= "0" && next <= "9") {
        let end = i + 2;
        while (end < n && pattern[end] >= "0" && pattern[end] <= "9") end++;
        out += pattern.slice(i, end);
        i = end;
      } else if (next === "c") {
        if (/^[A-Za-z]$/.test(pattern[i + 2] ?? "")) {
          out += pattern.slice(i, i + 3);
          i += 3;
        } else {
          // Without a control letter, `\c` is a backslash, then the letter c.
          out += "\\\\";
          i++;
        }
      } else if (next === "x" && isHex(pattern[i + 2]) && isHex(pattern[i + 3])) {
        const c = parseInt(pattern.slice(i + 2, i + 4), 16);
        out += bothCases(c) ?? pattern.slice(i, i + 4);
        i += 4;
      } else if (next === "u" && /^[0-9a-fA-F]{4}$/.test(pattern.slice(i + 2, i + 6))) {
        const c = parseInt(pattern.slice(i + 2, i + 6), 16);
        out += bothCases(c) ?? pattern.slice(i, i + 6);
        i += 6;
      } else if (next === "k" && named && pattern[i + 2] === "<") {
        const close = pattern.indexOf(">", i + 3);
        const end = close < 0 ? n : close + 1;
        out += pattern.slice(i, end);
        i = end;
      } else {
        // An identity escape: the character itself.
        out += bothCases(next.charCodeAt(0)) ?? ch + next;
        i += 2;
      }
    } else if (ch === "[") {
      const [text, end] = expandClass(pattern, i);
      out += text;
      i = end;
    } else if (ch === "(" && pattern[i + 1] === "?") {
      // A group name or modifiers are kept as written: `(?<name>`, `(?i:`, `(?-i:`.
      const head = /^\(\?(?:<(?![=!])[^>]*>|[a-zA-Z]*-?[a-zA-Z]*:)/.exec(pattern.slice(i, i + 200));
      const len = head ? head[0].length : 2;
      out += pattern.slice(i, i + len);
      i += len;
    } else {
      out += bothCases(ch.charCodeAt(0)) ?? ch;
      i++;
    }
  }
  return out;
}

/** One atom of a class: its character code, or undefined for a class escape (`\w`). */
function classAtom(pattern: string, i: number): { code: number | undefined; end: number } {
  const ch = pattern[i];
  if (ch !== "\\") return { code: ch.charCodeAt(0), end: i + 1 };
  const next = pattern[i + 1] ?? "\\";
  if ("dDsSwW".includes(next)) return { code: undefined, end: i + 2 };
  const simple: Record<string, number> = { b: 8, n: 10, r: 13, t: 9, v: 11, f: 12 };
  if (next in simple) return { code: simple[next], end: i + 2 };
  if (next >= "0" && next <= "7") {
    let end = i + 2, value = 0;
    while (end < i + 4 + (next <= "3" ? 1 : 0) && pattern[end] >= "0" && pattern[end] <= "7") end++;
    value = parseInt(pattern.slice(i + 1, end), 8);
    return { code: value, end };
  }
  if (next === "c") {
    const letter = pattern[i + 2] ?? "";
    if (/^[A-Za-z0-9_]$/.test(letter)) return { code: letter.charCodeAt(0) % 32, end: i + 3 };
    return { code: 0x5c, end: i + 1 }; // a backslash; the c is the next atom
  }
  if (next === "x" && isHex(pattern[i + 2]) && isHex(pattern[i + 3])) {
    return { code: parseInt(pattern.slice(i + 2, i + 4), 16), end: i + 4 };
  }
  if (next === "u" && /^[0-9a-fA-F]{4}$/.test(pattern.slice(i + 2, i + 6))) {
    return { code: parseInt(pattern.slice(i + 2, i + 6), 16), end: i + 6 };
  }
  return { code: next.charCodeAt(0), end: i + 2 };
}

/** The class starting at `start` (`[`), with the other case of each letter it holds added. */
function expandClass(pattern: string, start: number): [string, number] {
  let i = start + 1;
  if (pattern[i] === "^") i++;
  const ranges: [number, number][] = [];
  while (i < pattern.length && pattern[i] !== "]") {
    const a = classAtom(pattern, i);
    i = a.end;
    if (a.code === undefined) continue;
    if (pattern[i] === "-" && pattern[i + 1] !== "]" && i + 1 < pattern.length) {
      const b = classAtom(pattern, i + 1);
      if (b.code !== undefined) {
        ranges.push([a.code, b.code]);
        i = b.end;
        continue;
      }
    }
    ranges.push([a.code, a.code]);
  }
  let extra = "";
  const add = (lo: number, hi: number) => {
    extra += lo === hi ? hexEscape(lo) : `${hexEscape(lo)}-${hexEscape(hi)}`;
  };
  for (const [lo, hi] of ranges) {
    const ulo = Math.max(lo, 0x41), uhi = Math.min(hi, 0x5a);
    if (ulo <= uhi) add(ulo + 32, uhi + 32);
    const llo = Math.max(lo, 0x61), lhi = Math.min(hi, 0x7a);
    if (llo <= lhi) add(llo - 32, lhi - 32);
  }
  return [pattern.slice(start, i) + extra + (i < pattern.length ? "]" : ""), i + 1];
}

/**
 * A pattern lower-cased except inside escapes (`\W`, `\S`, `\p{Lu}`,
 * `\k<Name>`, `\u{…}` keep their meaning), for matching lower-cased text.
 */
export function lowerOutsideEscapes(pattern: string): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch !== "\\") {
      out += ch.toLowerCase();
      continue;
    }
    const next = pattern[i + 1] ?? "";
    const open = "pPk".includes(next) && (pattern[i + 2] === "{" || pattern[i + 2] === "<")
      ? pattern[i + 2]
      : undefined;
    if (open !== undefined) {
      const close = pattern.indexOf(open === "{" ? "}" : ">", i + 3);
      const end = close < 0 ? pattern.length : close + 1;
      out += pattern.slice(i, end);
      i = end - 1;
    } else {
      out += ch + next;
      i++;
    }
  }
  return out;
}

/** Refuses a pattern V8's linear engine cannot run (backreferences, lookaround): it could backtrack without bound. */
export function assertLinear(source: string, flags: string): void {
  try {
    // The linear engine lacks case folding; it does not change whether a pattern is linear.
    new RegExp(source, flags.replace("i", "") + "l");
  } catch (error) {
    if (!linearEngineAvailable()) {
      throw new Error("V8 was started without --enable-experimental-regexp-engine");
    }
    throw new ToolRefusal(
      "bad_pattern",
      `The pattern cannot run in linear time (${
        (error as Error).message.replace(/^Invalid regular expression: /, "").slice(0, 120)
      }); backreferences and lookaround are not supported.`,
    );
  }
}

/** Smart case: whether the pattern has an upper-case letter (outside regex escapes such as `\W`). */
export function hasUpperCase(pattern: string, regex: boolean): boolean {
  const text = regex ? pattern.replace(/\\[pP]\{[^}]*\}|\\./g, "") : pattern;
  return /\p{Lu}/u.test(text);
}

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * Searches one file's text. `skip` matches are passed over (a continued
 * page), at most `limit` are kept (all are counted in count mode).
 */
export function searchText(
  bytes: Uint8Array,
  latin1: string,
  matcher: Matcher,
  mode: OutputMode,
  context: number,
  skip: number,
  limit: number,
  ctx: ToolContext,
): { count: number; matches: MatchOut[]; more: boolean; stopped: boolean } {
  const original = matcher.decoded ? decoder.decode(bytes) : latin1;
  // Lower-casing keeps every latin1 character at its index (and nearly every other one).
  const text = matcher.lower ? original.toLowerCase() : original;
  const lineText = matcher.decoded
    ? (start: number, end: number) => original.slice(start, end)
    : (start: number, end: number) => decoder.decode(bytes.subarray(start, end));
  const matches: MatchOut[] = [];
  let secrets: LineSecrets | undefined;
  let count = 0;
  let lineNo = 1;
  let counted = 0; // offset up to which newlines were counted into lineNo
  let from = 0;
  let more = false;
  const stopped = () => ctx.stop.reason() !== undefined;
  while (from <= text.length) {
    const hit = matcher.find(text, from, stopped);
    if (hit < 0) {
      if (ctx.stop.reason()) return { count, matches, more: true, stopped: true };
      break;
    }
    const start = text.lastIndexOf("\n", hit - 1) + 1;
    let end = text.indexOf("\n", hit);
    if (end < 0) end = text.length;
    from = end + 1;
    const raw = text.slice(start, end);
    const column = matcher.inLine(raw);
    if (column < 0) continue;
    for (let i = text.indexOf("\n", counted); i >= 0 && i < start; i = text.indexOf("\n", i + 1)) {
      lineNo++;
      counted = i + 1;
    }
    if (counted < start) counted = start;
    count++;
    if (mode === "files_with_matches") break;
    if (mode === "count") continue;
    if (count <= skip) continue;
    if (matches.length >= limit) {
      more = true;
      break;
    }
    const line = lineText(start, end);
    const at = matcher.decoded ? column : decodedOffset(bytes, start, column);
    const match: MatchOut = { line: lineNo, column: column + 1, ...cutLine(line, at) };
    if (context > 0) {
      const before = contextBefore(text, start, context, lineText);
      const after = contextAfter(text, end, context, lineText);
      if (before.length) match.before = before;
      if (after.length) match.after = after;
    }
    // Redaction is decided on the whole file: the secrets these lines show, whole or in part
    // (a key whose BEGIN line is above the context, a `token =` whose value is on the next
    // line), are withheld where they lie (ADR-060).
    secrets ??= new LineSecrets(matcher.decoded ? original : decoder.decode(bytes));
    if (secrets.any) noteSecrets(match, secrets, windowBegin(line, at));
    matches.push(match);
    if (ctx.stop.reason()) return { count, matches, more: true, stopped: true };
  }
  return { count, matches, more, stopped: false };
}

/** The match's offset in the decoded line: the characters its preceding bytes decode to. */
function decodedOffset(bytes: Uint8Array, lineStart: number, byteColumn: number): number {
  if (byteColumn === 0) return 0;
  return decoder.decode(bytes.subarray(lineStart, lineStart + byteColumn)).length;
}

/** Where the window {@linkcode cutLine} returns of `line` begins. */
function windowBegin(line: string, at: number): number {
  return line.length <= MAX_LINE_CHARS
    ? 0
    : Math.max(0, Math.min(at - 100, line.length - MAX_LINE_CHARS));
}

/** A line as returned: whole up to {@linkcode MAX_LINE_CHARS}, else a window around the match. */
function cutLine(line: string, at: number): { text: string; cut?: true } {
  if (line.length <= MAX_LINE_CHARS) return { text: line };
  const begin = windowBegin(line, at);
  const text = (begin > 0 ? "…" : "") + line.slice(begin, begin + MAX_LINE_CHARS) +
    (begin + MAX_LINE_CHARS < line.length ? "…" : "");
  return { text, cut: true };
}

/** A piece of a secret on one of a match's strings: `before[k]`, `text` or `after[k]`. */
export interface MatchSecret {
  /** The secret, as the file's index of it (one secret may show in several matches). */
  readonly id: number;
  readonly rule: string;
  readonly key: "before" | "text" | "after";
  readonly k: number;
  readonly start: number;
  readonly end: number;
}

/** The secrets each returned match shows (kept beside it, not in its output). */
export const SECRETS_SHOWN = new WeakMap<MatchOut, MatchSecret[]>();

/**
 * Records where the secrets of the whole file lie on `match`'s lines: the match line (cut
 * to a window starting at `begin` when long) and its context lines (cut from their start).
 */
function noteSecrets(match: MatchOut, secrets: LineSecrets, begin: number): void {
  const before = match.before ?? [];
  const first = match.line - before.length;
  const shown: MatchSecret[] = [];
  for (const secret of secrets.on(first, match.line + (match.after?.length ?? 0))) {
    for (const piece of secret.pieces) {
      const key = piece.line < match.line ? "before" : piece.line === match.line ? "text" : "after";
      const k = key === "before"
        ? piece.line - first
        : key === "after"
        ? piece.line - match.line - 1
        : 0;
      // A cut line shows characters from its window's begin, after a "…" when begin > 0.
      const from = key === "text" ? begin : 0;
      const returned = key === "text" ? match.text : match[key]![k];
      const visible = returned.length > MAX_LINE_CHARS ? MAX_LINE_CHARS : returned.length;
      const start = Math.max(piece.start, from), end = Math.min(piece.end, from + visible);
      if (start >= end) continue;
      const shift = (from > 0 ? 1 : 0) - from;
      shown.push({
        id: secret.id,
        rule: secret.rule,
        key,
        k,
        start: start + shift,
        end: end + shift,
      });
    }
  }
  if (shown.length) SECRETS_SHOWN.set(match, shown);
}

function contextBefore(
  text: string,
  lineStart: number,
  n: number,
  lineText: (s: number, e: number) => string,
): string[] {
  const out: string[] = [];
  let end = lineStart - 1;
  while (out.length < n && end >= 0) {
    const start = text.lastIndexOf("\n", end - 1) + 1;
    out.unshift(cutLine(lineText(start, end), 0).text);
    end = start - 1;
  }
  return out;
}

function contextAfter(
  text: string,
  lineEnd: number,
  n: number,
  lineText: (s: number, e: number) => string,
): string[] {
  const out: string[] = [];
  let start = lineEnd + 1;
  while (out.length < n && start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    out.push(cutLine(lineText(start, end), 0).text);
    start = end + 1;
  }
  return out;
}
