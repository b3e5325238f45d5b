/**
 * One devserver HTTP instance as its own process, for the load-balancer
 * check (`deno task lb:check`) and the HTTP benchmark: started over a
 * workspace, on a free loopback port, optionally with a shared cursor key
 * file; ready when it prints `listening on http://…` on stderr.
 *
 * The program is the real one, `devserver serve --transport http`, with the
 * flags of `deno task devserver`.
 *
 * @module
 */

import { metadataHeaders } from "../../src/conform/http.ts";
import { childEnv, REPO_ROOT, serveArgs } from "./program.ts";

/** A running instance. */
export interface HttpInstance extends AsyncDisposable {
  /** The MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  readonly pid: number;
  /** Which program it is, e.g. "devserver serve --transport http". */
  readonly program: string;
  /** What it wrote on stderr so far (the last `stderrKept` characters). */
  stderr(): string;
  /** The child itself, for a test that signals it. */
  readonly process: Deno.ChildProcess;
  /** Resolves with the exit status once it has exited. */
  readonly status: Promise<Deno.CommandStatus>;
  /** SIGTERM (SIGKILL after 10 s), then wait for exit and the end of stderr. */
  close(): Promise<void>;
}

/** The `deno` arguments that serve `root` over HTTP on a free loopback port. */
export function httpInstanceCommand(root: string): { args: string[]; program: string } {
  return {
    args: [...serveArgs(root), "--transport", "http", "--host", "127.0.0.1", "--port", "0"],
    program: "devserver serve --transport http",
  };
}

/** How much of a child's stderr is kept (its last characters). */
const STDERR_KEPT = 64 * 1024;

/** How a devserver HTTP child announces its address on stderr. */
export const LISTENING = /listening on (http:\/\/[^\s"]+)/;

/**
 * Starts an instance over `root`; `env` is added to its environment (e.g.
 * `MCP_SERVER__CURSOR_KEY_FILE`). Resolves once it listens, or throws with
 * its stderr if it exits or takes longer than `timeoutMs`.
 */
export function startHttpInstance(
  root: string,
  env: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<HttpInstance> {
  const { args, program } = httpInstanceCommand(root);
  return startListening(args, program, env, root, timeoutMs);
}

/**
 * Starts `deno ARGS` (cwd `cwd`, the child environment plus `env`) and
 * resolves once it prints `listening on http://…` on stderr. Only the last
 * `stderrKept` characters of stderr are kept (a server logging every request
 * must not grow this process); a test that reads its whole log passes
 * `Infinity`.
 */
export async function startListening(
  args: string[],
  program: string,
  env: Record<string, string> = {},
  cwd = REPO_ROOT,
  timeoutMs = 60_000,
  stderrKept = STDERR_KEPT,
): Promise<HttpInstance> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env: childEnv(env),
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  const found = Promise.withResolvers<string>();
  const drained = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      text = text + decoder.decode(chunk, { stream: true });
      if (text.length > stderrKept) text = text.slice(-stderrKept);
      const match = LISTENING.exec(text);
      if (match) found.resolve(match[1]);
    }
    found.reject(new Error(`${program} exited before listening:\n${text}`));
  })();
  const timer = setTimeout(
    () => found.reject(new Error(`${program} did not listen within ${timeoutMs} ms:\n${text}`)),
    timeoutMs,
  );
  let url: string;
  try {
    url = await found.promise;
  } catch (error) {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    await child.status;
    await drained;
    throw error;
  } finally {
    clearTimeout(timer);
  }
  if (!url.endsWith("/mcp")) url = url.replace(/\/?$/, "/mcp");
  let closed: Promise<void> | undefined;
  const close = () =>
    closed ??= (async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      const kill = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* gone */ }
      }, 10_000);
      await child.status;
      clearTimeout(kill);
      await drained;
    })();
  return {
    url,
    pid: child.pid,
    program,
    stderr: () => text,
    process: child,
    status: child.status,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** POSTs one JSON-RPC message with the headers its body implies (2026-07-28). */
export function postMcp(
  url: string,
  message: Record<string, unknown>,
  timeoutMs = 60_000,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...metadataHeaders(message),
    },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(timeoutMs),
  });
}
