/**
 * Composition: one configured server — sandbox, dispatcher, SDK factory —
 * built from a {@linkcode Config}. Every command and every test builds the
 * server this way, so what is tested is what is served.
 *
 * @module
 */

import type { McpServerFactory } from "@modelcontextprotocol/server";
import type { Config } from "./config/load.ts";
import { ToolDispatcher } from "./protocol/dispatch.ts";
import { createServerFactory } from "./protocol/server.ts";
import { locateGit } from "./access/git_environment.ts";
import type { SandboxSettings } from "./isolation/messages.ts";
import { type Sandbox, type SandboxOptions, startSandbox } from "./isolation/sandbox.ts";

/** The program's tool worker: the worker loop handed the tool table. */
export const TOOL_WORKER_URL = new URL("./tool_worker.ts", import.meta.url);

/** How many tool workers run calls at once. */
export const TOOL_WORKER_POOL_SIZE = 2;

/**
 * The pool of `devserver call`, which runs one call and exits: one worker (ADR-107). A second
 * comes from the supervisor only once the first has loaded, and its own module loading takes
 * about a second more, while a call's search asks for help within its first files: the help
 * was declined every time, so the second worker only held memory (about 34 MB of the call's
 * peak RSS on a full scan of the Linux tree).
 */
export const ONE_CALL_POOL_SIZE = 1;

/**
 * How many of the pool the main thread creates itself before it drops read
 * (the others come from the supervisor in the background): one is enough
 * for the first call, and each more adds its module loading to the time to
 * the first answer (`deno task bench`).
 */
export const DIRECT_TOOL_WORKERS = 1;

/** How many calls may wait for a tool worker before more are refused `busy`. */
export const TOOL_QUEUE_LIMIT = 32;

/**
 * How long a call asked to stop (at its budget, or cancelled) may take to
 * return what it has before its worker is abandoned and the call answered
 * `timed_out` (or `cancelled`) without it.
 */
export const STOP_GRACE_MS = 1000;

/**
 * The longest a call can take once received: waiting behind a full queue,
 * then running to its budget and grace. Closing stdin waits this long for answers.
 */
export function longestCallMs(config: Config): number {
  const rounds = Math.ceil(TOOL_QUEUE_LIMIT / TOOL_WORKER_POOL_SIZE) + 1;
  return rounds * (config.toolTimeoutMs + STOP_GRACE_MS) + 1000;
}

/** A configured server, ready to attach to a transport. */
export interface DevServer {
  /** The configuration it was built from. */
  readonly config: Config;
  /** The permission-scoped workers that run the tools. */
  readonly sandbox: Sandbox;
  /** Calls tools by name (the `tools/call` path, also used by `devserver call`). */
  readonly dispatcher: ToolDispatcher;
  /** The SDK factory for `serveStdio` / `createMcpHandler`. */
  readonly factory: McpServerFactory;
  /** Whether git was found at start (the git tools need it; `/readyz` reports it). */
  readonly gitFound: boolean;
  /** Stops the sandbox's workers. */
  close(): void;
}

/**
 * The sandbox settings a configuration implies: the cursor key is the one
 * read from `MCP_SERVER__CURSOR_KEY_FILE`, or a fresh random one.
 */
export function sandboxSettings(
  config: Config,
  poolSize: number = TOOL_WORKER_POOL_SIZE,
): SandboxSettings {
  return {
    root: config.workspaceRoot,
    configuredRoot: config.workspace,
    workspaceName: config.workspaceName,
    followSymlinks: config.followSymlinks,
    denyExtra: config.denyExtra,
    skippedDirs: config.searchSkipDirs,
    limits: {
      maxFileBytes: config.maxFileBytes,
      maxLines: config.maxLines,
      listPageSize: config.listPageSize,
      maxResultChars: config.maxResultChars,
      timeoutMs: config.toolTimeoutMs,
      maxSearchFileBytes: config.searchMaxFileBytes,
      maxSearchResults: config.searchMaxResults,
      maxWalkFiles: config.searchMaxFiles,
      maxWalkBytes: config.searchMaxBytes,
      readCacheBytes: config.readCacheBytes,
    },
    cursorKey: config.cursorKey ?? crypto.getRandomValues(new Uint8Array(32)),
    gitBinary: locateGit(Deno.env.get("PATH") ?? "", config.workspaceRoot),
    timeoutMs: config.toolTimeoutMs,
    stopGraceMs: STOP_GRACE_MS,
    poolSize,
    directWorkers: DIRECT_TOOL_WORKERS,
    queueLimit: TOOL_QUEUE_LIMIT,
  };
}

/**
 * Builds the server for `config`: starts the sandbox (the first pool of tool
 * workers and the supervisor). Call while the main thread still holds read;
 * drop permissions only after `sandbox.started`.
 */
export function createDevServer(
  config: Config,
  options: Partial<SandboxOptions> & { poolSize?: number } = {},
): DevServer {
  const settings = sandboxSettings(config, options.poolSize);
  const sandbox = startSandbox(settings, {
    toolWorkerUrl: options.toolWorkerUrl ?? TOOL_WORKER_URL,
  });
  const dispatcher = new ToolDispatcher(sandbox, { redactSecrets: config.redactSecrets });
  return {
    config,
    sandbox,
    dispatcher,
    factory: createServerFactory(dispatcher),
    gitFound: settings.gitBinary !== null,
    close: () => sandbox.close(),
  };
}
