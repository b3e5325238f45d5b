/**
 * The baseline of `deno task bench`'s time to the first tool result: a bare
 * SDK v2 server over stdio (`McpServer.registerTool` + `serveStdio`, no
 * workers, no permission drop, no result pipeline) with one tool,
 * `read_file`, that returns a file's text. It is what the same SDK costs to
 * start and answer on this machine, so devserver's start-up is measured as
 * a ratio against it.
 *
 * Usage: deno run --config deno.json --allow-read=DIR scripts/bench_sdk_baseline.ts
 *
 * @module
 */

import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

serveStdio(() => {
  const server = new McpServer(
    { name: "bench-baseline", version: "0.0.0" },
    { capabilities: { tools: { listChanged: false } } },
  );
  server.registerTool(
    "read_file",
    { description: "Reads a file.", inputSchema: z.object({ path: z.string() }) },
    async ({ path }) => ({ content: [{ type: "text", text: await Deno.readTextFile(path) }] }),
  );
  return server;
});
