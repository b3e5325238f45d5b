/**
 * The contract between a tool and the rest of the program: what a tool is
 * given, and the raw result it hands back for the result pipeline to shape.
 *
 * @module
 */

import type { z } from "zod";
import type { Workspace } from "../sandbox/workspace.ts";
import type { CursorCodec } from "./cursor.ts";
import type { RefusalCode } from "../sandbox/refusal.ts";

/** Limits a tool enforces, fixed at start from configuration. */
export interface ToolLimits {
  /** Largest file `read_file` reads (`MCP_SANDBOX__MAX_FILE_BYTES`). */
  readonly maxFileBytes: number;
  /** Most lines one `read_file` returns (`MCP_SANDBOX__MAX_LINES`). */
  readonly maxLines: number;
  /** Entries per `list_directory` page (`MCP_SANDBOX__LIST_PAGE_SIZE`). */
  readonly listPageSize: number;
}

/** What a handler receives besides its arguments. Everything it may touch is here. */
export interface ToolContext {
  /** The contained workspace: the only way a tool touches the filesystem. */
  readonly workspace: Workspace;
  /** Limits fixed at start. */
  readonly limits: ToolLimits;
  /** Signs and verifies pagination cursors. */
  readonly cursors: CursorCodec;
}

/** A piece of a result's text: trusted (ours) or untrusted (from files or git). */
export interface TextPart {
  /** The text itself. */
  readonly text: string;
  /** Untrusted parts are fenced, scored and redacted by the result pipeline. */
  readonly untrusted: boolean;
}

/** A tool's raw result, before redaction and fencing. Plain data: it crosses a worker boundary. */
export type RawToolResult =
  | {
    readonly kind: "ok";
    readonly parts: readonly TextPart[];
    readonly structured: Record<string, unknown>;
  }
  | {
    readonly kind: "refused";
    readonly error: RefusalCode;
    readonly message: string;
    readonly remedy: string;
  }
  | {
    /** Arguments a schema cannot catch (a forged or stale cursor): a JSON-RPC -32602. */
    readonly kind: "invalid_params";
    readonly message: string;
  };

/** One tool: its published description and schemas, and its handler. */
export interface ToolDefinition {
  /** The name clients call it by. */
  readonly name: string;
  /** A short human title. */
  readonly title: string;
  /** What it does, for the model. */
  readonly description: string;
  /** Strict input schema (unknown keys rejected, strings bounded). */
  readonly input: z.ZodType;
  /** The `structuredContent` a successful call returns. */
  readonly output: z.ZodType;
  /** Runs inside the tool worker; `args` has already passed `input`. */
  readonly run: (args: never, ctx: ToolContext) => Promise<RawToolResult>;
}
