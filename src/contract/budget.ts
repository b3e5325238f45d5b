/**
 * The response budget: how many characters one result may hold, its text
 * and its structured half (as JSON) together. A tool plans against
 * {@linkcode toolBudget}, which leaves room for what the result pipeline
 * adds (fence markers, the envelope fields, the redaction note).
 *
 * @module
 */

import type { TextPart } from "./result.ts";
import type { ToolLimits } from "./settings.ts";

/** Characters kept back for what the pipeline adds around a tool's own text and fields. */
// Fence markers (~90 characters a part), the redaction audit and note, and the injection
// assessment: at most 12 signals of ~300 characters (a 100-character excerpt, escaped) and its
// note in the text.
export const PIPELINE_RESERVE_CHARS = 6_000;

/** What a tool may spend on its text parts and structured half together. */
export function toolBudget(limits: ToolLimits): number {
  return limits.maxResultChars - PIPELINE_RESERVE_CHARS;
}

/** How much of the budget a raw result spends: its text parts plus its structured half as JSON. */
export function rawResultChars(
  parts: readonly TextPart[],
  structured: Record<string, unknown>,
): number {
  let total = JSON.stringify(structured).length;
  for (const part of parts) total += part.text.length + 1;
  return total;
}

/** How much of the budget a shaped result spends: every text block plus `structuredContent` as JSON. */
export function shapedResultChars(result: {
  content?: readonly unknown[];
  structuredContent?: unknown;
}): number {
  let total = result.structuredContent === undefined
    ? 0
    : JSON.stringify(result.structuredContent).length;
  for (const block of result.content ?? []) {
    const text = (block as { text?: unknown }).text;
    if (typeof text === "string") total += text.length;
  }
  return total;
}
