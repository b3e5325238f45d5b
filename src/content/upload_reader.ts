/**
 * `command_upload`'s curl/wget reader and its witnesses (ADR-124): necessary conditions of the
 * class's curl/wget alternative, read from an ASCII text's code units, so that its pattern is
 * tried only where it may match. Both only ever skip a pattern that cannot match; the reference
 * test (`tests/unit/assess_upload_reader_test.ts`) compares them with the pattern alone.
 *
 * @module
 */

/*
 * The curl/wget reader (ADR-124). At a `curl` or `wget` candidate of an ASCII text, the class's
 * pattern is tried only if a payload may start at one of the word starts its run of shell words
 * reaches; the reader walks those words as `UPLOAD_WORDS` does (separators of blanks and `\`
 * continuations, at most 24 between two words; words of at most 200 units up to a blank or `|`;
 * at most 16; a command word ends them) and checks at each start a necessary condition of
 * `UPLOAD_PAYLOAD`: a body or form flag with a marker that may open its secret (an `@`/`<` before
 * a path that may name a sensitive source, a substitution whose body may read one, a variable
 * that may be named for a secret) in its word, the word after it or a quoted value opened there;
 * an upload flag with a path that may; a URL with such a substitution or variable; a redirect
 * from such a path. Where one holds, the pattern itself decides, from the candidate's start: the
 * reader only ever skips a pattern that cannot match, and the reference test compares them.
 */
/** Byte → 1 for an ASCII word character (`[a-z0-9_]` in either case: `\\b`'s). */
const WORD_BYTE = new Uint8Array(256);
for (let c = 0; c < 128; c++) if (/[A-Za-z0-9_]/.test(String.fromCharCode(c))) WORD_BYTE[c] = 1;
/** Byte → 1 for JavaScript's ASCII `\s` (tab, newline, vertical tab, form feed, return, space). */
const SPACE = new Uint8Array(256);
for (const c of [9, 10, 11, 12, 13, 32]) SPACE[c] = 1;
/** Byte → 1 where a path's run (`[^\s'"|;@<]`) stops. */
const PATH_STOP = new Uint8Array(256);
for (const c of [9, 10, 11, 12, 13, 32, 0x27, 0x22, 0x7c, 0x3b, 0x40, 0x3c]) PATH_STOP[c] = 1;
/** Byte → 1 for an ASCII letter. */
const LETTER = new Uint8Array(256);
for (let c = 0; c < 26; c++) LETTER[65 + c] = LETTER[97 + c] = 1;
const lower = (c: number) => (c >= 65 && c <= 90 ? c | 0x20 : c);
/** Whether the ASCII word `word` (lowercase) stands at `i` of `u`, in either case. */
function wordAt(u: Uint8Array, end: number, i: number, word: string): boolean {
  if (i + word.length > end) return false;
  for (let k = 0; k < word.length; k++) if (lower(u[i + k]) !== word.charCodeAt(k)) return false;
  return true;
}
/** Words to look for in the code units (see {@linkcode anyWordIn}): their codes and first letters. */
interface Words {
  readonly codes: readonly Uint8Array[];
  readonly first: Uint8Array;
}
function wordsOf(words: readonly string[]): Words {
  const first = new Uint8Array(256);
  for (const w of words) first[w.charCodeAt(0)] = first[w.charCodeAt(0) - 32] = 1;
  return { codes: words.map((w) => Uint8Array.from(w, (c) => c.charCodeAt(0))), first };
}
/** Whether one of `words` stands somewhere in `u[from, to)`, in either case. */
function anyWordIn(u: Uint8Array, from: number, to: number, words: Words): boolean {
  for (let i = from; i < to; i++) {
    if (words.first[u[i]] === 0) continue;
    const c = u[i] | 0x20;
    for (const w of words.codes) {
      if (w[0] !== c || i + w.length > to) continue;
      let k = 1;
      while (k < w.length && lower(u[i + k]) === w[k]) k++;
      if (k === w.length) return true;
    }
  }
  return false;
}
/**
 * Whether SENSITIVE_PATH may match at `i`: after an optional quote, the path's run holds a `.`,
 * `/` or `_` (every SENSITIVE alternative but the words) or is 6 units long (`secret`, the
 * shortest word).
 */
function pathMay(u: Uint8Array, end: number, i: number): boolean {
  if (i < end && (u[i] === 0x22 || u[i] === 0x27)) i++;
  const from = i;
  for (; i < end && PATH_STOP[u[i]] === 0; i++) {
    const c = u[i];
    if (c === 0x2e || c === 0x2f || c === 0x5f || i - from >= 5) return true;
  }
  return false;
}
/** What SECRET_SUBSTITUTION's alternatives hold when they hold no `.`, `/`, `_` or `$`. */
const SUBSTITUTION_WORDS = wordsOf([
  "env",
  "whoami",
  "hostname",
  "history",
  "auth",
  "credential",
  "kubeconfig",
  "secret",
]);
/**
 * Whether SECRET_SUBSTITUTION may match with its body at `from`: the body (up to `(`, `)`, a
 * backtick or a newline; 120 units, past its 100 and the start of what follows) holds a `.`,
 * `/`, `_` or `$`, or a word its other alternatives start with.
 */
function substitutionMay(u: Uint8Array, end: number, from: number): boolean {
  const to = Math.min(from + 120, end);
  let k = from;
  for (; k < to; k++) {
    const c = u[k];
    if (c === 0x28 || c === 0x29 || c === 0x60 || c === 10) break;
    if (c === 0x2e || c === 0x2f || c === 0x5f || c === 0x24) return true;
  }
  return anyWordIn(u, from, k, SUBSTITUTION_WORDS);
}
/** What every SECRET_VARIABLE name holds. */
const VARIABLE_WORDS = wordsOf(["token", "secret", "passw", "key", "credential"]);
/** Whether SECRET_VARIABLE may match at the `$` at `i`. */
function variableMay(u: Uint8Array, end: number, i: number): boolean {
  i++;
  if (i < end && u[i] === 0x7b) {
    i++;
    if (i < end && u[i] === 0x7b) return true;
  }
  if (wordAt(u, end, i, "env:")) i += 4;
  const from = i, to = Math.min(i + 60, end);
  while (i < to && WORD_BYTE[u[i]] !== 0) i++;
  return anyWordIn(u, from, i, VARIABLE_WORDS);
}
/** Whether a marker at `i` (`@`, `<`, `$`, a backtick) may open SECRET_VALUE's secret. */
function markerMay(u: Uint8Array, end: number, i: number): boolean {
  const c = u[i];
  if (c === 0x40 || c === 0x3c) return pathMay(u, end, i + 1);
  if (c === 0x60) return substitutionMay(u, end, i + 1);
  if (c !== 0x24) return false;
  return i + 1 < end && u[i + 1] === 0x28 ? substitutionMay(u, end, i + 2) : variableMay(u, end, i);
}
const isMarker = (c: number) => c === 0x40 || c === 0x3c || c === 0x24 || c === 0x60;
/**
 * Whether a marker that may open a secret lies in the value that may start in the word at `i`:
 * up to the word's end (at most 130 units), and within a quoted value opened in it, up to its
 * closing quote or the line's end (200 characters or escapes).
 */
function valueMay(u: Uint8Array, end: number, i: number): boolean {
  const to = Math.min(i + 130, end);
  for (; i < to && SPACE[u[i]] === 0; i++) {
    const c = u[i];
    if (isMarker(c)) {
      if (markerMay(u, end, i)) return true;
    } else if (c === 0x22 || c === 0x27) {
      let k = i + 1;
      for (let n = 0; n <= 200 && k < end; n++, k++) {
        const d = u[k];
        if (d === c || d === 10) break;
        if (d === 0x5c && c === 0x22 && k + 1 < end && u[k + 1] !== 10) k++;
        else if (isMarker(d) && markerMay(u, end, k)) return true;
      }
      i = k;
    }
  }
  return false;
}
/** Whether the file path of an upload flag may be in the word at `i`: `.`, `/`, `_` or 7 units. */
function fileMay(u: Uint8Array, end: number, i: number): boolean {
  const from = i, to = Math.min(i + 130, end);
  for (; i < to && SPACE[u[i]] === 0; i++) {
    const c = u[i];
    if (c === 0x2e || c === 0x2f || c === 0x5f || i - from >= 6) return true;
  }
  return false;
}
/** DATA_FLAG's and FILE_FLAG's long names, after `--`. */
const DATA_NAMES = ["data", "json", "form", "post-data", "body-data"];
const FILE_NAMES = ["upload-file", "post-file", "body-file"];
/**
 * 1 if the word at `i` may start DATA_FLAG, 2 FILE_FLAG, 3 both, 0 neither (`-[a-z]{0,3}[df]`,
 * `-[a-z]{0,3}t`, the long names; `-body` and `-infile` are short shapes too).
 */
function flagKind(u: Uint8Array, end: number, i: number): number {
  if (i + 1 < end && u[i + 1] === 0x2d) {
    let kind = 0;
    for (const w of DATA_NAMES) if (wordAt(u, end, i + 2, w)) kind |= 1;
    for (const w of FILE_NAMES) if (wordAt(u, end, i + 2, w)) kind |= 2;
    return kind;
  }
  // `-infile` is FILE_FLAG's, and has no `t` among its first four letters.
  let kind = wordAt(u, end, i + 1, "infile") ? 2 : 0;
  for (let k = i + 1; k < i + 5 && k < end; k++) {
    const c = lower(u[k]);
    if (c < 0x61 || c > 0x7a) break;
    if (c === 0x64 || c === 0x66) kind |= 1;
    else if (c === 0x74) kind |= 2;
  }
  return kind;
}
/**
 * The end of the separator run at `i` if it has 1 to 24 units (blanks, `\` continuations),
 * else -1.
 */
function separatorEnd(u: Uint8Array, end: number, i: number): number {
  let n = 0;
  for (; i < end; n++) {
    const c = u[i];
    if (c === 0x20 || c === 9) i++;
    else if (c === 0x5c && i + 1 < end && u[i + 1] === 10) i += 2;
    else if (c === 0x5c && i + 2 < end && u[i + 1] === 13 && u[i + 2] === 10) i += 3;
    else break;
  }
  return n >= 1 && n <= 24 ? i : -1;
}
/** The end of the word at `i` (a blank ends it; a `\` before a line's end is a separator's). */
function wordEnd(u: Uint8Array, end: number, i: number): number {
  while (i < end && SPACE[u[i]] === 0) i++;
  return u[i - 1] === 0x5c && (u[i] === 10 || u[i] === 13) ? i - 1 : i;
}
/** Whether a payload (UPLOAD_PAYLOAD) may start at the word start `i`. */
function payloadMay(u: Uint8Array, end: number, i: number): boolean {
  const c = lower(u[i]);
  if (c === 0x2d) {
    const kind = flagKind(u, end, i);
    if (kind === 0) return false;
    // The value or path is in the flag's word or the next one.
    const next = separatorEnd(u, end, wordEnd(u, end, i));
    if ((kind & 1) !== 0 && (valueMay(u, end, i) || (next > 0 && valueMay(u, end, next)))) {
      return true;
    }
    return (kind & 2) !== 0 && flagPathMay(u, end, i, next);
  }
  return c === 0x3c ? redirectMay(u, end, i) : urlMay(u, end, i, c);
}
/** Whether `<[ \t]{0,3}` and SENSITIVE_PATH may match at the `<` at `i`. */
function redirectMay(u: Uint8Array, end: number, i: number): boolean {
  let k = i + 1;
  for (let b = 0; b < 3 && k < end && (u[k] === 0x20 || u[k] === 9); b++) k++;
  return pathMay(u, end, k);
}
/** Whether an upload flag (FILE_FLAG) with a path that may be sensitive starts at `i`. */
function fileFlagMay(u: Uint8Array, end: number, i: number): boolean {
  if ((flagKind(u, end, i) & 2) === 0) return false;
  return flagPathMay(u, end, i, separatorEnd(u, end, wordEnd(u, end, i)));
}
/**
 * Whether the path of the upload flag at `i` may be sensitive: in the flag's own word, or in
 * the next word, which starts at `next` (-1: none within the separators' bound).
 */
function flagPathMay(u: Uint8Array, end: number, i: number, next: number): boolean {
  return fileMay(u, end, i + 1) || (next > 0 && pathMay(u, end, next));
}
/** Whether SECRET_URL may match at `i`, whose lowercase unit is `c`. */
function urlMay(u: Uint8Array, end: number, i: number, c: number): boolean {
  if (c !== 0x22 && c !== 0x27 && c !== 0x68 && c !== 0x66) return false;
  // A URL's run (`[^\s'"]`, 300 units and the marker) with a substitution or a variable.
  let k = c === 0x22 || c === 0x27 ? i + 1 : i;
  if (!wordAt(u, end, k, "http") && !wordAt(u, end, k, "ftp")) return false;
  const to = Math.min(k + 320, end);
  for (; k < to; k++) {
    const d = u[k];
    if (SPACE[d] === 1 || d === 0x22 || d === 0x27) break;
    if ((d === 0x24 || d === 0x60) && markerMay(u, end, k)) return true;
  }
  return false;
}
/** The command words that end a candidate's words (UPLOAD_TOOLS, then a word's end). */
const TOOL_WORDS = ["curl", "wget", "iwr", "irm", "nc", "ncat", "netcat"];
/** Whether the word at `i` is one of the commands (`(?!UPLOAD_TOOLS\b)` fails there). */
function toolAt(u: Uint8Array, end: number, i: number): boolean {
  const c = lower(u[i]);
  if (c !== 0x63 && c !== 0x77 && c !== 0x69 && c !== 0x6e) return false;
  let k = i;
  while (k < end && WORD_BYTE[u[k]] !== 0) k++;
  const n = k - i;
  if (n === 6 && wordAt(u, end, i, "invoke") && k < end && u[k] === 0x2d) {
    let m = k + 1;
    while (m < end && WORD_BYTE[u[m]] !== 0) m++;
    return m - k - 1 === 10 &&
      (wordAt(u, end, k + 1, "webrequest") || wordAt(u, end, k + 1, "restmethod"));
  }
  if (n < 2 || n > 6) return false;
  for (const w of TOOL_WORDS) if (w.length === n && wordAt(u, end, i, w)) return true;
  return false;
}
/**
 * Whether `command_upload`'s curl/wget alternative may match at `at`, where `curl` or `wget`
 * stands in the ASCII text whose code units are `u[0, end)`. False only where it cannot.
 */
export function curlMay(u: Uint8Array, end: number, at: number): boolean {
  let i = at + 4;
  for (let words = 0;; words++) {
    // The separators (as separatorEnd, inline: this loop runs at every candidate's every word).
    let n = 0;
    for (; i < end; n++) {
      const c = u[i];
      if (c === 0x20 || c === 9) i++;
      else if (c !== 0x5c) break;
      else if (i + 1 < end && u[i + 1] === 10) i += 2;
      else if (i + 2 < end && u[i + 1] === 13 && u[i + 2] === 10) i += 3;
      else break;
    }
    if (n === 0 || n > 24 || i >= end) return false;
    // Only these units start a payload (`-`, `<`, a quote, a URL's h or f) or a command (c, w,
    // i, n): the others need no call.
    const c = lower(u[i]);
    if (START[c] === 1 && payloadMay(u, end, i)) return true;
    if (words === 16 || (START[c] === 2 && toolAt(u, end, i))) return false;
    // The word: up to a blank or `|`; a `\` before a line's end belongs to the separator.
    const from = i;
    while (i < end && SPACE[u[i]] === 0 && u[i] !== 0x7c) i++;
    let length = i - from;
    if (u[i - 1] === 0x5c && (u[i] === 10 || u[i] === 13)) length--;
    if (length > 200) return false;
    if (length < i - from) i--;
  }
}
/** Lowercase unit → 1 if a payload may start with it, 2 if a command word may. */
const START = new Uint8Array(256);
for (const c of "-<\"'hf") START[c.charCodeAt(0)] = 1;
for (const c of "cwin") START[c.charCodeAt(0)] = 2;
/**
 * Whether the text at `at` is `curl` or `wget` (then only the class's first alternative may
 * match there).
 */
export function curlOrWgetAt(u: Uint8Array, end: number, at: number): boolean {
  if (at + 4 > end || (at + 4 < end && WORD_BYTE[u[at + 4]] !== 0)) return false;
  const a = u[at] | 0x20, b = u[at + 1] | 0x20, c = u[at + 2] | 0x20, d = u[at + 3] | 0x20;
  return (a === 0x63 && b === 0x75 && c === 0x72 && d === 0x6c) ||
    (a === 0x77 && b === 0x67 && c === 0x65 && d === 0x74);
}

/**
 * The witnesses of the current text (ADR-124), in order: every place a payload's secret may
 * show itself, as the reader's checks see it. A marker (`@`, `<`, `$`, a backtick) whose
 * path, substitution or variable may be a secret's, a redirect `<` before such a path, and an
 * upload flag at a word's start with such a path. Found {@linkcode WITNESS_CHUNK} units at a
 * time ({@linkcode findWitnesses}) once a text has {@linkcode WITNESS_AFTER} curl candidates;
 * a candidate without a witness within its reach ({@linkcode witnessReach}, up to its stop:
 * {@linkcode stopAfter}) is not read at all.
 */
let witnesses = new Int32Array(256);
let witnessCount = 0;
/** The first witness not before the last candidate asked about ({@linkcode witnessWithin}). */
let witnessNext = 0;
/**
 * How far past a curl/wget candidate's start its match's witness may be: the 17th word's
 * start (4 + 17 separators of 24 units of at most 3 + 16 words of 200: 4,428), then
 * {@linkcode QUOTED_REACH}, rounded up.
 */
export const WITNESS_REACH = 5_000;
/**
 * How far past its payload's start a witness may be: a body flag (`--data-urlencode`, 16), 24
 * separator units of at most 3, a quoted value of 200 escapes and its quote (401): 489.
 */
const QUOTED_REACH = 489;
/**
 * The curl candidates of a text from which its witnesses are found, if they came at least one
 * per {@linkcode WITNESS_SPACING} units (fewer or sparser: the reader alone).
 */
export const WITNESS_AFTER = 32;
/** The most units per curl candidate, on average, of a text whose witnesses are found. */
export const WITNESS_SPACING = 512;
/**
 * Candidates of a chunk checked against the witnesses before they are judged: they are kept
 * while they let at least 3 in 4 of them go (fewer: the reader alone for the rest of the text).
 */
export const WITNESS_JUDGED_AFTER = 64;
/** The witnesses are found this many units at a time (ahead of the candidates that need them). */
export const WITNESS_CHUNK = 65_536;
/** Byte → 1 for `@`, `<`, `$`, a backtick, `-` (a witness's first unit). */
const WITNESS_FIRST = new Uint8Array(256);
for (const c of [0x40, 0x3c, 0x24, 0x60, 0x2d]) WITNESS_FIRST[c] = 1;
function push(list: Int32Array<ArrayBuffer>, count: number, at: number): Int32Array<ArrayBuffer> {
  if (count < list.length) {
    list[count] = at;
    return list;
  }
  const grown = new Int32Array(list.length * 2);
  grown.set(list);
  grown[count] = at;
  return grown;
}
/**
 * Appends the witnesses that start in `[from, to)` of the text `u[0, end)` (their checks may read
 * past `to`); `from` 0 starts the text's list anew.
 */
export function findWitnesses(u: Uint8Array, end: number, from: number, to: number): void {
  if (from === 0) witnessCount = witnessNext = 0;
  for (let i = from; i < to; i++) {
    const c = u[i], kind = WITNESS_FIRST[c];
    if (kind === 0) continue;
    let found: boolean;
    if (c === 0x2d) {
      // An upload flag: after a blank, `--`, `-i` or a `t` among the first letters (inline:
      // most flags are not).
      const b = i > 0 ? u[i - 1] : 0;
      if (b !== 0x20 && b !== 9 && b !== 10) continue;
      const d = lower(u[i + 1]);
      if (d !== 0x2d && d !== 0x69 && d !== 0x74) {
        let k = i + 2;
        while (k < i + 5 && k < end && lower(u[k]) !== 0x74 && LETTER[u[k]] === 1) k++;
        if (k === i + 5 || k >= end || lower(u[k]) !== 0x74) continue;
      }
      found = fileFlagMay(u, end, i);
    } else found = c === 0x3c ? redirectMay(u, end, i) : markerMay(u, end, i);
    if (found) witnesses = push(witnesses, witnessCount++, i);
  }
}
/**
 * How many of the gate's word candidates {@linkcode stopAfter} reads past a candidate: a flood of
 * `x.curl` (no stops) would otherwise have its list read again at each of its candidates.
 */
const STOP_LOOKAHEAD = 8;
/**
 * The first stop after `at` at or after entry `w` of the gate's word candidates (`list`, `count`
 * units, two an entry: start, classes; `bit`, `command_upload`'s), or -1: a command word after a
 * blank or a newline, where a candidate's words end if they get that far (every command word is
 * a gate word of `command_upload`), among the next {@linkcode STOP_LOOKAHEAD} entries.
 */
export function stopAfter(
  u: Uint8Array,
  end: number,
  list: Int32Array,
  count: number,
  w: number,
  bit: number,
  at: number,
): number {
  // None found within the lookahead is none at all: the farther reach.
  for (const last = Math.min(count, w + 2 * STOP_LOOKAHEAD); w < last; w += 2) {
    const p = list[w];
    if (p <= at || (list[w + 1] & bit) === 0) continue;
    const b = u[p - 1];
    if ((b === 0x20 || b === 9 || b === 10) && toolAt(u, end, p)) return p;
  }
  return -1;
}
/**
 * The last place a witness of a match at `at` may be, given the first stop after it (`stop`, or
 * -1): the candidate's words end there, so its payload starts before it; unless a quote is
 * opened on the way, its witness is in a word before the stop or in the unquoted start of the
 * stop's own word (a body flag's value `[^\s'"]{0,100}?`: `-d curl@.env`).
 */
export function witnessReach(u: Uint8Array, end: number, at: number, stop: number): number {
  const far = at + WITNESS_REACH;
  if (stop < 0 || stop >= far) return far;
  for (let i = at; i < stop; i++) if (u[i] === 0x22 || u[i] === 0x27) return stop + QUOTED_REACH;
  let k = stop;
  const to = Math.min(stop + 101, end);
  while (k < to && SPACE[u[k]] === 0 && u[k] !== 0x22 && u[k] !== 0x27) k++;
  return k;
}

/**
 * Whether a witness of the text {@linkcode findWitnesses} read last lies in `[at, reach]`; asked
 * with `at` in increasing order.
 */
export function witnessWithin(at: number, reach: number): boolean {
  while (witnessNext < witnessCount && witnesses[witnessNext] < at) witnessNext++;
  return witnessNext < witnessCount && witnesses[witnessNext] <= reach;
}

/** Lets a flood's witness list go (the next text's are found anew). */
export function releaseWitnesses(): void {
  if (witnesses.length > 1 << 14) witnesses = new Int32Array(256);
  witnessCount = witnessNext = 0;
}
