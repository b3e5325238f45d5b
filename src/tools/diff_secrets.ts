/**
 * Redaction decided on a diff's sides, not on its lines: in a unified diff
 * every line carries a `+`, `-` or ` ` prefix, so a private key that was
 * removed (`-----BEGIN` then `-MIIE…`) or that changed inside its body reads
 * to the secret rules as a marker followed by junk, and a hunk that shows a
 * key's middle lines shows no marker at all. Here the old side (context and
 * removed lines) and the new side (context and added lines) of each file in
 * the patch are rebuilt without prefixes, their secrets found, and the
 * pieces mapped back to the diff's lines; when a hunk shows lines that look
 * like a key's body with no key around them, the caller fetches the whole
 * files (a full-context diff) and the decision is made on them (ADR-061).
 *
 * @module
 */

import type { WithheldPiece, WithheldSecret } from "../contract/result.ts";
import { LineSecrets } from "../secrets/cut.ts";

/** A line of a patch and where it belongs. */
interface PatchLine {
  /** Where its text starts (after the prefix) in the joined patch text. */
  readonly at: number;
  readonly text: string;
  /** Which sides hold it: a context line both, a removed line the old, an added line the new. */
  readonly old: boolean;
  readonly new: boolean;
  /** Its line number in the old and new file, when the hunk header was seen. */
  readonly oldNo?: number;
  readonly newNo?: number;
}

/**
 * The text git shows after a hunk header (`@@ -11,5 +11,5 @@ <text>`): the start of the
 * nearest line above the hunk that looks like a function heading — a line of the old file.
 */
interface HunkSection {
  readonly at: number;
  readonly text: string;
  /** The hunk's first old line: the section's line is above it. */
  readonly before: number;
}

/** One file of a patch: its `diff --git` line, its hunk lines, and its hunks' section texts. */
interface PatchFile {
  readonly header: string;
  readonly lines: PatchLine[];
  readonly sections: HunkSection[];
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@ ?/;

/**
 * The files of `lines` (a patch, or a page of one: lines before the first
 * `diff --git` are hunk lines of a file whose header was on an earlier page).
 */
export function parsePatch(lines: readonly string[]): PatchFile[] {
  const files: PatchFile[] = [];
  let file: PatchFile = { header: "", lines: [], sections: [] };
  let inHunk = true;
  let oldNo: number | undefined, newNo: number | undefined;
  let at = 0;
  for (const line of lines) {
    const start = at;
    at += line.length + 1;
    if (line.startsWith("diff --git ")) {
      if (file.lines.length > 0 || file.header !== "") files.push(file);
      file = { header: line, lines: [], sections: [] };
      inHunk = false;
      oldNo = newNo = undefined;
      continue;
    }
    const hunk = HUNK.exec(line);
    if (hunk) {
      inHunk = true;
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      const text = line.slice(hunk[0].length);
      if (text.trim() !== "") {
        file.sections.push({ at: start + hunk[0].length, text, before: oldNo });
      }
      continue;
    }
    if (!inHunk) continue;
    const c = line[0];
    if (c !== " " && c !== "-" && c !== "+") continue; // "\ No newline at end of file"
    const old = c !== "+", added = c !== "-";
    file.lines.push({
      at: start + 1,
      text: line.slice(1),
      old,
      new: added,
      ...(old && oldNo !== undefined ? { oldNo: oldNo++ } : {}),
      ...(added && newNo !== undefined ? { newNo: newNo++ } : {}),
    });
  }
  if (file.lines.length > 0 || file.header !== "") files.push(file);
  return files;
}

/** A key body line seen alone: only base64 characters, as long as PEM lines are. */
const BODY_LINE = /^[ \t]*[A-Za-z0-9+\/]{40,}={0,2}[ \t\r]*$/;

/** The whole old and new text of each file, from a full-context patch, by `diff --git` line. */
export type WholeSides = ReadonlyMap<string, { old: string; new: string }>;

/** The whole sides of every file in a full-context patch (`--unified` past any file's length). */
export function wholeSides(lines: readonly string[]): WholeSides {
  const sides = new Map<string, { old: string; new: string }>();
  for (const file of parsePatch(lines)) {
    if (file.header === "") continue;
    const old: string[] = [], added: string[] = [];
    for (const line of file.lines) {
      if (line.old) old.push(line.text);
      if (line.new) added.push(line.text);
    }
    sides.set(file.header, { old: old.join("\n"), new: added.join("\n") });
  }
  return sides;
}

/** What the secrets of a patch page come to: what to withhold, and whether whole files would tell more. */
export interface DiffSecrets {
  /** Pieces in the text part (`part`) and in `structured.diff` (`field`), the same offsets in both. */
  readonly withheld: WithheldSecret[];
  /** Files (by `diff --git` line) with lines that look like a key's body outside any secret found. */
  readonly suspect: string[];
}

/**
 * The secrets the lines of a patch page (joined with `\n` as the text part
 * and, with a final newline, as `structured.diff`) show: found on each
 * file's sides, and on `whole` (a full-context patch) for the files it has.
 * Without `whole`, files with key-like lines outside any secret are listed
 * in `suspect`; with it, such lines of files it cannot number are withheld.
 */
export function diffSecrets(
  lines: readonly string[],
  part: number,
  whole?: WholeSides,
): DiffSecrets {
  const withheld: WithheldSecret[] = [];
  const suspect: string[] = [];
  /** Pieces already withheld, by "offset:end", so a context line's secret is counted once. */
  const seen = new Set<string>();
  /** The secrets withheld so far, by which side of which file they belong to. */
  const byId = new Map<string, WithheldPiece[]>();
  const add = (
    rule: string,
    located: { line: PatchLine; start: number; end: number }[],
    id?: string,
  ) => {
    const known = id === undefined ? undefined : byId.get(id);
    const pieces: WithheldPiece[] = known ?? [];
    let fresh = false;
    for (const { line, start, end } of located) {
      const key = `${line.at + start}:${line.at + end}`;
      if (!seen.has(key)) fresh = true;
      seen.add(key);
      pieces.push({ at: { part }, start: line.at + start, end: line.at + end });
      pieces.push({ at: { field: ["diff"] }, start: line.at + start, end: line.at + end });
    }
    if (known === undefined && fresh && pieces.length > 0) {
      withheld.push({ rule, pieces });
      if (id !== undefined) byId.set(id, pieces);
    }
  };
  const fetched = whole !== undefined;
  /** The secrets of the old file on the lines git quoted in the hunk headers. */
  const withholdSections = (file: PatchFile, old: string) => {
    if (file.sections.length === 0) return;
    const secrets = new LineSecrets(old);
    if (!secrets.any) return;
    const lines = old.split("\n");
    for (const section of file.sections) {
      // git quotes the nearest line above the hunk that starts with the shown text.
      let n = section.before - 1;
      while (n >= 1 && !lines[n - 1].startsWith(section.text)) n--;
      if (n < 1) continue;
      const line = { at: section.at, text: section.text, old: false, new: false };
      for (const secret of secrets.on(n, n)) {
        const located = secret.pieces.flatMap((p) =>
          p.start < section.text.length
            ? [{ line, start: p.start, end: Math.min(p.end, section.text.length) }]
            : []
        );
        add(secret.rule, located, `${file.header}\0old\0${secret.id}`);
      }
    }
  };
  const decided = new Set<PatchFile>();
  for (const file of parsePatch(lines)) {
    const covered = new Set<PatchLine>();
    for (const side of ["new", "old"] as const) {
      const shown = file.lines.filter((l) => l[side]);
      if (shown.length === 0) continue;
      const full = whole?.get(file.header);
      const numbered = full !== undefined && shown.every((l) => no(l, side) !== undefined);
      if (numbered) {
        decided.add(file);
        if (side === "old") withholdSections(file, full.old);
        // The decision on the whole file: the secrets the shown line numbers hold.
        const secrets = new LineSecrets(full[side]);
        const byNo = new Map(shown.map((l) => [no(l, side)!, l]));
        const first = Math.min(...byNo.keys()), last = Math.max(...byNo.keys());
        for (const secret of secrets.on(first, last)) {
          const located = secret.pieces.flatMap((p) => {
            const line = byNo.get(p.line);
            return line ? [{ line, start: p.start, end: p.end }] : [];
          });
          for (const l of located) covered.add(l.line);
          add(secret.rule, located, `${file.header}\0${side}\0${secret.id}`);
        }
        continue;
      }
      // The decision on the side as the page shows it.
      const secrets = new LineSecrets(shown.map((l) => l.text).join("\n"));
      for (const secret of secrets.on(1, shown.length)) {
        const located = secret.pieces.map((p) => ({
          line: shown[p.line - 1],
          start: p.start,
          end: p.end,
        }));
        for (const l of located) covered.add(l.line);
        add(secret.rule, located);
      }
    }
    const loose = file.lines.filter((l) => !covered.has(l) && BODY_LINE.test(l.text));
    for (const section of file.sections) {
      if (!decided.has(file) && BODY_LINE.test(section.text)) {
        loose.push({ at: section.at, text: section.text, old: false, new: false });
      }
    }
    if (loose.length === 0) continue;
    if (!fetched) {
      suspect.push(file.header);
    } else if (!decided.has(file)) {
      // Whole files were asked for and this one could not be numbered against them (its
      // header was on an earlier page, or git's cap cut it): its key-like lines are withheld
      // as what they look like, rather than shown.
      for (const line of loose) add("private-key", [{ line, start: 0, end: line.text.length }]);
    }
  }
  return { withheld, suspect };
}

function no(line: PatchLine, side: "old" | "new"): number | undefined {
  return side === "old" ? line.oldNo : line.newNo;
}
