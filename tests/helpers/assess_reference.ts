/**
 * The injection assessment as it was before its gate (ADR-072), kept as the reference its
 * tests compare against: the same signal classes (imported, not copied), folded the old way
 * (every pass over the whole text, NFKC run by run, lowercased) and matched by one alternation
 * of every folded class over the whole folded copy.
 *
 * @module
 */

import { escapeControlCharacters } from "../../src/contract/text.ts";
import {
  type AssessedText,
  type ContentAssessment,
  ELEVATED_AT,
  HIGH_AT,
  type Level,
  MAX_EXCERPT,
  MAX_FINDINGS,
  MAX_FINDINGS_PER_SIGNAL,
  type Signal,
  SIGNAL_CLASSES,
  type SignalClass,
} from "../../src/content/assess.ts";
import { INVISIBLE, TAGS } from "../../src/content/fold.ts";

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

/** The old fold. */
export function referenceFold(text: string): string {
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

const RAW_CLASSES = SIGNAL_CLASSES.filter((c) => c.raw);
const FOLDED_CLASSES = SIGNAL_CLASSES.filter((c) => c.folded);
/**
 * Every folded class as one capture group of one alternation (multiline, for role lines). The
 * leading look-behind changes nothing for the alternatives that start at a word boundary (`\b`
 * or `^`) and makes the scan several times faster, since no attempt starts inside a word; the
 * few that start with a symbol (`<|im_start|>`) may then not follow a letter, so chat-template
 * tokens glued to a word are found by {@linkcode GLUED_TOKENS} instead.
 */
const FOLDED = new RegExp(
  `(?<![a-z0-9_])(?:${FOLDED_CLASSES.map((c) => `(${c.folded!.source})`).join("|")})`,
  "gm",
);
const CHAT_TEMPLATE = SIGNAL_CLASSES.find((c) => c.id === "chat_template")!;
const GLUED_TOKENS =
  /(?<=[a-z0-9_])(?:<\|[a-z_]{2,20}\|>|\[\/?inst\]|<<\/?sys>>|<\/?(?:start|end)_of_turn>)/g;

/** Splits numbered text into plain text and the line numbers. */
function unnumber(text: string): { text: string; lines: number[] } {
  const lines: number[] = [];
  const bodies = text.split("\n").map((line, i) => {
    const m = /^ {0,12}(\d{1,10})\t/.exec(line);
    lines.push(m ? Number(m[1]) : i + 1);
    return m ? line.slice(m[0].length) : line;
  });
  return { text: bodies.join("\n"), lines };
}

/** Line starts of `text` (index of each line's first character). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

function lineAt(starts: number[], index: number): number {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function excerptOf(line: string, column: number): string {
  const from = Math.max(0, column - 30);
  const piece = escapeControlCharacters(line.slice(from, from + MAX_EXCERPT));
  const cut = piece.length > MAX_EXCERPT ? piece.slice(0, MAX_EXCERPT) : piece;
  return (from > 0 ? "…" : "") + cut + (from + MAX_EXCERPT < line.length ? "…" : "");
}

/** Counts invisible, bidi and tag characters. */
function countInvisible(text: string): number {
  let n = 0;
  INVISIBLE.lastIndex = 0;
  while (INVISIBLE.exec(text)) n++;
  return n;
}

/** The level a risk falls in (`none` only when nothing was found). */
function levelOf(risk: number, found: boolean): Level {
  if (!found) return "none";
  return risk >= HIGH_AT ? "high" : risk >= ELEVATED_AT ? "elevated" : "low";
}

/** Assesses the untrusted texts of one result. */
export function referenceAssess(parts: readonly AssessedText[]): ContentAssessment {
  const byClass = new Map<string, Signal[]>();
  let invisible = 0;
  for (const part of parts) {
    const { text, lines } = part.numbered
      ? unnumber(part.text)
      : { text: part.text, lines: undefined };
    invisible += countInvisible(text);
    // Line starts are computed only once something is found (most texts have no signal).
    let rawStarts: number[] | undefined;
    let foldedStarts: number[] | undefined;
    const record = (cls: SignalClass, index: number, starts: number[], hay: string) => {
      const found = byClass.get(cls.id) ?? [];
      if (found.length >= MAX_FINDINGS_PER_SIGNAL) return;
      const line = lineAt(starts, index);
      rawStarts ??= lineStarts(text);
      const from = rawStarts[line] ?? text.length;
      const nl = text.indexOf("\n", from);
      found.push({
        id: cls.id,
        description: cls.description,
        line: lines ? lines[line] ?? line + 1 : line + 1,
        excerpt: excerptOf(text.slice(from, nl < 0 ? text.length : nl), index - starts[line]),
      });
      byClass.set(cls.id, found);
      void hay;
    };
    for (const cls of RAW_CLASSES) {
      const re = cls.raw!;
      re.lastIndex = 0;
      let n = 0;
      for (let m = re.exec(text); m && n < MAX_FINDINGS_PER_SIGNAL; m = re.exec(text), n++) {
        record(cls, m.index, rawStarts ??= lineStarts(text), text);
      }
    }
    // The folded classes run as one alternation: one pass over the copy, whatever their number.
    // After a find the scan resumes one character on, so a match of another class that starts
    // inside it is still found.
    const hay = referenceFold(text);
    FOLDED.lastIndex = 0;
    for (let m = FOLDED.exec(hay); m; m = FOLDED.exec(hay)) {
      const k = FOLDED_CLASSES.findIndex((_, i) => m![i + 1] !== undefined);
      foldedStarts ??= lineStarts(hay);
      if (k >= 0) record(FOLDED_CLASSES[k], m.index, foldedStarts, hay);
      FOLDED.lastIndex = m.index + 1;
    }
    GLUED_TOKENS.lastIndex = 0;
    for (let m = GLUED_TOKENS.exec(hay); m; m = GLUED_TOKENS.exec(hay)) {
      record(CHAT_TEMPLATE, m.index, foldedStarts ??= lineStarts(hay), hay);
    }
  }
  let keep = 1;
  for (const cls of SIGNAL_CLASSES) if (byClass.has(cls.id)) keep *= 1 - cls.weight;
  const risk = Math.round((1 - keep) * 1000) / 1000;
  // The strongest classes first, so the cap drops the weakest findings.
  const signals = SIGNAL_CLASSES.filter((c) => byClass.has(c.id))
    .sort((a, b) => b.weight - a.weight)
    .flatMap((c) => byClass.get(c.id)!)
    .slice(0, MAX_FINDINGS);
  return {
    level: levelOf(risk, byClass.size > 0),
    risk,
    signals,
    invisible_characters: invisible,
  };
}
