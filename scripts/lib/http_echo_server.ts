/**
 * The baseline of `deno task bench:http`: a bare SDK v2 server over
 * Streamable HTTP — `createMcpHandler` on `Deno.serve`, one trivial `echo`
 * tool, no workers, no permission drop, no result pipeline, no Host/Origin
 * check. What the same SDK costs per request on this machine, so
 * devserver's HTTP throughput is measured as a ratio against it.
 *
 * Usage: deno run --config deno.json --allow-net=127.0.0.1 scripts/lib/http_echo_server.ts
 *
 * @module
 */

import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

const handler = createMcpHandler(() => {
  const server = new McpServer(
    { name: "bench-echo", version: "0.0.0" },
    { capabilities: { tools: { listChanged: false } } },
  );
  server.registerTool(
    "echo",
    { description: "Echoes its text.", inputSchema: z.object({ text: z.string() }) },
    ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}, { legacy: "reject" });

Deno.serve(
  {
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ hostname, port }) =>
      console.error(`echo baseline: listening on http://${hostname}:${port}/mcp`),
  },
  (request) => handler.fetch(request),
);
