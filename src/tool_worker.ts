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
import { cachedConformingResult } from "./protocol/shape.ts";
import { findTool, TOOLS } from "./tools/registry.ts";
import { compactingAfter } from "./contract/compact.ts";
import { createToolContext, runAssist, runTool, withHooks } from "./tools/runtime.ts";
import type { ToolContext } from "./tools/types.ts";

let context: ToolContext | undefined;

// A call that ran long is followed by a collection of this heap (ADR-118).
serveToolJobs({
  init: (settings) => context = createToolContext(settings),
  job: (job, hooks) =>
    compactingAfter(async () => {
      const raw = await runTool(TOOLS, job.tool, job.args, context && withHooks(context, hooks));
      const tool = findTool(job.tool);
      // Shaped here, where the tool ran: the main thread's thread is the one every request
      // shares, the worker's is this call's (ADR-074). A protocol error stays raw: the
      // dispatcher raises it. So does the answer of a call asked to stop: its grace is for the
      // tool to return what it has, and shaping it here would spend the grace (a partial
      // result lost to `timed_out`); the main thread shapes it as it did before.
      if (
        job.shape === undefined || tool === undefined || raw.kind === "invalid_params" ||
        hooks.stop.reason() !== undefined
      ) return raw;
      // A read the worker's cache answered was shaped before: reused with a fresh nonce (ADR-081).
      return {
        kind: "shaped",
        result: { ...cachedConformingResult(tool, raw, job.shape, context?.readCache) },
      };
    }),
  assist: (job, hooks) =>
    compactingAfter(() =>
      runAssist(TOOLS, job.tool, job.args, job.shared, context && withHooks(context, hooks))
    ),
});
