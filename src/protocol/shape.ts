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
import { containsFolded, drawNonce, newNonce } from "../content/fence.ts";
import { type PipelineOptions, shapeToolResult } from "../content/pipeline.ts";
import { refusal } from "../contract/refusal.ts";
import type { RawToolResult } from "../contract/result.ts";
import { log } from "../log.ts";
import type { ReadCache, ShapedTemplate } from "../tools/read_cache.ts";
import type { ToolSpec } from "../tools/types.ts";

/**
 * The shaped result, checked against the tool's output schema (the schema
 * it publishes is generated from the same zod object). A result that does
 * not conform is a bug of ours: the client gets `internal_error`, never a
 * result its own validation would reject.
 */
export function conformingResult(
  tool: ToolSpec,
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

/**
 * {@linkcode conformingResult}, reusing what the worker's read cache kept (ADR-081): a raw
 * result the cache handed out again (the same file, unchanged, the same range) was shaped
 * before, and is answered with that shaping fenced with a fresh nonce, drawn absent from
 * everything around it, as the pipeline draws it. Any other raw result is shaped as usual,
 * and kept for reuse when the cache holds it.
 */
export function cachedConformingResult(
  tool: ToolSpec,
  raw: Exclude<RawToolResult, { kind: "invalid_params" }>,
  options: PipelineOptions,
  cache: ReadCache | undefined,
): CallToolResult {
  const template = cache?.shapedOf(raw, options.redactSecrets);
  if (template) return refenced(template);
  const shaped = conformingResult(tool, raw, options);
  if (cache?.holds(raw)) {
    const kept = templateOf(raw, shaped, options.redactSecrets);
    if (kept) cache.attachShaped(raw, kept);
  }
  return shaped;
}

const FENCE_OPEN = /<untrusted-[a-z0-9-]+ id=([0-9a-f]{32})>\n/;

/**
 * `shaped` cut at its nonce, or `undefined` when it cannot be reused safely: an error, more
 * than one text block, or a nonce found anywhere but in the two markers of each fence.
 */
export function templateOf(
  raw: RawToolResult,
  shaped: CallToolResult,
  redactSecrets: boolean,
): ShapedTemplate | undefined {
  if (shaped.isError || raw.kind !== "ok" || shaped.content.length !== 1) return undefined;
  const block = shaped.content[0];
  if (block.type !== "text") return undefined;
  const nonce = FENCE_OPEN.exec(block.text)?.[1];
  if (nonce === undefined) return undefined;
  const segments = block.text.split(nonce);
  const fences = raw.parts.filter((part) => part.untrusted).length;
  if (segments.length !== 2 * fences + 1) return undefined;
  const { content: _, ...rest } = shaped;
  if (JSON.stringify(rest).includes(nonce)) return undefined;
  // The text block stays in its place (`refenced` overwrites it), so keys keep their order.
  return {
    result: { ...shaped, content: [] },
    segments,
    redactSecrets,
    hexRuns: hexRunsOf(segments),
  };
}

/** What `newNonce` draws: 32 lowercase hex digits (the runs below are at least that long). */
const NONCE_SHAPE = /^[0-9a-f]{32}$/;
const HEX_RUN = /[0-9a-f]{32,}/gi;

/**
 * Every maximal run of at least a nonce's length of ASCII hex digits (either case) in
 * `texts`, lowercased. A nonce of 32 lowercase hex digits occurs in `t.toLowerCase()`
 * exactly when it occurs in one of these: no character outside ASCII lowercases to text
 * holding a hex digit (ADR-088, a test checks every code point), so an occurrence lies
 * within one run of ASCII hex digits, and a run shorter than the nonce holds none.
 */
export function hexRunsOf(texts: readonly string[]): string[] {
  const runs: string[] = [];
  for (const text of texts) {
    for (const match of text.matchAll(HEX_RUN)) runs.push(match[0].toLowerCase());
  }
  return runs;
}

/**
 * A kept shaping with a fresh nonce in every fence marker, drawn again while it occurs in
 * the kept text (case-insensitively), as the pipeline draws it. The check reads the kept
 * hex runs, not the whole text: for most files there are none (ADR-081's amendment). A
 * nonce of another shape (a replaced `draw`) is checked against the text itself.
 */
export function refenced(
  template: ShapedTemplate,
  draw: () => string = newNonce,
): CallToolResult {
  const nonce = drawNonce(
    (nonce) =>
      NONCE_SHAPE.test(nonce)
        ? !template.hexRuns.some((run) => run.includes(nonce))
        : !template.segments.some((text) => containsFolded(text, nonce)),
    draw,
  );
  return {
    ...template.result,
    content: [{ type: "text", text: template.segments.join(nonce) }],
  } as CallToolResult;
}
