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
import { refusal } from "../contract/refusal.ts";
import { escapeName, quoteName } from "../contract/text.ts";
import type { RawToolResult } from "../contract/result.ts";
import { redactSecrets } from "../secrets/find.ts";
import type { RunOptions, Sandbox } from "../isolation/sandbox.ts";
import { findSpec } from "../tools/specs.ts";
import { conformingResult } from "./shape.ts";
import type { ToolSpec } from "../tools/types.ts";

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

  /**
   * Calls `name` with `args` (unvalidated, straight from the client).
   * `options.signal` is the request's abort signal (a client's
   * `notifications/cancelled`); `options.onProgress` receives the call's
   * progress, never after the result.
   */
  async call(name: string, args: unknown, options: RunOptions = {}): Promise<CallToolResult> {
    const tool = findSpec(name);
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        this.#redact(`Unknown tool: ${quoteName(String(name), MAX_ECHOED_NAME)}`),
      );
    }
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) {
      return shapeToolResult(
        refusal("invalid_arguments", describeIssues(parsed.error)),
        this.#options,
      );
    }
    // The worker shapes what it produced (ADR-074); the sandbox's own refusals come raw.
    const raw = await this.#sandbox.run(name, parsed.data, { ...options, shape: this.#options });
    if (raw.kind === "shaped") return raw.result as CallToolResult;
    if (raw.kind === "invalid_params") {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, this.#redact(raw.message));
    }
    return this.#conforming(tool, raw);
  }

  /** A protocol error's message is redacted like any result (it can echo what it was sent). */
  #redact(message: string): string {
    return this.#options.redactSecrets ? redactSecrets(message) : message;
  }

  /** What the main thread shapes itself: a raw result the worker did not shape. */
  #conforming(tool: ToolSpec, raw: Exclude<RawToolResult, { kind: "invalid_params" }>) {
    return conformingResult(tool, raw, this.#options);
  }
}

/** A schema failure as one line: which fields, what was wrong. Values are never echoed. */
export function describeIssues(error: z.ZodError): string {
  const issues = error.issues.slice(0, 5).map((issue) => {
    // Field names come from the client: escaped and bounded like any name.
    const where = issue.path.length
      ? escapeName(issue.path.map(String).join("."), MAX_ECHOED_NAME)
      : "arguments";
    if (issue.code === "unrecognized_keys") {
      const keys = issue.keys.slice(0, 5).map((k) => quoteName(k, MAX_ECHOED_NAME));
      return `${where}: unknown field(s) ${keys.join(", ")}${issue.keys.length > 5 ? ", …" : ""}`;
    }
    return `${where}: ${escapeName(issue.message, 200)}`;
  });
  return "Invalid arguments: " + issues.join("; ") + ".";
}

/** The longest a client's name (a tool, a field) is echoed in our messages, in characters. */
const MAX_ECHOED_NAME = 64;
