/**
 * What a tool hands back before the result pipeline shapes it: plain data
 * that crosses a worker boundary by structured clone. The leaf of the
 * program: this module imports nothing from the project.
 *
 * @module
 */

import type { RawRefusal } from "./refusal.ts";

export type { RawRefusal };

/** A piece of a result's text: trusted (ours) or untrusted (from files or git). */
export interface TextPart {
  /** The text itself. */
  readonly text: string;
  /** Untrusted parts are fenced, scored and redacted by the result pipeline. */
  readonly untrusted: boolean;
}

/** A successful raw result: text parts for the model, structured fields for programs. */
export interface RawOk {
  readonly kind: "ok";
  readonly parts: readonly TextPart[];
  readonly structured: Record<string, unknown>;
}

/** Arguments a schema cannot catch (a forged or stale cursor): a JSON-RPC -32602. */
export interface RawInvalidParams {
  readonly kind: "invalid_params";
  readonly message: string;
}

/** A tool's raw result, before redaction and fencing. */
export type RawToolResult = RawOk | RawRefusal | RawInvalidParams;
