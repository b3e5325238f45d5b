/**
 * The tool worker: runs tool handlers inside Deno's permission sandbox
 * (read: the workspace; run: git; nothing else). One job at a time; the
 * supervisor terminates it when a job outlives its budget.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { Denylist } from "./denylist.ts";
import type {
  InitMessage,
  JobMessage,
  PingMessage,
  PongMessage,
  ResultMessage,
} from "./messages.ts";
import { DEFAULT_REMEDIES, ToolRefusal } from "./refusal.ts";
import { Workspace } from "./workspace.ts";
import { CursorCodec } from "../tools/cursor.ts";
import { findTool } from "../tools/registry.ts";
import type { RawToolResult, ToolContext } from "../tools/types.ts";

let context: ToolContext | undefined;

/** Runs one job to a raw result; refusals and crashes become refused results. */
async function runJob(job: JobMessage): Promise<RawToolResult> {
  const tool = findTool(job.tool);
  if (!tool || !context) {
    return {
      kind: "refused",
      error: "internal_error",
      message: "The tool worker was not ready for this call.",
      remedy: DEFAULT_REMEDIES.internal_error,
    };
  }
  try {
    return await tool.run(job.args as never, context);
  } catch (error) {
    if (error instanceof ToolRefusal) {
      const refusal: ToolRefusal = error;
      return {
        kind: "refused",
        error: refusal.code,
        message: refusal.message,
        remedy: refusal.remedy,
      };
    }
    console.error(`devserver: tool ${job.tool} failed:`, error);
    return {
      kind: "refused",
      error: "internal_error",
      message: "The tool failed unexpectedly.",
      remedy: DEFAULT_REMEDIES.internal_error,
    };
  }
}

self.onmessage = async (event: MessageEvent<InitMessage | PingMessage | JobMessage>) => {
  const message = event.data;
  if (message.type === "ping") {
    self.postMessage({ type: "pong" } satisfies PongMessage);
    return;
  }
  if (message.type === "init") {
    const s = message.settings;
    context = {
      workspace: new Workspace({
        root: s.root,
        configuredRoot: s.configuredRoot,
        workspaceName: s.workspaceName,
        denylist: new Denylist(s.denyExtra),
        followSymlinks: s.followSymlinks,
      }),
      limits: s.limits,
      cursors: new CursorCodec(s.cursorKey),
    };
    return;
  }
  const reply: ResultMessage = { type: "result", id: message.id, result: await runJob(message) };
  self.postMessage(reply);
};
