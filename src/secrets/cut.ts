/**
 * Secrets a line range cuts: a tool that returns lines `first..last` of a
 * larger source asks which secrets of the *whole* source cross the range's
 * edges (a PEM block seen from its middle lines), and hands their pieces
 * inside the range to the result pipeline, which withholds them. Secrets
 * wholly inside the range need nothing: the pipeline finds them itself.
 *
 * @module
 */

import { findSecrets } from "./find.ts";

/** A secret of the whole source that a range cuts, as the pieces inside the range. */
export interface CutSecret {
  readonly rule: string;
  readonly fragments: string[];
}

/**
 * The secrets of `source` (lines split on `\n`) that lines `first..last`
 * (1-based, inclusive) cut, with their pieces inside those lines, one per line.
 * `lastLineChars`, when given, is how much of line `last` is returned (a line
 * cut to fit the response budget): a secret crossing that cut is cut too.
 */
export function secretsCutByLines(
  source: string,
  first: number,
  last: number,
  lastLineChars?: number,
): CutSecret[] {
  if (first < 1 || last < first) return [];
  // Offsets of the range: the start of line `first`, the end of line `last`.
  let from = 0;
  for (let line = 1; line < first; line++) {
    const nl = source.indexOf("\n", from);
    if (nl < 0) return [];
    from = nl + 1;
  }
  let to = from;
  let lastStart = from;
  for (let line = first; line <= last; line++) {
    lastStart = to;
    const nl = source.indexOf("\n", to);
    to = nl < 0 ? source.length : nl + 1;
    if (nl < 0) break;
  }
  if (lastLineChars !== undefined) to = Math.min(to, lastStart + lastLineChars);
  if (from === 0 && to >= source.length) return [];
  const cut: CutSecret[] = [];
  for (const span of findSecrets(source)) {
    if (span.end <= from || span.start >= to) continue;
    if (span.start >= from && span.end <= to) continue;
    const fragments: string[] = [];
    let at = Math.max(span.start, from);
    const end = Math.min(span.end, to);
    while (at < end) {
      const nl = source.indexOf("\n", at);
      const lineEnd = nl < 0 || nl > end ? end : nl;
      const piece = source.slice(at, lineEnd).replace(/\r$/, "");
      if (piece.trim() !== "") fragments.push(piece);
      at = lineEnd + 1;
    }
    if (fragments.length > 0) cut.push({ rule: span.rule, fragments });
  }
  return cut;
}
