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
}

/**
 * Pieces of a secret the tool found in the whole source that the returned
 * range cuts (a line range inside a PEM block): the result pipeline replaces
 * each fragment wherever it appears in the result, and counts the secret once.
 */
export interface WithheldSecret {
  /** The secret rule's id. */
  readonly rule: string;
  /** The parts of the secret inside the returned range, one per line. */
  readonly fragments: readonly string[];
}

/** A successful raw result: text parts for the model, structured fields for programs. */
export interface RawOk {
  readonly kind: "ok";
  readonly parts: readonly TextPart[];
  readonly structured: Record<string, unknown>;
  /** Secrets of the whole source that the returned range cuts (see {@linkcode WithheldSecret}). */
  readonly withheld?: readonly WithheldSecret[];
}

/** Arguments a schema cannot catch (a forged or stale cursor): a JSON-RPC -32602. */
export interface RawInvalidParams {
  readonly kind: "invalid_params";
  readonly message: string;
}

/** A tool's raw result, before redaction and fencing. */
export type RawToolResult = RawOk | RawRefusal | RawInvalidParams;
