/**
 * The folded copy the injection assessment reads: tag characters decoded to
 * the ASCII they hide, invisible and format characters removed, NFKC
 * (fullwidth and mathematical letters become plain ones), Cyrillic and Greek
 * look-alikes mapped to Latin, lowercase. Newlines are kept, so line numbers
 * of the copy are those of the original. The returned text is never folded.
 *
 * @module
 */

/** Zero-width, soft hyphen, word joiners, BOM, Mongolian vowel separator, bidi controls. */
export const INVISIBLE =
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]|\udb40[\udc00-\udc7f]/g;

/** {@linkcode INVISIBLE} but tag characters, as one class (once tags are decoded). */
const INVISIBLE_UNITS =
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]/g;

/** Bidirectional embedding, override and isolate controls (Trojan Source). */
export const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/** {@linkcode BIDI} as a test (the one-pass folds say whether a text holds one). */
const BIDI_ONE = /[\u202a-\u202e\u2066-\u2069]/;

/** Unicode tag characters (U+E0000–U+E007F), as UTF-16 surrogate pairs. */
export const TAGS = /\udb40[\udc00-\udc7f]/g;

/** Terminal escape sequences (CSI and OSC), removed so they cannot split a word. */
// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;?]{0,20}[@-~]|\x1b\][^\x07\x1b\n]{0,200}(?:\x07|\x1b\\)?/g;

/** Latin look-alikes from Cyrillic and Greek (the confusables an attacker uses to dodge words). */
const CONFUSABLES: Record<string, string> = {
  "а": "a",
  "в": "b",
  "е": "e",
  "ё": "e",
  "к": "k",
  "м": "m",
  "н": "h",
  "о": "o",
  "р": "p",
  "с": "c",
  "т": "t",
  "у": "y",
  "х": "x",
  "ѕ": "s",
  "і": "i",
  "ї": "i",
  "ј": "j",
  "ԁ": "d",
  "ԛ": "q",
  "ԝ": "w",
  "һ": "h",
  "ɡ": "g",
  "ո": "n",
  "ս": "u",
  "А": "a",
  "В": "b",
  "Е": "e",
  "К": "k",
  "М": "m",
  "Н": "h",
  "О": "o",
  "Р": "p",
  "С": "c",
  "Т": "t",
  "У": "y",
  "Х": "x",
  "Ѕ": "s",
  "І": "i",
  "Ј": "j",
  "α": "a",
  "β": "b",
  "γ": "y",
  "ε": "e",
  "η": "n",
  "ι": "i",
  "κ": "k",
  "ν": "v",
  "ο": "o",
  "ρ": "p",
  "τ": "t",
  "υ": "u",
  "χ": "x",
  "ω": "w",
  "Α": "a",
  "Β": "b",
  "Ε": "e",
  "Ζ": "z",
  "Η": "h",
  "Ι": "i",
  "Κ": "k",
  "Μ": "m",
  "Ν": "n",
  "Ο": "o",
  "Ρ": "p",
  "Τ": "t",
  "Υ": "y",
  "Χ": "x",
  "ı": "i",
  "ℓ": "l",
};
const CONFUSABLE_CHARS = new RegExp(`[${Object.keys(CONFUSABLES).join("")}]`, "g");

/**
 * Everything but NFKC and the confusables that folding acts on (invisible, bidi and tag
 * characters, escape sequences): a text with none of these skips those passes, and the raw
 * signals that look for them (`assess.ts`). One character class (a tag character is matched by
 * its high surrogate, U+DB40), which the regex engine scans for several times faster than an
 * alternation.
 */
export const SPECIAL =
  // deno-lint-ignore no-control-regex
  /[\x1b\x9b\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\udb40]/;

/**
 * A combining mark (or any high surrogate: a few marks are astral). NFKC of the whole text
 * would join an ASCII letter and a mark after it, where normalizing each non-ASCII run alone
 * (what the fold does: ASCII is a barrier) keeps the letter; nothing composes with a following
 * ASCII character, so that is the only place where the two differ ({@linkcode nfkc}). Built on
 * first use from
 * the engine's own `\p{M}`, as a class of code units: without the `u` flag the engine scans
 * for it ~10× faster.
 */
let marks: RegExp | undefined;
function markPattern(): RegExp {
  if (marks) return marks;
  const hex = (c: number) => `\\u${c.toString(16).padStart(4, "0")}`;
  let ranges = "";
  for (const [from, to] of [[0x80, 0xd800], [0xe000, 0x10000]]) {
    const units = new Uint16Array(to - from);
    for (let i = 0; i < units.length; i++) units[i] = from + i;
    for (const m of UTF16.decode(units).matchAll(/\p{M}+/gu)) {
      const first = m[0].charCodeAt(0), last = m[0].charCodeAt(m[0].length - 1);
      ranges += first === last ? hex(first) : `${hex(first)}-${hex(last)}`;
    }
  }
  return marks = new RegExp(`[${ranges}\\ud800-\\udbff]`, "g");
}

/** Cuts beyond which {@linkcode nfkc} normalizes run by run instead of piece by piece. */
const MAX_CUTS = 64;

// deno-lint-ignore no-control-regex
const NON_ASCII_RUN = /[^\x00-\x7f]+/g;

/**
 * NFKC as the fold defines it: each maximal non-ASCII run on its own. Run by run while runs are
 * sparse (prose: a call per run, none for a one-character run NFKC keeps, is cheaper than
 * normalizing the whole text); once they are dense (more than one per 64 characters, past 256)
 * the rest goes to {@linkcode nfkcBulk}. Cutting before a run changes nothing, runs being
 * independent.
 */
function nfkc(text: string): string {
  const parts: string[] = [];
  let last = 0, runs = 0;
  NON_ASCII_RUN.lastIndex = 0;
  for (let m = NON_ASCII_RUN.exec(text); m; m = NON_ASCII_RUN.exec(text)) {
    if (++runs > 256 && runs * 64 > m.index) {
      parts.push(text.slice(last, m.index), nfkcBulk(text.slice(m.index)));
      return parts.join("");
    }
    const run = m[0];
    if (run.length === 1) {
      const c = run.charCodeAt(0);
      if (KEPT_ALONE[c] === 0) KEPT_ALONE[c] = run.normalize("NFKC") === run ? 1 : 2;
      if (KEPT_ALONE[c] === 1) continue;
    }
    const normalized = run.normalize("NFKC");
    if (normalized === run) continue;
    parts.push(text.slice(last, m.index), normalized);
    last = m.index + run.length;
  }
  if (last === 0) return text;
  parts.push(text.slice(last));
  return parts.join("");
}

/**
 * {@linkcode nfkc} for text dense with non-ASCII runs. Where no combining mark follows
 * an ASCII character that is NFKC of the whole text; a text is cut before each mark that does
 * (the pieces then normalize to what the runs do), and one with many such marks (zalgo) is
 * normalized run by run.
 */
function nfkcBulk(text: string): string {
  const re = markPattern();
  re.lastIndex = 0;
  const cuts: number[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const at = m.index;
    if (at === 0 || text.charCodeAt(at - 1) >= 0x80) continue;
    // A high surrogate stands for any astral character: only an astral mark counts.
    const c = text.charCodeAt(at);
    if (c >= 0xd800 && c < 0xdc00 && !/^\p{M}/u.test(text.slice(at, at + 2))) continue;
    if (cuts.push(at) > MAX_CUTS) return nfkcRuns(text);
  }
  if (cuts.length === 0) return text.normalize("NFKC");
  let out = "", last = 0;
  for (const at of cuts) {
    out += text.slice(last, at).normalize("NFKC");
    last = at;
  }
  return out + text.slice(last).normalize("NFKC");
}

/** Per code unit: 0 not known yet, 1 a one-character run NFKC keeps, 2 one it changes. */
const KEPT_ALONE = new Uint8Array(0x10000);

/**
 * NFKC of each maximal non-ASCII run on its own (ASCII is unchanged by NFKC and is a barrier
 * here). A run of one code unit — most of them in prose and in look-alike floods — is looked up
 * in {@linkcode KEPT_ALONE} instead of being normalized.
 */
function nfkcRuns(text: string): string {
  const parts: string[] = [];
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 0x80) continue;
    const start = i;
    while (i + 1 < text.length && text.charCodeAt(i + 1) >= 0x80) i++;
    if (i === start) {
      const c = text.charCodeAt(i);
      if (KEPT_ALONE[c] === 0) {
        const ch = String.fromCharCode(c);
        KEPT_ALONE[c] = ch.normalize("NFKC") === ch ? 1 : 2;
      }
      if (KEPT_ALONE[c] === 1) continue;
    }
    const run = text.slice(start, i + 1);
    const normalized = run.normalize("NFKC");
    if (normalized === run) continue;
    parts.push(text.slice(last, start), normalized);
    last = i + 1;
  }
  if (last === 0) return text;
  parts.push(text.slice(last));
  return parts.join("");
}

/** Confusable → Latin letter, by UTF-16 code unit (0: not a confusable). */
const CONFUSABLE_CODES = new Uint16Array(0x10000);
for (const [from, to] of Object.entries(CONFUSABLES)) {
  CONFUSABLE_CODES[from.charCodeAt(0)] = to.charCodeAt(0);
}
const UTF16 = new TextDecoder("utf-16le");

/**
 * `text` with every confusable replaced by its Latin letter: piece by piece while they are
 * few, then the rest in one pass over the code units (a callback per character would cost
 * ~0.2 µs each on a text full of them).
 */
function mapConfusables(text: string): string {
  CONFUSABLE_CHARS.lastIndex = 0;
  let out = "", last = 0;
  for (let n = 0; n < 64; n++) {
    const m = CONFUSABLE_CHARS.exec(text);
    if (!m) return out + text.slice(last);
    out += text.slice(last, m.index) + CONFUSABLES[m[0]];
    last = m.index + 1;
  }
  return out + mapCodeUnits(text.slice(last));
}

function mapCodeUnits(text: string): string {
  const out = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const to = CONFUSABLE_CODES[c];
    out[i] = to === 0 ? c : to;
  }
  return UTF16.decode(out);
}

/**
 * The folded copy of `text` before lowercasing (the assessment matches it case-insensitively;
 * `foldForAssessment` lowercases it). For a pure-ASCII text only escape sequences are removed.
 * Otherwise each pass runs only where it can change something: the invisible, tag and escape
 * passes only when {@linkcode SPECIAL} occurs, NFKC over the whole text in one call (with a
 * barrier after each ASCII character that a combining character follows, so the result is
 * that of NFKC run by run), the confusables only when one occurs.
 */
export function foldUncased(text: string, ascii = isAscii(text)): string {
  return foldCounting(text, ascii).folded;
}

/**
 * {@linkcode foldUncased}, and the number of invisible, bidi and tag characters it removed
 * (what the assessment reports as `invisible_characters`), counted without a match loop.
 */
export function foldCounting(
  text: string,
  ascii = isAscii(text),
): { folded: string; invisible: number } {
  if (ascii) {
    return { folded: text.includes("\x1b") ? text.replace(ANSI, "") : text, invisible: 0 };
  }
  let folded = text, invisible = 0;
  if (SPECIAL.test(folded)) {
    if (folded.includes("\udb40")) {
      folded = folded.replace(TAGS, (pair) => {
        invisible++;
        const ascii = pair.charCodeAt(1) - 0xdc00;
        return ascii >= 0x20 && ascii < 0x7f ? String.fromCharCode(ascii) : "";
      });
    }
    const before = folded.length;
    folded = folded.replace(INVISIBLE_UNITS, "");
    invisible += before - folded.length;
    if (folded.includes("\x1b")) folded = folded.replace(ANSI, "");
  }
  // NFKC and the confusables touch only non-ASCII characters (ASCII is unchanged by both).
  folded = nfkc(folded);
  return { folded: mapConfusables(folded), invisible };
}

/** Whether `text` is pure ASCII. */
export function isAscii(text: string): boolean {
  // deno-lint-ignore no-control-regex
  return !/[^\x00-\x7f]/.test(text);
}

/** The folded copy of `text` (see the module comment). */
export function foldForAssessment(text: string): string {
  return foldUncased(text).toLowerCase();
}

/**
 * Code units the one-pass fold ({@linkcode foldInto}) maps on their own wherever they stand
 * next to ASCII, each other or invisible characters: fullwidth ASCII (NFKC gives the ASCII
 * character) and the confusables. None composes with a neighbour under NFKC (each is a starter
 * that is never the second of a composite; `ё` and `ї` recompose with their own base), so a run
 * of them normalizes character by character (`tests/unit/fold_test.ts` checks every pair).
 */
export const INERT: readonly number[] = [
  ...Array.from({ length: 0xff5e - 0xff01 + 1 }, (_, i) => 0xff01 + i),
  ...Object.keys(CONFUSABLES).map((c) => c.charCodeAt(0)),
];

/**
 * Per code unit, for {@linkcode foldInto}: 0 not looked at yet; 1 inert ({@linkcode INERT});
 * 2 invisible (removed); 3 a run of one that folds to one code unit (`FOLD_TO`); 5 a run of one
 * that folds to a string (`FOLD_STRING`: `…` is `...`); 6 a surrogate (its run is normalized);
 * 4 U+DB40, which starts a tag character (the one-pass fold gives up).
 */
const FOLD_KIND = new Uint8Array(0x10000);
const FOLD_TO = new Uint16Array(0x10000);
const FOLD_STRING = new Map<number, string>();
for (const c of INERT) {
  const n = String.fromCharCode(c).normalize("NFKC");
  FOLD_KIND[c] = 1;
  FOLD_TO[c] = CONFUSABLE_CODES[n.charCodeAt(0)] || n.charCodeAt(0);
}
for (const m of INVISIBLE_UNITS.source.slice(1, -1).matchAll(/\\u(....)(?:-\\u(....))?/g)) {
  const from = parseInt(m[1], 16), to = m[2] ? parseInt(m[2], 16) : from;
  for (let c = from; c <= to; c++) FOLD_KIND[c] = 2;
}
for (let c = 0xd800; c < 0xe000; c++) FOLD_KIND[c] = 6;
FOLD_KIND[0xdb40] = 4;

function kindOf(c: number): number {
  const n = String.fromCharCode(c).normalize("NFKC");
  const d = n.charCodeAt(0);
  if (n.length === 1 && (d < 0xd800 || d >= 0xe000)) {
    FOLD_TO[c] = CONFUSABLE_CODES[d] || d;
    return FOLD_KIND[c] = 3;
  }
  FOLD_STRING.set(c, mapCodeUnits(n));
  return FOLD_KIND[c] = 5;
}

const UTF8 = new TextDecoder();
const ENCODER = new TextEncoder();

/** Bytes of the UTF-8 of `s` (a lone surrogate counted as 3). */
function utf8Length(s: string): number {
  let n = 0;
  for (let k = 0; k < s.length; k++) {
    const d = s.charCodeAt(k);
    n += d < 0x80 ? 1 : d < 0x800 ? 2 : d >= 0xd800 && d < 0xdc00 ? 1 : 3;
  }
  return n;
}

/**
 * Writes the UTF-8 of `s` into `bytes` at `o`; the new end, or -1 for a lone surrogate (which
 * the fold keeps and UTF-8 cannot hold).
 */
function putString(s: string, bytes: Uint8Array, o: number): number {
  for (let k = 0; k < s.length; k++) {
    const d = s.charCodeAt(k);
    if (d < 0x80) bytes[o++] = d;
    else if (d < 0x800) {
      bytes[o++] = 0xc0 | (d >> 6);
      bytes[o++] = 0x80 | (d & 0x3f);
    } else if (d < 0xd800 || d >= 0xe000) {
      bytes[o++] = 0xe0 | (d >> 12);
      bytes[o++] = 0x80 | ((d >> 6) & 0x3f);
      bytes[o++] = 0x80 | (d & 0x3f);
    } else {
      const e = s.charCodeAt(k + 1);
      if (d >= 0xdc00 || !(e >= 0xdc00 && e < 0xe000)) return -1;
      const p = 0x10000 + ((d - 0xd800) << 10) + (e - 0xdc00);
      bytes[o++] = 0xf0 | (p >> 18);
      bytes[o++] = 0x80 | ((p >> 12) & 0x3f);
      bytes[o++] = 0x80 | ((p >> 6) & 0x3f);
      bytes[o++] = 0x80 | (p & 0x3f);
      k++;
    }
  }
  return o;
}

/**
 * `bytes` as 32-bit words when its start is aligned for them (every buffer the fold allocates
 * is), else undefined: {@linkcode asciiEnd} then reads byte by byte.
 */
function wordsOf(bytes: Uint8Array<ArrayBuffer>): Uint32Array | undefined {
  return bytes.byteOffset % 4 === 0
    ? new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2)
    : undefined;
}

/**
 * The index of the first byte from `r` that is not ASCII, given a non-ASCII byte at `written`
 * (the sentinel): four bytes at a time (`words`: the same buffer as 32-bit words) over the words
 * that lie wholly before `written`, then byte by byte. Prose is mostly long ASCII stretches, and
 * a byte per iteration cost most of `foldInto` on it (ADR-112). A word is ASCII when none of
 * its bytes has the high bit set, whatever the byte order.
 */
function asciiEnd(
  bytes: Uint8Array,
  words: Uint32Array | undefined,
  r: number,
  written: number,
): number {
  if (words !== undefined && written - r >= 16) {
    while ((r & 3) !== 0 && bytes[r] < 0x80) r++;
    if ((r & 3) === 0) {
      const last = written >> 2; // (words below it end at or before `written`)
      let w = r >> 2;
      while (w < last && (words[w] & 0x80808080) === 0) w++;
      r = w << 2;
    }
  }
  while (bytes[r] < 0x80) r++;
  return r;
}

/**
 * {@linkcode foldCounting} of a non-ASCII `text` in one pass over its code units, writing the
 * folded copy's UTF-8 into `bytes` (at least 3 bytes per code unit) for the assessment's gate,
 * so that no pass scans the text for special characters, normalizes it whole, maps confusables
 * or encodes it. The fold is defined run by run (a maximal non-ASCII run, its invisible
 * characters removed, NFKC, confusables), and so is this: an invisible character is dropped, a
 * run of {@linkcode INERT} characters is mapped unit by unit, a run of one is looked up (each
 * code unit normalized once per process), and any other run is normalized as a string. It gives
 * up (`undefined`: the caller folds pass by pass) on an escape (ESC), a tag character (U+DB40)
 * or a lone surrogate. `special`: whether {@linkcode SPECIAL} occurs in `text`.
 */
export function foldInto(
  text: string,
  into: Uint8Array<ArrayBuffer>,
  encoded = -1,
):
  | {
    folded: string;
    invisible: number;
    bytes: Uint8Array<ArrayBuffer>;
    length: number;
    special: boolean;
    bidi: boolean;
  }
  | undefined {
  let bytes = into;
  if (text.includes("\x1b")) return undefined;
  // The text's own UTF-8 (native; a copy for its ASCII), then one loop over those bytes,
  // folding in place: what is written never passes what is still to be read.
  // `encoded`: the UTF-8 length when `into` already holds the text's UTF-8.
  let written = encoded >= 0 ? encoded : ENCODER.encodeInto(text, bytes).written;
  // A sentinel byte (not ASCII) ends the last ASCII stretch without a bounds check per byte.
  if (written >= bytes.length) {
    const room = new Uint8Array(written + 1);
    room.set(bytes.subarray(0, written));
    bytes = room;
  }
  bytes[written] = 0xff;
  // The same bytes four at a time, for the ASCII stretches (ADR-112).
  let words = wordsOf(bytes);
  // r: next byte to read; extra: bytes read beyond their UTF-16 units; o: next byte to write.
  let r = 0, extra = 0, o = 0, invisible = 0, changed = false, special = false, bidi = false;
  while (r < written) {
    // An ASCII stretch, moved down when the output has shrunk.
    const from = r;
    r = asciiEnd(bytes, words, r, written);
    if (o !== from) {
      if (r - from > 32) bytes.copyWithin(o, from, r);
      else for (let k = from; k < r; k++) bytes[o + k - from] = bytes[k];
    }
    o += r - from;
    if (r >= written) break;
    // A non-ASCII run: the fold's unit (its invisible characters removed, then NFKC).
    const runByte = r, runExtra = extra, runStart = r - extra, runOut = o, runInvisible = invisible;
    while (r < written && bytes[r] >= 0x80) {
      const b = bytes[r];
      let c = 0xd800, len = 4;
      if (b < 0xe0) {
        c = ((b & 0x1f) << 6) | (bytes[r + 1] & 0x3f);
        len = 2;
      } else if (b < 0xf0) {
        c = ((b & 0x0f) << 12) | ((bytes[r + 1] & 0x3f) << 6) | (bytes[r + 2] & 0x3f);
        len = 3;
        // A lone surrogate is encoded as U+FFFD, which the fold does not write for it.
        if (c === 0xfffd && text.charCodeAt(r - extra) !== 0xfffd) return undefined;
      }
      let kind = FOLD_KIND[c];
      if (kind === 0) kind = kindOf(c);
      if (kind === 2) {
        invisible++;
        special = changed = true;
        if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) bidi = true;
        r += len;
        extra += len - 1;
        continue;
      }
      const single = kind !== 1 && r === runByte && (r + len === written || bytes[r + len] < 0x80);
      const d = FOLD_TO[c];
      // A character that takes more bytes folded than it did (two to three) goes the long way.
      if ((kind === 1 || (single && kind === 3)) && (d < 0x800 || o + 3 <= r + len)) {
        if (c === 0x9b) special = true;
        if (d !== c) changed = true;
        if (d < 0x80) bytes[o++] = d;
        else if (d < 0x800) {
          bytes[o++] = 0xc0 | (d >> 6);
          bytes[o++] = 0x80 | (d & 0x3f);
        } else {
          bytes[o++] = 0xe0 | (d >> 12);
          bytes[o++] = 0x80 | ((d >> 6) & 0x3f);
          bytes[o++] = 0x80 | (d & 0x3f);
        }
        r += len;
        extra += len - 1;
        continue;
      }
      // Any other run is folded as a string, as the fold does it, from its start (what was
      // written for it is written again); a run of one keeps what its character folds to.
      let end = r;
      if (single) end = r + len;
      else while (end < written && bytes[end] >= 0x80) end++;
      let units = r - extra;
      for (let k = r; k < end; k++) {
        const lead = bytes[k];
        if ((lead & 0xc0) !== 0x80) units += lead >= 0xf0 ? 2 : 1;
      }
      let folded: string;
      if (single && kind === 5) folded = FOLD_STRING.get(c)!;
      else if (single && kind === 3) {
        if (c === 0x9b) special = true;
        folded = String.fromCharCode(d);
      } else {
        const raw = text.slice(runStart, units);
        if (raw.includes("\udb40")) return undefined;
        if (raw.includes("\x9b")) special = true;
        let kept = raw;
        invisible = runInvisible;
        if (SPECIAL.test(raw)) {
          kept = raw.replace(INVISIBLE_UNITS, "");
          invisible += raw.length - kept.length;
          if (kept.length !== raw.length) special = true;
          if (BIDI_ONE.test(raw)) bidi = true;
        }
        folded = mapConfusables(kept.normalize("NFKC"));
      }
      if (folded !== text.slice(runStart, units)) changed = true;
      o = runOut + utf8Length(folded);
      extra = runExtra + (end - runByte) - (units - runStart);
      r = end;
      if (o > end) {
        // Folded, the run takes more bytes than it was read from (`ﷺ` is 18 letters): what is
        // still to be read moves to the end of the buffer, after room for the output (at least
        // as much again as the output and the rest). The buffer is the caller's while it has
        // that room (three bytes per code unit leave it for a mostly-ASCII text), else a larger
        // one: moving within it costs no allocation and keeps the caller's buffer in use.
        const rest = written - end, room = 2 * (o + rest) + 16;
        let size = bytes.length - 1;
        if (size >= room) bytes.copyWithin(size - rest, end, written);
        else {
          size = Math.max(2 * bytes.length, room);
          const grown = new Uint8Array(size + 1);
          grown.set(bytes.subarray(0, runOut));
          grown.set(bytes.subarray(end, written), size - rest);
          bytes = grown;
          words = wordsOf(bytes);
        }
        bytes[size] = 0xff;
        extra += size - rest - end;
        r = size - rest;
        written = size;
      }
      if (putString(folded, bytes, runOut) < 0) return undefined;
      break;
    }
  }
  const folded = changed ? UTF8.decode(bytes.subarray(0, o)) : text;
  return { folded, invisible, bytes, length: o, special, bidi };
}

/**
 * {@linkcode foldInto} for text dense with non-ASCII characters (look-alike, mark and
 * zero-width floods), reading the string's code units instead of its UTF-8: no `encodeInto`
 * (6–8 ms per MiB of such text, more than half of what the byte loop then costs), no UTF-8
 * decoding per character, and no folding in place (the output goes to `into`, the input is the
 * string). The same decisions, unit for unit: an invisible character is dropped and counted, an
 * {@linkcode INERT} character is mapped alone, a run of one is looked up, any other run is
 * folded as a string; it gives up where `foldInto` does (an escape, a tag character, a lone
 * surrogate), so its answer is `foldInto`'s. `into` should hold 3 bytes per code unit and one
 * more (it is replaced by a larger buffer when a run's expansion needs it).
 */
export function foldUnits(
  text: string,
  into: Uint8Array<ArrayBuffer>,
):
  | {
    folded: string;
    invisible: number;
    bytes: Uint8Array<ArrayBuffer>;
    length: number;
    special: boolean;
    bidi: boolean;
  }
  | undefined {
  const n = text.length;
  let bytes = into;
  if (bytes.length < 3 * n + 1) bytes = new Uint8Array(3 * n + 1);
  let o = 0, invisible = 0, changed = false, special = false, bidi = false;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      // An ASCII stretch in one tight loop, up to the next non-ASCII unit.
      for (;;) {
        if (c === 0x1b) return undefined;
        bytes[o++] = c;
        if (++i === n) break;
        c = text.charCodeAt(i);
        if (c >= 0x80) break;
      }
      if (i === n) break;
    }
    // A non-ASCII run, unit by unit while each folds alone.
    const runStart = i, runOut = o, runInvisible = invisible;
    let whole = false, next = 0;
    for (;;) {
      let kind = FOLD_KIND[c];
      if (kind === 0) kind = kindOf(c);
      // The unit after this one: ASCII (0 past the end) ends the run.
      next = i + 1 < n ? text.charCodeAt(i + 1) : 0;
      if (kind === 2) {
        invisible++;
        special = changed = true;
        if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) bidi = true;
      } else if (kind === 1 || (kind === 3 && i === runStart && next < 0x80)) {
        const d = FOLD_TO[c];
        if (c === 0x9b) special = true;
        if (d !== c) changed = true;
        if (d < 0x80) bytes[o++] = d;
        else if (d < 0x800) {
          bytes[o++] = 0xc0 | (d >> 6);
          bytes[o++] = 0x80 | (d & 0x3f);
        } else {
          bytes[o++] = 0xe0 | (d >> 12);
          bytes[o++] = 0x80 | ((d >> 6) & 0x3f);
          bytes[o++] = 0x80 | (d & 0x3f);
        }
      } else {
        whole = kind !== 5 || i !== runStart || next >= 0x80;
        if (!whole) {
          // A run of one that folds to a string (`…` is `...`).
          const folded = FOLD_STRING.get(c)!;
          changed = true;
          bytes = roomFor(bytes, o, utf8Length(folded) + 3 * (n - i - 1) + 1);
          o = putString(folded, bytes, o);
          if (o < 0) return undefined;
        }
        break;
      }
      if (next < 0x80) break;
      c = next;
      i++;
    }
    if (!whole) {
      // The run ended at an ASCII unit (or the text's end), read already as `next`: written
      // here, not read again by the loop (ADR-112).
      if (i + 1 < n) {
        if (next === 0x1b) return undefined;
        bytes[o++] = next;
        i++;
      }
      continue;
    }
    // Any other run is folded as a string, as the fold does it, from its start.
    let end = i + 1;
    while (end < n && text.charCodeAt(end) >= 0x80) end++;
    const raw = text.slice(runStart, end);
    if (raw.includes("\udb40")) return undefined;
    if (raw.includes("\x9b")) special = true;
    let kept = raw;
    invisible = runInvisible;
    if (SPECIAL.test(raw)) {
      kept = raw.replace(INVISIBLE_UNITS, "");
      invisible += raw.length - kept.length;
      if (kept.length !== raw.length) special = true;
      if (BIDI_ONE.test(raw)) bidi = true;
    }
    const folded = mapConfusables(kept.normalize("NFKC"));
    if (folded !== raw) changed = true;
    bytes = roomFor(bytes, runOut, utf8Length(folded) + 3 * (n - end) + 1);
    o = putString(folded, bytes, runOut);
    if (o < 0) return undefined;
    i = end - 1;
  }
  const folded = changed ? UTF8.decode(bytes.subarray(0, o)) : text;
  return { folded, invisible, bytes, length: o, special, bidi };
}

/**
 * `bytes` if it has room for `more` bytes after its first `used`, else a larger buffer (twice
 * the size at least, so that a text of many expanding runs grows it a few times) holding them.
 */
function roomFor(
  bytes: Uint8Array<ArrayBuffer>,
  used: number,
  more: number,
): Uint8Array<ArrayBuffer> {
  if (used + more <= bytes.length) return bytes;
  const grown = new Uint8Array(Math.max(used + more, 2 * bytes.length));
  grown.set(bytes.subarray(0, used));
  return grown;
}

/**
 * Removes from the ASCII bytes `[0, length)` of `bytes`, in place, what {@linkcode ANSI} removes
 * from their text (`text.replace(ANSI, "")`): the new length. A loop instead of the regex's
 * replace, whose tens of thousands of matches in a flood of escapes made more garbage than the
 * young generation holds (half of that input's assessment was collection). Each alternative has
 * one way to match: the CSI parameters `[0-9;?]` and its final byte `[@-~]` are disjoint, so the
 * longest run of parameters is the only one that can end in a final byte; the OSC body takes
 * what it can (at most 200 bytes), then its terminator if one follows.
 */
export function stripEscapes(bytes: Uint8Array, length: number): number {
  let o = 0;
  for (let r = 0; r < length;) {
    const c = bytes[r];
    if (c === 0x1b && r + 1 < length) {
      const d = bytes[r + 1];
      if (d === 0x5b) {
        let k = r + 2;
        const most = Math.min(length, k + 20);
        while (k < most && CSI_PARAMETER[bytes[k]] === 1) k++;
        if (k < length && bytes[k] >= 0x40 && bytes[k] <= 0x7e) {
          r = k + 1;
          continue;
        }
      } else if (d === 0x5d) {
        let k = r + 2;
        const most = Math.min(length, k + 200);
        while (k < most && bytes[k] !== 0x07 && bytes[k] !== 0x1b && bytes[k] !== 0x0a) k++;
        if (k < length && bytes[k] === 0x07) k++;
        else if (k + 1 < length && bytes[k] === 0x1b && bytes[k + 1] === 0x5c) k += 2;
        r = k;
        continue;
      }
    }
    bytes[o++] = c;
    r++;
  }
  return o;
}

/** Byte → 1 for a CSI parameter byte of {@linkcode ANSI} (`[0-9;?]`). */
const CSI_PARAMETER = new Uint8Array(256);
for (const ch of "0123456789;?") CSI_PARAMETER[ch.charCodeAt(0)] = 1;
