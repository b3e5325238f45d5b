/**
 * What a tool is: its published description and schemas, the refusals its
 * handler can produce, and the handler, which is given a {@linkcode ToolContext}
 * holding everything it may touch.
 *
 * @module
 */

import type { z } from "zod";
import type { GitRunner } from "../access/git.ts";
import type { Workspace } from "../access/workspace.ts";
import type { RefusalCode } from "../contract/refusal.ts";
import type { RawToolResult } from "../contract/result.ts";
import type { ToolLimits } from "../contract/settings.ts";
import type { ProgressReporter, StopSignal } from "../contract/stop.ts";
import type { CursorCodec } from "./cursor.ts";
import type { ReadCache } from "./read_cache.ts";

/** What a handler receives besides its arguments. Everything it may touch is here. */
export interface ToolContext {
  /** The contained workspace: the only way a tool touches the filesystem. */
  readonly workspace: Workspace;
  /** Starts git in the workspace, hardened: the only way a tool runs a program. */
  readonly git: GitRunner;
  /** Limits fixed at start. */
  readonly limits: ToolLimits;
  /** Signs and verifies pagination cursors. */
  readonly cursors: CursorCodec;
  /** Checked between units of work: a raised flag means return now with what you have. */
  readonly stop: StopSignal;
  /** Progress of a long call, forwarded to clients that asked for it. */
  readonly progress: ProgressReporter;
  /**
   * Asks the pool for a second worker to run this tool's `assist` with
   * `args` and `shared` (ADR-064); resolves with its answer, or `undefined`
   * when none was idle or it was lost. Absent on a direct context and in a
   * helper.
   */
  readonly assist?: (tool: string, args: unknown, shared: SharedArrayBuffer) => Promise<unknown>;
  /** In a helper: true once the pool wants the worker back for a waiting call. */
  readonly recalled?: () => boolean;
  /**
   * The worker's cache of processed reads (ADR-081), shared by every call of
   * this context; absent when turned off.
   */
  readonly readCache?: ReadCache;
}

/**
 * What the main thread knows of a tool: its published description, its
 * schemas and its refusals, never its handler (ADR-117).
 */
export interface ToolSpec {
  /** The name clients call it by. */
  readonly name: string;
  /** A short human title. */
  readonly title: string;
  /** What it does, for the model: precise and short (every tool's text costs context). */
  readonly description: string;
  /** Strict input schema (unknown keys rejected, strings bounded). */
  readonly input: z.ZodType;
  /** The `structuredContent` a successful call returns. Refusals carry none. */
  readonly output: z.ZodType;
  /**
   * The refusal codes this tool's handler can produce, besides the universal
   * ones every call can get (`UNIVERSAL_REFUSALS`). Documented per tool in
   * docs/tools.md and tested against what the handler really returns.
   */
  readonly refusals: readonly RefusalCode[];
}

/** One tool: its spec and its handler. */
export interface ToolDefinition extends ToolSpec {
  /** Runs inside the tool worker; `args` has already passed `input`. */
  readonly run: (args: never, ctx: ToolContext) => Promise<RawToolResult>;
  /**
   * The second thread of a call that asked for one (`ctx.assist`, ADR-064):
   * runs in another tool worker with the asker's `args` and `shared`
   * memory; what it returns is structured-cloned to the asker.
   */
  readonly assist?: (args: never, ctx: ToolContext, shared: SharedArrayBuffer) => Promise<unknown>;
}

/** The tools a worker can run, by name. */
export type ToolTable = readonly ToolDefinition[];
