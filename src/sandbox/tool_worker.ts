/**
 * The tool worker: runs tool handlers inside Deno's permission sandbox
 * (read: the workspace; run: git; nothing else). One job at a time; the
 * supervisor terminates it when a job outlives its budget.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { createToolContext, runTool } from "./tool_runtime.ts";
import { answerSupervisor } from "./worker_loop.ts";
import type { ToolContext } from "../tools/types.ts";

let context: ToolContext | undefined;

answerSupervisor({
  init: (settings) => context = createToolContext(settings),
  job: (job) => runTool(job.tool, job.args, context),
});
