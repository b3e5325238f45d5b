/**
 * The tool worker's entry: the worker loop handed the program's tool table.
 * It runs tool handlers inside Deno's permission sandbox (read: the
 * workspace; run: git; nothing else), one job at a time, each with its own
 * stop signal and progress reporter. This module sits above both the tools
 * and the isolation layer, so neither imports the other.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { serveToolJobs } from "./isolation/worker_loop.ts";
import { TOOLS } from "./tools/registry.ts";
import { createToolContext, runAssist, runTool, withHooks } from "./tools/runtime.ts";
import type { ToolContext } from "./tools/types.ts";

let context: ToolContext | undefined;

serveToolJobs({
  init: (settings) => context = createToolContext(settings),
  job: (job, hooks) => runTool(TOOLS, job.tool, job.args, context && withHooks(context, hooks)),
  assist: (job, hooks) =>
    runAssist(TOOLS, job.tool, job.args, job.shared, context && withHooks(context, hooks)),
});
