/**
 * What a revision, a date and a message filter may look like before any of
 * them goes near git. The tool schemas use these patterns, and the git tools
 * check again with {@linkcode parseRevisionSpec} and friends, so a loosened
 * schema never removes the only check.
 *
 * @module
 */

import { ToolRefusal } from "../contract/refusal.ts";
import { quoteName } from "../contract/text.ts";

/** The longest revision argument accepted (a range counts as one). */
export const REVISION_MAX_CHARS = 200;

/**
 * A revision or a range: letters, digits and `_ . / @ { } ~ ^ + -`, never a
 * leading `-` nor a `-` right after `..` (nothing can be read as an option),
 * and no whitespace, `:`, `*`, `?`, `[`, `\`, quotes, `$` or backticks.
 */
export const REVISION_PATTERN = /^(?!-)(?!.*\.\.\.?-)[A-Za-z0-9_./@{}~^+-]{1,200}$/;

/** One end of a range: the same characters, no leading `.` or `-`, no `..` inside. */
const END_PATTERN = /^(?![.-])[A-Za-z0-9_./@{}~^+-]+$/;

/**
 * Dates for `since`/`until`: `YYYY-MM-DD`, optionally with a time and a zone
 * (`2026-01-31T12:00:00Z`, `+02:00`), or `N <unit>s ago`.
 */
export const DATE_PATTERN =
  /^(?:\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?)?|\d{1,4} (?:second|minute|hour|day|week|month|year)s? ago)$/;

/**
 * What the schema lets through for a date: no leading `-`, a short
 * charset. The handler then requires {@linkcode DATE_PATTERN} exactly.
 */
export const DATE_SCHEMA_PATTERN = /^(?!-)[0-9A-Za-z :+-]{1,40}$/;

/** The longest `grep` text. */
export const GREP_MAX_CHARS = 200;

/** Message text to look for: no control characters. */
// deno-lint-ignore no-control-regex
export const GREP_PATTERN = /^[^\u0000-\u001f\u007f]{1,200}$/;

/** A parsed revision argument: one revision, or a two-dot or three-dot range. */
export type RevisionSpec =
  | { readonly kind: "single"; readonly rev: string }
  | { readonly kind: "range"; readonly from: string; readonly to: string; readonly dots: 2 | 3 };

/**
 * Checks a revision argument again (the schema did once) and splits a range.
 * An empty end of a range means `HEAD`, as in git. Throws `bad_revision`.
 */
export function parseRevisionSpec(text: string): RevisionSpec {
  const bad = (why: string) =>
    new ToolRefusal("bad_revision", `The revision ${quoteName(text)} ${why}.`);
  if (text.length === 0 || text.length > REVISION_MAX_CHARS) {
    throw bad(`must be 1 to ${REVISION_MAX_CHARS} characters`);
  }
  if (!REVISION_PATTERN.test(text)) {
    throw bad("has a character or a leading '-' that revisions may not have");
  }
  const at = text.indexOf("..");
  if (at < 0) return { kind: "single", rev: text };
  const dots = text.startsWith("...", at) ? 3 : 2;
  const from = text.slice(0, at) || "HEAD";
  const to = text.slice(at + dots) || "HEAD";
  for (const end of [from, to]) {
    if (!END_PATTERN.test(end) || end.includes("..")) {
      throw bad("is not one revision or one A..B / A...B range");
    }
  }
  return { kind: "range", from, to, dots };
}

/** Checks a `since`/`until` value again; throws `invalid_arguments`. */
export function checkDate(field: string, value: string): string {
  if (!DATE_PATTERN.test(value)) {
    throw new ToolRefusal(
      "invalid_arguments",
      `${field}: expected YYYY-MM-DD (optionally with a time) or "N days ago".`,
    );
  }
  return value;
}

/** Checks a `grep` value again; throws `invalid_arguments`. */
export function checkGrep(value: string): string {
  if (!GREP_PATTERN.test(value)) {
    throw new ToolRefusal(
      "invalid_arguments",
      `grep: expected 1 to ${GREP_MAX_CHARS} characters without control characters.`,
    );
  }
  return value;
}
