/**
 * Test fixtures: throw-away workspaces on the real filesystem, configs for
 * them, and in-process servers built exactly as the program builds them.
 *
 * @module
 */

import { join } from "node:path";
import { type CallToolResult, ProtocolError } from "@modelcontextprotocol/server";
import { createDevServer, type DevServer, sandboxSettings } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config/load.ts";
import type { Sandbox } from "../../src/isolation/sandbox.ts";
import { ToolDispatcher } from "../../src/protocol/dispatch.ts";
import { TOOLS } from "../../src/tools/registry.ts";
import { type CallHooks, createToolContext, runTool } from "../../src/tools/runtime.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { assertConformingResult, type ConformanceLimits } from "./schema.ts";

/** One entry of a fixture workspace. */
export type FixtureEntry =
  | string
  | Uint8Array
  | { symlink: string }
  | { dir: true }
  | { fifo: true };

/** A temporary workspace that removes itself on dispose. */
export interface TempWorkspace extends AsyncDisposable {
  /** The workspace path (real: temp dirs are resolved). */
  readonly root: string;
  /** A directory next to the workspace (outside it), for escape targets. */
  readonly outside: string;
  /** `join(root, ...parts)`. */
  path(...parts: string[]): string;
}

/**
 * Creates `<tmp>/ws` holding `entries` (paths relative to the root, parents
 * created) and `<tmp>/outside/secret.txt` with "OUTSIDE-SECRET".
 */
export async function makeWorkspace(
  entries: Record<string, FixtureEntry> = {},
): Promise<TempWorkspace> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "devserver-test-" }));
  const root = join(base, "ws");
  const outside = join(base, "outside");
  await Deno.mkdir(root);
  await Deno.mkdir(outside);
  await Deno.writeTextFile(join(outside, "secret.txt"), "OUTSIDE-SECRET\n");
  for (const [relative, entry] of Object.entries(entries)) {
    const target = join(root, relative);
    await Deno.mkdir(join(target, ".."), { recursive: true });
    if (typeof entry === "string") await Deno.writeTextFile(target, entry);
    else if (entry instanceof Uint8Array) await Deno.writeFile(target, entry);
    else if ("symlink" in entry) await Deno.symlink(entry.symlink, target);
    else if ("dir" in entry) await Deno.mkdir(target, { recursive: true });
    else {
      const made = await new Deno.Command("mkfifo", { args: [target] }).output();
      if (!made.success) throw new Error("mkfifo failed");
    }
  }
  return {
    root,
    outside,
    path: (...parts: string[]) => join(root, ...parts),
    async [Symbol.asyncDispose]() {
      await Deno.remove(base, { recursive: true }).catch(() => {});
    },
  };
}

/** A configuration for `root` from `env` (only `MCP_*` settings), as `loadConfig` builds it. */
export function configFor(root: string, env: Record<string, string> = {}): Config {
  return loadConfig(env, { workspaceFlag: root, cwd: root });
}

/**
 * An in-process server (real sandbox workers) that closes itself on dispose.
 * Every result its dispatcher produces — through `dispatcher.call` or the
 * protocol layer above it — is checked against the tool's published output
 * schema and the response budget (`assertConformingResult`); a result that
 * breaks the contract throws in the test that produced it.
 */
export function startServer(
  root: string,
  env: Record<string, string> = {},
): DevServer & Disposable {
  const server = createDevServer(configFor(root, env));
  checkEveryResult(server.dispatcher, server.config);
  return Object.assign(server, { [Symbol.dispose]: () => server.close() });
}

/**
 * Wraps `dispatcher.call` so every result it returns is checked against the
 * published output schema of its tool and the response budget in `limits`.
 * Protocol errors (-32602) pass through unchecked: they are not results.
 */
export function checkEveryResult(dispatcher: ToolDispatcher, limits: ConformanceLimits): void {
  const call = dispatcher.call.bind(dispatcher);
  dispatcher.call = async (name: string, args: unknown): Promise<CallToolResult> => {
    const result = await call(name, args);
    assertConformingResult(name, result, limits);
    return result;
  };
}

/** The text of a result's first text block. */
export function textOf(result: { content?: unknown[] }): string {
  const block = (result.content ?? [])[0] as { type?: string; text?: string } | undefined;
  return block?.type === "text" ? block.text ?? "" : "";
}

/**
 * A tool context on `root` built as a tool worker builds it, for running
 * handlers directly in the test's thread (no workers, no permission layer):
 * the fast path for tool tests. Integration, security and e2e tests keep
 * the worker path.
 */
export function directContext(
  root: string,
  env: Record<string, string> = {},
  hooks: CallHooks = {},
): ToolContext {
  return createToolContext(sandboxSettings(configFor(root, env)), hooks);
}

/**
 * Calls tool `name` directly in this thread through the program's own
 * dispatcher — input validation, handler, result pipeline, output check —
 * with the handler run in this thread instead of a worker. A -32602 (an
 * unknown tool, a raw `invalid_params`) is returned as `{ invalidParams }`.
 * Every result is checked like `startServer`'s (`assertConformingResult`).
 */
export async function callDirect(
  context: ToolContext,
  name: string,
  args: unknown,
  options: { redactSecrets?: boolean } = {},
): Promise<CallToolResult | { invalidParams: string }> {
  const inThisThread = {
    run: (tool: string, validated: unknown) => runTool(TOOLS, tool, validated, context),
  } as Pick<Sandbox, "run"> as Sandbox;
  const dispatcher = new ToolDispatcher(inThisThread, {
    redactSecrets: options.redactSecrets ?? true,
  });
  checkEveryResult(dispatcher, context.limits);
  try {
    return await dispatcher.call(name, args);
  } catch (error) {
    if (error instanceof ProtocolError) return { invalidParams: error.message };
    throw error;
  }
}

/**
 * Runs `fn` with `Deno.lstatSync` calling `onLstat(path)` first: a test acts at the moment the
 * walker looks at a directory (its entry, or a batch's check of its chain).
 */
export async function withLstatHook<T>(
  onLstat: (path: string) => void,
  fn: () => Promise<T>,
): Promise<T> {
  const lstat = Deno.lstatSync;
  Deno.lstatSync = (path: string | URL) => {
    onLstat(String(path));
    return lstat(path);
  };
  try {
    return await fn();
  } finally {
    Deno.lstatSync = lstat;
  }
}

/**
 * Writes `text` to `path` as an editor saves: a new file beside it, renamed over it. The
 * directory's `ctime` moves, so a walk that read it before cannot vouch for it (ADR-054).
 */
export function saveLikeAnEditor(path: string, text: string): void {
  Deno.writeTextFileSync(path + ".save", text);
  Deno.renameSync(path + ".save", path);
}
