/**
 * How tests read a shaped result: the refusal contract (ADR-013) in one
 * place, so every test checks a refusal the same way a client sees it.
 *
 * @module
 */

import assert from "node:assert/strict";
import { REFUSAL_META_KEY } from "../../src/contract/envelope.ts";
import { REFUSAL_CODES, type RefusalCode } from "../../src/contract/refusal.ts";

/** A result as any client hands it over (SDK v1 or v2 types, or raw JSON). */
export interface AnyToolResult {
  isError?: boolean;
  content?: unknown[];
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
}

/** What a refusal says, read from the text a model sees. */
export interface ReadRefusal {
  readonly error: RefusalCode;
  readonly message: string;
  readonly remedy: string;
}

const REFUSAL_TEXT = /^Refused \(([a-z_]+)\): ([^\n]*)\nRemedy: ([^\n]+)$/;

/** All text blocks of a result, joined. */
export function resultText(result: AnyToolResult): string {
  return (result.content ?? [])
    .map((b) =>
      (b as { type?: string; text?: string }).type === "text" ? (b as { text: string }).text : ""
    )
    .join("\n");
}

/**
 * Asserts `result` is a refusal as the contract promises — `isError`, no
 * `structuredContent`, text that leads with the code and ends with the
 * remedy, the same code and remedy in `_meta` — and returns what it says.
 * With `code`, the refusal must be that code (or one of those codes).
 */
export function readRefusal(
  result: AnyToolResult,
  code?: RefusalCode | readonly RefusalCode[],
): ReadRefusal {
  const text = resultText(result);
  assert.equal(result.isError, true, `expected a refusal, got: ${text.slice(0, 500)}`);
  assert.equal(result.structuredContent, undefined, "a refusal carries no structuredContent");
  const match = text.match(REFUSAL_TEXT);
  assert.ok(match, `refusal text is not "Refused (code): message\\nRemedy: …": ${text}`);
  const [, error, message, remedy] = match;
  assert.ok((REFUSAL_CODES as readonly string[]).includes(error), `unknown code ${error}`);
  const meta = result._meta?.[REFUSAL_META_KEY] as { error?: string; remedy?: string } | undefined;
  assert.deepEqual(meta, { error, remedy }, "_meta carries the same code and remedy");
  if (code !== undefined) {
    const codes: readonly RefusalCode[] = typeof code === "string" ? [code] : code;
    assert.ok(
      codes.includes(error as RefusalCode),
      `expected ${codes.join(" or ")}, got ${error}: ${text}`,
    );
  }
  return { error: error as RefusalCode, message, remedy };
}
