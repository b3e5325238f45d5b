/**
 * What a tool worker runs, without the message plumbing: the tool context
 * built from the sandbox settings, and one tool call turned into a raw
 * result (refusals and crashes included). The tool worker is this plus
 * `postMessage`; substitute workers in the security tests reuse it, so they
 * exercise exactly what the real worker runs.
 *
 * @module
 */

import { Denylist } from "./denylist.ts";
import type { SandboxSettings } from "./messages.ts";
import { DEFAULT_REMEDIES, ToolRefusal } from "./refusal.ts";
import { Workspace } from "./workspace.ts";
import { CursorCodec } from "../tools/cursor.ts";
import { findTool } from "../tools/registry.ts";
import type { RawToolResult, ToolContext } from "../tools/types.ts";

/** The contained workspace the settings describe. */
export function workspaceFor(settings: SandboxSettings): Workspace {
  return new Workspace({
    root: settings.root,
    configuredRoot: settings.configuredRoot,
    workspaceName: settings.workspaceName,
    denylist: new Denylist(settings.denyExtra),
    followSymlinks: settings.followSymlinks,
  });
}

/** Everything a tool handler may touch, built once per worker. */
export function createToolContext(settings: SandboxSettings): ToolContext {
  return {
    workspace: workspaceFor(settings),
    limits: settings.limits,
    cursors: new CursorCodec(settings.cursorKey),
  };
}

/** A thrown refusal as a raw result; anything else as `internal_error` (detail to stderr only). */
export function refusedResult(error: unknown, tool: string): RawToolResult {
  if (error instanceof ToolRefusal) {
    const refusal: ToolRefusal = error;
    return {
      kind: "refused",
      error: refusal.code,
      message: refusal.message,
      remedy: refusal.remedy,
    };
  }
  console.error(`devserver: tool ${tool} failed:`, error);
  return {
    kind: "refused",
    error: "internal_error",
    message: "The tool failed unexpectedly.",
    remedy: DEFAULT_REMEDIES.internal_error,
  };
}

/** Runs tool `name` with validated `args`; never throws. */
export async function runTool(
  name: string,
  args: unknown,
  context: ToolContext | undefined,
): Promise<RawToolResult> {
  const tool = findTool(name);
  if (!tool || !context) {
    return {
      kind: "refused",
      error: "internal_error",
      message: "The tool worker was not ready for this call.",
      remedy: DEFAULT_REMEDIES.internal_error,
    };
  }
  try {
    return await tool.run(args as never, context);
  } catch (error) {
    return refusedResult(error, name);
  }
}
