/**
 * What a tool hands back before the result pipeline shapes it: plain data
 * that crosses a worker boundary by structured clone. The leaf of the
 * program: this module imports nothing from the project.
 *
 * @module
 */

import type { RawRefusal } from "./refusal.ts";

export type { RawRefusal };

/** What kind of workspace content an untrusted part holds: its fence says so. */
export const FENCE_LABELS = [
  "file-content",
  "search-results",
  "symbol-definitions",
  "directory-listing",
  "project-overview",
  "commit-messages",
  "diff",
] as const;

/** One of {@linkcode FENCE_LABELS}. */
export type FenceLabel = typeof FENCE_LABELS[number];

/**
 * A piece of a result's text: trusted (ours) or untrusted (from files or
 * git). An untrusted part must name its fence label, so a tool cannot emit
 * workspace text under the wrong kind, or under none (the compiler says so).
 */
export type TextPart = TrustedPart | UntrustedPart;

/** Text the server wrote itself (headers, notes): neither fenced nor scored. */
export interface TrustedPart {
  /** The text itself. */
  readonly text: string;
  readonly untrusted: false;
}

/** Text that came from the workspace: fenced under its label, scored and redacted by the result pipeline. */
export interface UntrustedPart {
  /** The text itself. */
  readonly text: string;
  readonly untrusted: true;
  /** What kind of workspace content it is: its fence's label. */
  readonly label: FenceLabel;
  /**
   * Whether each line of the part starts with its source line number and a
   * tab (`read_file`): the assessment reports those numbers and reads past them.
   */
  readonly numbered?: boolean;
  /**
   * Workspace strings (names, subjects, signatures) that `text` shows escaped, in their raw
   * form, in the order they appear: `escapeControlCharacters` changed them, so the escapes in
   * `text` hide what the assessment must see (tag, bidi and invisible characters, or words
   * spelled with them). The pipeline assesses them beside `text`. Absent when nothing was
   * escaped, which is nearly always (ADR-116).
   */
  readonly escaped?: readonly string[];
}

/**
 * Where a withheld piece lies in a raw result: in text part `part` (its
 * index in `parts`), or in the string at `field` of the structured half (a
 * path of keys and array indices, `["files", 0, "matches", 2, "before", 1]`).
 */
export type WithheldAt =
  | { readonly part: number }
  | { readonly field: readonly (string | number)[] };

/** Characters `start..end` (end exclusive) of the string at `at`, which belong to a secret. */
export interface WithheldPiece {
  readonly at: WithheldAt;
  readonly start: number;
  readonly end: number;
}

/**
 * A secret the tool found by looking at the whole source (a file, a diff's
 * side) that the lines it returns show, whole or in part: a line range cut
 * through a PEM block, a search hit's context, a diff hunk. The result
 * pipeline replaces each piece where it lies, and nowhere else, with the
 * rule's marker, and counts the secret once (ADR-017, ADR-060).
 */
export interface WithheldSecret {
  /** The secret rule's id. */
  readonly rule: string;
  /** Where its characters are, in either half of the result. */
  readonly pieces: readonly WithheldPiece[];
}

/** A successful raw result: text parts for the model, structured fields for programs. */
export interface RawOk {
  readonly kind: "ok";
  readonly parts: readonly TextPart[];
  readonly structured: Record<string, unknown>;
  /** Secrets of the whole source that the returned lines show (see {@linkcode WithheldSecret}). */
  readonly withheld?: readonly WithheldSecret[];
}

/** Arguments a schema cannot catch (a forged or stale cursor): a JSON-RPC -32602. */
export interface RawInvalidParams {
  readonly kind: "invalid_params";
  readonly message: string;
}

/** A tool's raw result, before redaction and fencing. */
export type RawToolResult = RawOk | RawRefusal | RawInvalidParams;
