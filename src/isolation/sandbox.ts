/**
 * The main thread's handle on the sandbox: starts the supervisor worker
 * with the sandbox grants, sends it jobs, and matches answers to calls.
 * After {@linkcode startSandbox} resolves, the main thread may drop its own
 * read and run permissions: the workers keep theirs.
 *
 * @module
 */

import { fromFileUrl } from "../paths.ts";
import type {
  EventMessage,
  InitMessage,
  ReadyMessage,
  ResultMessage,
  SandboxSettings,
  StartedMessage,
} from "./messages.ts";
import { supervisorPermissions } from "./permissions.ts";
import { refusal } from "../contract/refusal.ts";
import type { RawToolResult } from "../contract/result.ts";

/** Runs tool calls in the permission-scoped workers. */
export interface Sandbox {
  /** Runs `tool` with already-validated `args`; resolves with its raw result (never rejects). */
  run(tool: string, args: unknown): Promise<RawToolResult>;
  /**
   * Resolves once the supervisor's modules are loaded (or it failed to
   * start). Deno checks that loading against the main thread's read grant,
   * so the main thread must not drop read before this resolves.
   */
  readonly started: Promise<void>;
  /** Resolves when every tool worker has started and answered a ping (calls may come earlier: they wait). */
  readonly ready: Promise<void>;
  /** How many tool workers were terminated at their budget or crashed so far. */
  readonly replacedWorkers: number;
  /** Stops every worker. Pending calls answer `internal_error`. */
  close(): void;
}

/** Options for {@linkcode startSandbox}. */
export interface SandboxOptions {
  /**
   * The tool worker module: the program's (`src/tool_worker.ts`, which hands
   * the tool table to the worker loop), or a test's substitute.
   */
  toolWorkerUrl: URL;
}

const SUPERVISOR = new URL("./supervisor.ts", import.meta.url);
/** The program's source tree (`src/`): the tool worker's import graph lives here. */
const PROGRAM_SOURCE = new URL("../", import.meta.url);

/** Starts the supervisor (and through it the first tool worker). */
export function startSandbox(settings: SandboxSettings, options: SandboxOptions): Sandbox {
  const toolWorkerUrl = options.toolWorkerUrl;
  const supervisor = new Worker(SUPERVISOR, {
    type: "module",
    name: "devserver-supervisor",
    deno: {
      permissions: supervisorPermissions(settings.root, [
        fromFileUrl(PROGRAM_SOURCE),
        fromFileUrl(new URL("./", toolWorkerUrl)),
      ]),
    },
  });
  const pending = new Map<number, (result: RawToolResult) => void>();
  let nextId = 1;
  let replaced = 0;
  let closed = false;
  const ready = Promise.withResolvers<void>();
  const started = Promise.withResolvers<void>();

  const fail = (message: string) => {
    for (const [id, resolve] of pending) {
      pending.delete(id);
      resolve(refusal("internal_error", message));
    }
  };
  supervisor.onmessage = (
    event: MessageEvent<ResultMessage | EventMessage | ReadyMessage | StartedMessage>,
  ) => {
    const message = event.data;
    if (message.type === "started") {
      started.resolve();
      return;
    }
    if (message.type === "ready") {
      ready.resolve();
      return;
    }
    if (message.type === "event") {
      replaced++;
      return;
    }
    const resolve = pending.get(message.id);
    pending.delete(message.id);
    resolve?.(message.result);
  };
  supervisor.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    console.error(`devserver: sandbox supervisor failed: ${event.message}`);
    closed = true;
    started.resolve();
    fail("The sandbox stopped unexpectedly.");
  };
  supervisor.postMessage(
    { type: "init", settings, toolWorkerUrl: toolWorkerUrl.href } satisfies InitMessage,
  );

  return {
    started: started.promise,
    ready: ready.promise,
    run(tool, args) {
      if (closed) {
        return Promise.resolve(refusal("internal_error", "The sandbox is not running."));
      }
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        supervisor.postMessage({ type: "job", id, tool, args });
      });
    },
    get replacedWorkers() {
      return replaced;
    },
    close() {
      if (closed) return;
      closed = true;
      supervisor.terminate();
      fail("The sandbox was closed.");
    },
  };
}
