/**
 * The tool worker: runs tool handlers inside Deno's permission sandbox
 * (read: the workspace; run: git; nothing else). One job at a time; the
 * supervisor terminates it when a job outlives its budget.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import type {
  InitMessage,
  JobMessage,
  PingMessage,
  PongMessage,
  ResultMessage,
} from "./messages.ts";
import { createToolContext, runTool } from "./tool_runtime.ts";
import type { ToolContext } from "../tools/types.ts";

let context: ToolContext | undefined;

self.onmessage = async (event: MessageEvent<InitMessage | PingMessage | JobMessage>) => {
  const message = event.data;
  if (message.type === "ping") {
    self.postMessage({ type: "pong" } satisfies PongMessage);
    return;
  }
  if (message.type === "init") {
    context = createToolContext(message.settings);
    return;
  }
  const result = await runTool(message.tool, message.args, context);
  self.postMessage({ type: "result", id: message.id, result } satisfies ResultMessage);
};
