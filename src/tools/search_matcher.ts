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

/** The longest line returned whole; longer lines are cut around the match and marked. */
export const MAX_LINE_CHARS = 400;

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

/** A compiled search: finds matching lines in one file's text. */
export interface Matcher {
  /** Whether to search the decoded text (non-ASCII pattern) instead of latin1. */
  readonly decoded: boolean;
  /**
   * Case-insensitive: the text is lower-cased before searching and the
   * pattern was lower-cased outside its escapes. (V8's `i` flag would do it,
   * but its linear fallback engine has no case folding, so a runaway `i`
   * pattern would never be stopped.)
   */
  readonly fold: boolean;
  /** Index of the next candidate at or after `from`, or -1. */
  find(text: string, from: number): number;
  /** The match's offset in `line`, or -1 when the line itself does not match. */
  inLine(line: string): number;
}

export function compileMatcher(args: MatcherArgs): Matcher {
  const caseSensitive = args.case_sensitive ?? hasUpperCase(args.pattern, args.regex ?? false);
  const fold = !caseSensitive;
  // deno-lint-ignore no-control-regex
  const decoded = /[^\x00-\x7f]/.test(args.pattern);
  if (!args.regex) {
    const literal = fold ? args.pattern.toLowerCase() : args.pattern;
    return {
      decoded,
      fold,
      find: (text, from) => text.indexOf(literal, from),
      inLine: (line) => line.indexOf(literal),
    };
  }
  const source = fold ? lowerOutsideEscapes(args.pattern) : args.pattern;
  let whole: RegExp;
  try {
    whole = new RegExp(source, "gm");
  } catch (error) {
    throw new ToolRefusal(
      "bad_pattern",
      `The pattern is not a valid regular expression: ${
        (error as Error).message.replace(/^Invalid regular expression: /, "").slice(0, 200)
      }.`,
    );
  }
  assertLinear(source, "m");
  const line = new RegExp(source, "m");
  return {
    decoded,
    fold,
    find(text, from) {
      whole.lastIndex = from;
      const m = whole.exec(text);
      return m === null ? -1 : m.index;
    },
    inLine(text) {
      const m = line.exec(text);
      return m === null ? -1 : m.index;
    },
  };
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

let linearEngine: boolean | undefined;
/** Whether V8's linear engine (the `l` flag, `--enable-experimental-regexp-engine`) is on. */
export function linearEngineAvailable(): boolean {
  if (linearEngine === undefined) {
    try {
      // deno-lint-ignore no-invalid-regexp -- "l" exists under --enable-experimental-regexp-engine
      new RegExp("a", "l");
      linearEngine = true;
    } catch {
      linearEngine = false;
    }
  }
  return linearEngine;
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
  const text = matcher.fold ? original.toLowerCase() : original;
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
  while (from <= text.length) {
    const hit = matcher.find(text, from);
    if (hit < 0) break;
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
