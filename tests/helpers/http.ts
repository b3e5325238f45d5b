/**
 * HTTP-mode plumbing for tests: 2026-07-28 request builders (body and the
 * headers the revision requires), and the real program — or a fixture
 * script run with the same flags — as a child serving HTTP on a free port,
 * found from the `listening on http://…` line it prints.
 *
 * @module
 */

import { startListening } from "../../scripts/lib/http_instance.ts";
import { devserverRunFlags, MAIN_MODULE, REPO_ROOT } from "../../scripts/lib/program.ts";

/** The revision served natively. */
export const MODERN = "2026-07-28";

/** The request `_meta` envelope of the 2026-07-28 revision. */
export const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "devserver-http-test", version: "0.0.0" },
} as const;

/** The body of a 2026-07-28 request. */
export function modernBody(
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
): string {
  const meta = { ...ENVELOPE, ...(params._meta as Record<string, unknown> | undefined) };
  return JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } });
}

/** The headers a 2026-07-28 POST carries for `method` (and `name`, for `tools/call`). */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": MODERN,
    "Mcp-Method": method,
  };
  if (name !== undefined) headers["Mcp-Name"] = name;
  return headers;
}

/** A `tools/call` request for `url`, headers and body agreeing. */
export function toolCall(
  url: string,
  id: number,
  name: string,
  args: Record<string, unknown>,
  extra: { headers?: Record<string, string>; meta?: Record<string, unknown> } = {},
): Request {
  return new Request(url, {
    method: "POST",
    headers: { ...modernHeaders("tools/call", name), ...extra.headers },
    body: modernBody(id, "tools/call", { name, arguments: args, _meta: extra.meta }),
  });
}

/** A child serving HTTP; disposing sends SIGTERM (SIGKILL after 10 s) and waits for it. */
export interface HttpChild extends AsyncDisposable {
  /** `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  /** `http://127.0.0.1:PORT`. */
  readonly base: string;
  readonly process: Deno.ChildProcess;
  /** The child's stderr so far. */
  stderr(): string;
  /** Resolves with the exit status once it has exited. */
  readonly status: Promise<Deno.CommandStatus>;
}

/**
 * Starts `devserver --workspace ROOT serve --transport http --port 0 ARGS…`
 * (or, with `script`, `script ROOT`) with the `devserver` task's flags, and
 * waits up to `startMs` for its listening line (see `startListening`, which
 * keeps the whole of stderr here, for tests that read the log).
 */
export async function startHttpChild(
  root: string,
  options: { env?: Record<string, string>; args?: string[]; script?: URL; startMs?: number } = {},
): Promise<HttpChild> {
  const args = options.script === undefined
    ? [MAIN_MODULE, "--workspace", root, "serve", "--transport", "http", "--port", "0"]
    : [options.script.pathname, root];
  const child = await startListening(
    ["run", ...devserverRunFlags(), ...args, ...(options.args ?? [])],
    options.script === undefined ? "devserver serve --transport http" : options.script.pathname,
    options.env,
    REPO_ROOT,
    options.startMs ?? 60_000,
    Infinity,
  );
  return {
    url: child.url,
    base: child.url.replace(/\/mcp$/, ""),
    process: child.process,
    stderr: child.stderr,
    status: child.status,
    [Symbol.asyncDispose]: child.close,
  };
}
