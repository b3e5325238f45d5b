/**
 * A correct Streamable HTTP endpoint for the checker's HTTP half, until
 * devserver has its own HTTP transport (issue 11): the SDK's
 * `createMcpHandler` over this server's factory, behind an Origin check
 * (the SDK handler does not check Origin itself). A mutation is a wrapper
 * around the handler.
 *
 * @module
 */

import { createMcpHandler } from "@modelcontextprotocol/server";
import type { DevServer } from "../../src/app.ts";

/** Serves one HTTP request, or hands it to the next handler. */
export type HttpMutation = (
  request: Request,
  next: (request: Request) => Promise<Response>,
) => Promise<Response>;

const LOCAL = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Serves `server` on a free loopback port; `mutate` sits in front when given. */
export function serveHttpFixture(
  server: DevServer,
  mutate?: HttpMutation,
): { url: string; close: () => Promise<void> } {
  const handler = createMcpHandler(server.factory, { legacy: "reject" });
  const correct = (request: Request): Promise<Response> => {
    const origin = request.headers.get("origin");
    if (origin !== null) {
      let host = "";
      try {
        host = new URL(origin).hostname;
      } catch { /* invalid */ }
      if (!LOCAL.has(host)) return Promise.resolve(new Response("Forbidden", { status: 403 }));
    }
    return handler.fetch(request);
  };
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => mutate ? mutate(request, correct) : correct(request),
  );
  return {
    url: `http://127.0.0.1:${http.addr.port}/mcp`,
    close: async () => {
      await http.shutdown();
      await handler.close?.();
    },
  };
}
