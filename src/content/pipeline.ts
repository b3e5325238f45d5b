/**
 * The result pipeline: the one path from a tool's raw result to what the
 * client sees. Refusals become `isError` results whose text leads with the
 * stable code and the remedy (no `structuredContent`: ADR-013). Successful results are redacted (text and structured halves
 * alike), their untrusted parts fenced with one fresh nonce per response,
 * and marked `untrusted_content` with the redaction audit attached.
 * Injection scoring plugs in here, between redaction and fencing.
 *
 * @module
 */

import type { CallToolResult } from "@modelcontextprotocol/server";
import { REFUSAL_META_KEY } from "../contract/envelope.ts";
import type { RawToolResult } from "../contract/result.ts";
import { fenceUntrusted, newNonce } from "./fence.ts";
import { type RedactionAudit, Redactor } from "./redact.ts";

/** Options fixed at start. */
export interface PipelineOptions {
  readonly redactSecrets: boolean;
}

/**
 * Shapes a tool's successful or refused raw result. (`invalid_params` never
 * reaches here: it is a protocol error, raised by the dispatcher.)
 */
export function shapeToolResult(
  raw: Exclude<RawToolResult, { kind: "invalid_params" }>,
  options: PipelineOptions,
): CallToolResult {
  if (raw.kind === "refused") {
    // No structuredContent: a refusal is not the tool's output, and clients that validate
    // structuredContent against the output schema on errors too would reject it (ADR-013).
    // The text leads with the code and the remedy; programs read them from `_meta`.
    return {
      isError: true,
      content: [{
        type: "text",
        text: `Refused (${raw.error}): ${raw.message}\nRemedy: ${raw.remedy}`,
      }],
      _meta: { [REFUSAL_META_KEY]: { error: raw.error, remedy: raw.remedy } },
    };
  }
  // The text and structured halves are two renderings of the same result: each is redacted
  // on its own, and the audit takes the larger count per kind, so a secret shown in both
  // halves is reported once.
  const textRedactor = options.redactSecrets ? new Redactor() : undefined;
  const structuredRedactor = options.redactSecrets ? new Redactor() : undefined;
  const nonce = newNonce();
  const texts = raw.parts.map((part) => {
    if (!part.untrusted) return part.text;
    const clean = textRedactor ? textRedactor.redact(part.text) : part.text;
    return fenceUntrusted(clean, nonce);
  });
  const structured = structuredRedactor
    ? structuredRedactor.redactDeep(raw.structured)
    : raw.structured;
  const redactions = mergeAudits(textRedactor?.audit() ?? [], structuredRedactor?.audit() ?? []);
  if (redactions.length > 0) {
    texts.push(
      "Redacted: " + redactions.map((r) => `${r.count} × ${r.kind}`).join(", ") + ".",
    );
  }
  return {
    content: [{ type: "text", text: texts.join("\n") }],
    structuredContent: { ...structured, untrusted_content: true, redactions },
  };
}

/** The larger count per kind of two audits, sorted by kind. */
function mergeAudits(a: RedactionAudit[], b: RedactionAudit[]): RedactionAudit[] {
  const counts = new Map<string, number>();
  for (const { kind, count } of [...a, ...b]) {
    counts.set(kind, Math.max(counts.get(kind) ?? 0, count));
  }
  return [...counts].sort(([x], [y]) => x.localeCompare(y)).map(([kind, count]) => ({
    kind,
    count,
  }));
}
