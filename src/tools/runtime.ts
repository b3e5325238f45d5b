/**
 * What a tool worker runs, without the message plumbing: the tool context
 * built from the tool settings, and one tool call turned into a raw result
 * (refusals and crashes included). The worker is handed the tool table; it
 * does not import the registry. Tests call {@linkcode runTool} directly
 * against a context, without workers.
 *
 * @module
 */

import { Denylist } from "../access/denylist.ts";
import { GitRunner } from "../access/git.ts";
import { hostSemantics, SEMANTICS } from "../access/path_semantics.ts";
import { Workspace } from "../access/workspace.ts";
import { WalkPolicy } from "../access/walk_policy.ts";
import { refusal, ToolRefusal } from "../contract/refusal.ts";
import type { RawToolResult } from "../contract/result.ts";
import type { ToolSettings } from "../contract/settings.ts";
import { NEVER_STOP, type ProgressReporter, type StopSignal } from "../contract/stop.ts";
import { CursorCodec } from "./cursor.ts";
import { DEFAULT_READ_CACHE_BYTES, ReadCache } from "./read_cache.ts";
import type { ToolContext, ToolTable } from "./types.ts";

/** The contained workspace the settings describe. */
export function workspaceFor(settings: ToolSettings): Workspace {
  const denylist = new Denylist(settings.denyExtra, settings.root);
  return new Workspace(
    {
      root: settings.root,
      configuredRoot: settings.configuredRoot,
      workspaceName: settings.workspaceName,
      denylist,
      followSymlinks: settings.followSymlinks,
      semantics: settings.pathSemantics === undefined
        ? hostSemantics()
        : SEMANTICS[settings.pathSemantics],
    },
    new WalkPolicy(denylist, { skippedDirs: settings.skippedDirs }),
  );
}

/** Per-call hooks of a context: the stop signal and the progress reporter. */
export interface CallHooks {
  readonly stop?: StopSignal;
  readonly progress?: ProgressReporter;
  /** A job's way to a second worker (ADR-064). */
  readonly assist?: (tool: string, args: unknown, shared: SharedArrayBuffer) => Promise<unknown>;
  /** A helper's recall word. */
  readonly recalled?: () => boolean;
}

/** Everything a tool handler may touch, built once per worker (the hooks per call). */
export function createToolContext(settings: ToolSettings, hooks: CallHooks = {}): ToolContext {
  const cacheBytes = settings.limits.readCacheBytes ?? DEFAULT_READ_CACHE_BYTES;
  return {
    ...(cacheBytes > 0 ? { readCache: new ReadCache(cacheBytes) } : {}),
    workspace: workspaceFor(settings),
    git: new GitRunner({
      root: settings.root,
      workspaceName: settings.workspaceName,
      binary: settings.gitBinary,
    }),
    limits: settings.limits,
    cursors: new CursorCodec(settings.cursorKey),
    stop: hooks.stop ?? NEVER_STOP,
    progress: hooks.progress ?? (() => {}),
  };
}

/** The same context with other per-call hooks (the workspace and codec are shared). */
export function withHooks(context: ToolContext, hooks: CallHooks): ToolContext {
  return {
    ...context,
    stop: hooks.stop ?? context.stop,
    progress: hooks.progress ?? context.progress,
    assist: hooks.assist,
    recalled: hooks.recalled,
  };
}

/**
 * Runs tool `name`'s assist entry (the second thread of another worker's
 * call, ADR-064); `undefined` when it has none or fails (the asker then
 * reports the loss).
 */
export async function runAssist(
  tools: ToolTable,
  name: string,
  args: unknown,
  shared: SharedArrayBuffer,
  context: ToolContext | undefined,
): Promise<unknown> {
  const tool = tools.find((t) => t.name === name);
  if (!tool?.assist || !context) return undefined;
  try {
    return await tool.assist(args as never, context, shared);
  } catch (error) {
    console.error(`devserver: the helper of ${name} failed:`, error);
    return undefined;
  }
}

/** A thrown refusal as a raw result; anything else as `internal_error` (detail to stderr only). */
export function refusedResult(error: unknown, tool: string): RawToolResult {
  if (error instanceof ToolRefusal) return error.toResult();
  console.error(`devserver: tool ${tool} failed:`, error);
  return refusal("internal_error", "The tool failed unexpectedly.");
}

/** Runs tool `name` of `tools` with validated `args`; never throws. */
export async function runTool(
  tools: ToolTable,
  name: string,
  args: unknown,
  context: ToolContext | undefined,
): Promise<RawToolResult> {
  const tool = tools.find((t) => t.name === name);
  if (!tool || !context) {
    return refusal("internal_error", "The tool worker was not ready for this call.");
  }
  try {
    return await tool.run(args as never, context);
  } catch (error) {
    return refusedResult(error, name);
  }
}
