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

/** Bidirectional embedding, override and isolate controls (Trojan Source). */
export const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/** Unicode tag characters (U+E0000–U+E007F), as UTF-16 surrogate pairs. */
export const TAGS = /\udb40[\udc00-\udc7f]/g;

/** Terminal escape sequences (CSI and OSC), removed so they cannot split a word. */
// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;?]{0,20}[@-~]|\x1b\][^\x07\x1b\n]{0,200}(?:\x07|\x1b\\)?/g;

// deno-lint-ignore no-control-regex
const NON_ASCII_RUN = /[^\x00-\x7f]+/g;

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
 * signals that look for them (`assess.ts`).
 */
export const SPECIAL =
  // deno-lint-ignore no-control-regex
  /[\x1b\x9b\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]|\udb40[\udc00-\udc7f]/;

/**
 * An ASCII character followed by one that can combine with it under NFKC (a combining mark,
 * or a Hangul vowel or final jamo). Normalizing the whole text would then join the two, where
 * normalizing each non-ASCII run alone (what the fold does: ASCII is a barrier) keeps the
 * letter — so a {@linkcode BARRIER} is put between the two for the whole-text NFKC.
 */
// deno-lint-ignore no-control-regex
const ASCII_THEN_COMBINING = /(?<=[\x00-\x7f])[\p{M}\u1161-\u1175\u11a8-\u11c2]/gu;
/** A noncharacter that NFKC keeps and composes with nothing: a barrier between the two. */
const BARRIER = "\uffff";

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
  if (ascii) return text.includes("\x1b") ? text.replace(ANSI, "") : text;
  let folded = text;
  if (SPECIAL.test(folded)) {
    folded = folded.replace(TAGS, (pair) => {
      const ascii = pair.charCodeAt(1) - 0xdc00;
      return ascii >= 0x20 && ascii < 0x7f ? String.fromCharCode(ascii) : "";
    });
    folded = folded.replace(INVISIBLE, "").replace(ANSI, "");
  }
  // NFKC and the confusables touch only non-ASCII characters (ASCII is unchanged by both).
  // Whole-text NFKC equals run-by-run NFKC unless an ASCII character could combine with the
  // run after it (nothing composes with a following ASCII character).
  ASCII_THEN_COMBINING.lastIndex = 0;
  if (!ASCII_THEN_COMBINING.test(folded)) folded = folded.normalize("NFKC");
  else if (folded.includes(BARRIER)) {
    folded = folded.replace(NON_ASCII_RUN, (run) => run.normalize("NFKC"));
  } else {
    folded = folded.replace(ASCII_THEN_COMBINING, `${BARRIER}$&`).normalize("NFKC")
      .replaceAll(BARRIER, "");
  }
  return mapConfusables(folded);
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
