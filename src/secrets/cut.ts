/**
 * Secrets seen through a window of lines: a tool that returns some lines of
 * a larger source (a `read_file` range, a search hit and its context, the
 * lines of a diff hunk) asks which secrets of the *whole* source those lines
 * show, and where on each line — a PEM block seen from its middle lines, a
 * `token =` whose value is on the next line. The tool turns each piece into
 * a position in the strings it returns (`RawOk.withheld`), and the result
 * pipeline replaces exactly those characters (ADR-017, ADR-060).
 *
 * @module
 */

import { findSecrets, secretMarker, type SecretSpan } from "./find.ts";

/** Characters `start..end` (code units, end exclusive) of 1-based line `line` of the source. */
export interface LinePiece {
  readonly line: number;
  readonly start: number;
  readonly end: number;
}

/** One secret of the whole source as the pieces of it on the lines asked about. */
export interface SecretOnLines {
  readonly rule: string;
  /** Which secret of the source it is (its index in source order): the same in every window. */
  readonly id: number;
  /** Whether the lines asked about hold all of it. */
  readonly whole: boolean;
  /** Its characters on each line, in line order; none empty, none only whitespace. */
  readonly pieces: readonly LinePiece[];
}

/**
 * The secrets of one source, found once, asked about line windows many
 * times (a file with many search hits). Lines are split on `\n`; a `\r`
 * before it belongs to the line.
 */
export class LineSecrets {
  readonly source: string;
  readonly spans: readonly SecretSpan[];
  #starts: number[] | undefined;

  constructor(source: string, spans: readonly SecretSpan[] = findSecrets(source)) {
    this.source = source;
    this.spans = spans;
  }

  /** Whether the source holds any secret (when not, no window shows one). */
  get any(): boolean {
    return this.spans.length > 0;
  }

  /** Offset of the start of each line (index 0 is line 1), computed on first need. */
  #lineStarts(): number[] {
    if (this.#starts) return this.#starts;
    const starts = [0];
    for (let i = this.source.indexOf("\n"); i >= 0; i = this.source.indexOf("\n", i + 1)) {
      starts.push(i + 1);
    }
    return this.#starts = starts;
  }

  /** The offset where line `line` ends (before its `\n`), or the source's length. */
  #lineEnd(starts: number[], line: number): number {
    return line < starts.length ? starts[line] - 1 : this.source.length;
  }

  /**
   * The secrets lines `first..last` (1-based, inclusive) show, with their
   * pieces on those lines. `lastLineChars`, when given, is how much of line
   * `last` is returned (a line cut to fit the budget). With `cutOnly`, only
   * the secrets the window cuts (those it does not hold whole) are listed.
   */
  on(
    first: number,
    last: number,
    options: { lastLineChars?: number; cutOnly?: boolean } = {},
  ): SecretOnLines[] {
    if (!this.any || first < 1 || last < first) return [];
    const starts = this.#lineStarts();
    if (first > starts.length) return [];
    const lastLine = Math.min(last, starts.length);
    const from = starts[first - 1];
    let to = this.#lineEnd(starts, lastLine);
    if (options.lastLineChars !== undefined) {
      to = Math.min(to, starts[lastLine - 1] + options.lastLineChars);
    }
    const out: SecretOnLines[] = [];
    // The spans are sorted and disjoint: skip to the first that ends after `from`.
    let lo = 0, hi = this.spans.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.spans[mid].end <= from) lo = mid + 1;
      else hi = mid;
    }
    for (let id = lo; id < this.spans.length; id++) {
      const span = this.spans[id];
      if (span.start >= to) break;
      const whole = span.start >= from && span.end <= to;
      if (whole && options.cutOnly) continue;
      const pieces: LinePiece[] = [];
      let line = lineOf(starts, Math.max(span.start, from));
      const end = Math.min(span.end, to);
      for (let at = Math.max(span.start, from); at < end; line++) {
        const lineEnd = Math.min(this.#lineEnd(starts, line), end);
        const text = this.source.slice(at, lineEnd);
        if (text.trim() !== "") {
          pieces.push({ line, start: at - starts[line - 1], end: lineEnd - starts[line - 1] });
        }
        at = line < starts.length ? starts[line] : end;
      }
      if (pieces.length > 0) out.push({ rule: span.rule, id, whole, pieces });
    }
    return out;
  }
}

/** The 1-based line holding offset `at`. */
function lineOf(starts: readonly number[], at: number): number {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

// The marker of a withheld or redacted secret: defined by the finder, which writes the markers.
export { secretMarker };

/**
 * How long `text` can become once `pieces` of it (`[start, end)` offsets,
 * disjoint) are replaced by their markers: what a tool plans its budget on,
 * so withholding never takes a result past it.
 */
export function withheldLength(
  length: number,
  pieces: readonly { start: number; end: number; rule: string }[],
): number {
  let grown = length;
  for (const p of pieces) grown += Math.max(0, secretMarker(p.rule).length - (p.end - p.start));
  return grown;
}
