/**
 * Tool-call dispatch, shared by the protocol handler and `devserver call`:
 * find the tool, validate its arguments, run it in the sandbox, and shape
 * the result through the content pipeline. Protocol-level failures (an
 * unknown tool, a forged cursor) are thrown as -32602 `ProtocolError`s.
 *
 * @module
 */

import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import type { z } from "zod";
import { shapeToolResult } from "../content/pipeline.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";
import { DEFAULT_REMEDIES } from "../sandbox/refusal.ts";
import { findTool } from "../tools/registry.ts";

/** Options fixed at start. */
export interface DispatchOptions {
  readonly redactSecrets: boolean;
}

/** Calls tools by name on behalf of a client. */
export class ToolDispatcher {
  readonly #sandbox: Sandbox;
  readonly #options: DispatchOptions;

  constructor(sandbox: Sandbox, options: DispatchOptions) {
    this.#sandbox = sandbox;
    this.#options = options;
  }

  /** Calls `name` with `args` (unvalidated, straight from the client). */
  async call(name: string, args: unknown): Promise<CallToolResult> {
    const tool = findTool(name);
    if (!tool) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${printable(name)}`);
    }
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) {
      return shapeToolResult({
        kind: "refused",
        error: "invalid_arguments",
        message: describeIssues(parsed.error),
        remedy: DEFAULT_REMEDIES.invalid_arguments,
      }, this.#options);
    }
    const raw = await this.#sandbox.run(name, parsed.data);
    if (raw.kind === "invalid_params") {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, raw.message);
    }
    return shapeToolResult(raw, this.#options);
  }
}

/** A schema failure as one line: which fields, what was wrong. Values are never echoed. */
function describeIssues(error: z.ZodError): string {
  const issues = error.issues.slice(0, 5).map((issue) => {
    const where = issue.path.length ? issue.path.join(".") : "arguments";
    if (issue.code === "unrecognized_keys") {
      return `${where}: unknown field(s) ${issue.keys.map((k) => printable(k)).join(", ")}`;
    }
    return `${where}: ${issue.message}`;
  });
  return "Invalid arguments: " + issues.join("; ") + ".";
}

function printable(text: string): string {
  const short = text.length > 64 ? text.slice(0, 64) + "…" : text;
  return JSON.stringify(short);
}
