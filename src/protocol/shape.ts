/**
 * A tool's raw result as the client will see it: the content pipeline
 * (assess, redact, fence with a fresh nonce, envelope), then the check
 * against the tool's output schema. The dispatcher runs it for what the main
 * thread answers itself (schema failures, the sandbox's own refusals); the
 * tool worker runs it for every result it produced (ADR-074), so file text
 * reaches the main thread already redacted and fenced. No value import from
 * the SDK: the tool worker loads this module.
 *
 * @module
 */

import type { CallToolResult } from "@modelcontextprotocol/server";
import { type PipelineOptions, shapeToolResult } from "../content/pipeline.ts";
import { refusal } from "../contract/refusal.ts";
import type { RawToolResult } from "../contract/result.ts";
import { log } from "../log.ts";
import type { ToolDefinition } from "../tools/types.ts";

/**
 * The shaped result, checked against the tool's output schema (the schema
 * it publishes is generated from the same zod object). A result that does
 * not conform is a bug of ours: the client gets `internal_error`, never a
 * result its own validation would reject.
 */
export function conformingResult(
  tool: ToolDefinition,
  raw: Exclude<RawToolResult, { kind: "invalid_params" }>,
  options: PipelineOptions,
): CallToolResult {
  const shaped = shapeToolResult(raw, options);
  if (shaped.isError) return shaped;
  const check = tool.output.safeParse(shaped.structuredContent);
  if (check.success) return shaped;
  const issues = check.error.issues;
  log(
    "error",
    `tool ${tool.name} produced a result outside its output schema: ` +
      issues.slice(0, 3).map((i) => `${i.path.join(".")}: ${i.message}`).join("; "),
  );
  return shapeToolResult(
    refusal("internal_error", "The tool produced a malformed result."),
    options,
  );
}
