/**
 * Test fixtures: throw-away workspaces on the real filesystem, configs for
 * them, and in-process servers built exactly as the program builds them.
 *
 * @module
 */

import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { createDevServer, type DevServer, sandboxSettings } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config/load.ts";
import { shapeToolResult } from "../../src/content/pipeline.ts";
import { refusal } from "../../src/contract/refusal.ts";
import { describeIssues } from "../../src/protocol/dispatch.ts";
import { TOOLS } from "../../src/tools/registry.ts";
import { type CallHooks, createToolContext, runTool } from "../../src/tools/runtime.ts";
import type { ToolContext } from "../../src/tools/types.ts";

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

/** An in-process server (real sandbox workers) that closes itself on dispose. */
export function startServer(
  root: string,
  env: Record<string, string> = {},
): DevServer & Disposable {
  const server = createDevServer(configFor(root, env));
  return Object.assign(server, { [Symbol.dispose]: () => server.close() });
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
 * Calls tool `name` directly in this thread — input validation, handler,
 * result pipeline — as the dispatcher would, without workers. A raw
 * `invalid_params` (a -32602 in the protocol) is returned as `{ invalidParams }`.
 */
export async function callDirect(
  context: ToolContext,
  name: string,
  args: unknown,
): Promise<CallToolResult | { invalidParams: string }> {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) {
    return shapeToolResult(refusal("invalid_arguments", describeIssues(parsed.error)), {
      redactSecrets: true,
    });
  }
  const raw = await runTool(TOOLS, name, parsed.data, context);
  if (raw.kind === "invalid_params") return { invalidParams: raw.message };
  return shapeToolResult(raw, { redactSecrets: true });
}
