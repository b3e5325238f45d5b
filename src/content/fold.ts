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

/** The folded copy of `text` (see the module comment). */
export function foldForAssessment(text: string): string {
  // deno-lint-ignore no-control-regex
  if (!/[^\x00-\x7f]/.test(text)) {
    // Pure ASCII (most source files): only escape sequences and case to fold.
    return (text.includes("\x1b") ? text.replace(ANSI, "") : text).toLowerCase();
  }
  let folded = text.replace(TAGS, (pair) => {
    const ascii = pair.charCodeAt(1) - 0xdc00;
    return ascii >= 0x20 && ascii < 0x7f ? String.fromCharCode(ascii) : "";
  });
  folded = folded.replace(INVISIBLE, "").replace(ANSI, "");
  // NFKC and the confusables touch only runs of non-ASCII characters (ASCII is unchanged
  // by both, and most source text is ASCII).
  folded = folded.replace(
    NON_ASCII_RUN,
    (run) => run.normalize("NFKC").replace(CONFUSABLE_CHARS, (ch) => CONFUSABLES[ch]),
  );
  return folded.toLowerCase();
}
