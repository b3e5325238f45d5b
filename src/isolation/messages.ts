/**
 * The messages between the main thread, the tool workers and the
 * supervisor worker. Plain data only: everything here is structured-cloned
 * (a `SharedArrayBuffer` stays shared, a `MessagePort` is transferred).
 *
 * Two conversations:
 *
 * - main ⇄ tool worker (directly, or through a `MessagePort` when the
 *   supervisor created the worker): `init`, `ping`/`pong`, `job`,
 *   `progress`, `result`; and for a call that asks for a second thread
 *   (ADR-064): `assist` (the running worker asks; main lends an idle one,
 *   handing it the asker's port and stop flag), `assist_done` (the lent
 *   worker is free again), `assist_lost` (it crashed);
 * - lent worker → asking worker, over the port the asker made: one
 *   {@linkcode AssistAnswer} (main posts `declined` there when no worker
 *   is idle);
 * - main ⇄ supervisor: `spawn`/`spawned`, `terminate`, `crashed`, `started`.
 *
 * @module
 */

import type { RawToolResult } from "../contract/result.ts";
import type { ToolSettings } from "../contract/settings.ts";

/** The tool settings every worker gets, plus how the pool runs. */
export interface SandboxSettings extends ToolSettings {
  /** Time budget of one call in milliseconds; at it the call is asked to stop. */
  readonly timeoutMs: number;
  /**
   * How long a call asked to stop (budget or cancellation) may take to
   * return what it has before its worker is abandoned.
   */
  readonly stopGraceMs: number;
  /** How many tool workers may run at once. */
  readonly poolSize: number;
  /**
   * How many of the pool the main thread creates itself at start (at least
   * one): they answer within milliseconds, but each one's modules load
   * before the main thread may drop read, so each adds to the time to the
   * first answer. The rest are created by the supervisor once the main
   * thread is serving (they answer after about a second).
   */
  readonly directWorkers: number;
  /** How many calls may wait for a worker; one more is refused `busy` at once. */
  readonly queueLimit: number;
}

/**
 * Main → tool worker: set up (once, before any job). `stopBuffer` is the
 * worker's own stop flag (`StopFlag` over shared memory): the main thread
 * raises it, the worker's tools read it.
 */
export interface InitMessage {
  readonly type: "init";
  readonly settings: ToolSettings;
  readonly stopBuffer: SharedArrayBuffer;
}

/** Main → tool worker: run one tool call. */
export interface JobMessage {
  readonly type: "job";
  readonly id: number;
  readonly tool: string;
  readonly args: unknown;
  /**
   * When present, the worker answers with the result already shaped for the
   * client (the content pipeline and the output-schema check run in the
   * worker, ADR-074) instead of the raw result.
   */
  readonly shape?: ShapeOptions;
}

/** How a worker shapes a result (the pipeline's options, fixed at start). */
export interface ShapeOptions {
  readonly redactSecrets: boolean;
}

/**
 * A result the worker shaped: what the client receives (a `CallToolResult`:
 * fenced with its own nonce, redacted, assessed, schema-checked), as plain data.
 */
export interface ShapedResult {
  readonly kind: "shaped";
  readonly result: { readonly [key: string]: unknown };
}

/**
 * Main → an idle tool worker: help job `stopId` of another worker (ADR-064).
 * The helper runs `tool`'s assist entry with `args` and `shared` (the
 * asker's shared memory), reads the asker's stop flag (`stopBuffer`, job
 * `stopId`) as its own, and posts one {@linkcode AssistAnswer} on `port`
 * (the asker holds the other end). `recall` is one `Int32` the main thread
 * sets to 1 to win the worker back for a waiting call; the helper then
 * hands its remaining share back to the asker at the next directory.
 */
export interface AssistJobMessage {
  readonly type: "assist";
  /** The helper's own id for this work (its `assist_done` names it). */
  readonly id: number;
  readonly stopId: number;
  readonly stopBuffer: SharedArrayBuffer;
  readonly recall: SharedArrayBuffer;
  readonly tool: string;
  readonly args: unknown;
  readonly shared: SharedArrayBuffer;
  readonly port: MessagePort;
}

/** Main → the asking worker: the worker lent to job `id` crashed; its share is lost. */
export interface AssistLostMessage {
  readonly type: "assist_lost";
  readonly id: number;
}

/** Helper → asker (over the asker's port), or main → asker when no worker was idle. */
export type AssistAnswer =
  | { readonly type: "answer"; readonly answer: unknown }
  | { readonly type: "declined" };

/**
 * Main → tool worker: answer with a pong. The first pong says the worker's
 * modules have loaded (so the main thread may drop its read grant) and that
 * it can take a job: a worker created from inside another worker answers
 * its first message only after about a second on Deno 2.9, and the budget
 * clock never counts that.
 */
export interface PingMessage {
  readonly type: "ping";
}

/**
 * Supervisor → a tool worker it created: from now on talk over `port`
 * (whose other end the main thread holds).
 */
export interface ConnectMessage {
  readonly type: "connect";
  readonly port: MessagePort;
}

/** Tool worker → main: the answer to a ping. */
export interface PongMessage {
  readonly type: "pong";
}

/** Tool worker → main: how far job `id` has got (already rate-limited by the worker). */
export interface ProgressMessage {
  readonly type: "progress";
  readonly id: number;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** Tool worker → main: the answer to one job (shaped when the job asked for it). */
export interface ResultMessage {
  readonly type: "result";
  readonly id: number;
  readonly result: RawToolResult | ShapedResult;
}

/**
 * Tool worker → main: job `id` asks for a second worker to run `tool`'s
 * assist entry with `args` and `shared`; `port` goes to the helper (or
 * hears `declined`). Never queued: no idle worker, no help.
 */
export interface AssistRequestMessage {
  readonly type: "assist";
  readonly id: number;
  readonly tool: string;
  readonly args: unknown;
  readonly shared: SharedArrayBuffer;
  readonly port: MessagePort;
}

/** Lent tool worker → main: the help `id` is over; the worker is free. */
export interface AssistDoneMessage {
  readonly type: "assist_done";
  readonly id: number;
}

/** What the main thread hears from a tool worker. */
export type WorkerToMain =
  | PongMessage
  | ProgressMessage
  | ResultMessage
  | AssistRequestMessage
  | AssistDoneMessage;

/** What a tool worker hears (from the main thread, or from its supervisor once). */
export type ToWorker =
  | InitMessage
  | PingMessage
  | JobMessage
  | ConnectMessage
  | AssistJobMessage
  | AssistLostMessage;

/** Main → supervisor: set up (once): where tool workers live and what they may read. */
export interface SupervisorInitMessage {
  readonly type: "init";
  readonly root: string;
  /** The module tool workers run (a test can substitute its own). */
  readonly toolWorkerUrl: string;
}

/** Main → supervisor: create a replacement tool worker, known as `worker` from now on. */
export interface SpawnMessage {
  readonly type: "spawn";
  readonly worker: number;
}

/** Main → supervisor: terminate replacement `worker` (abandoned, or no longer wanted). */
export interface TerminateMessage {
  readonly type: "terminate";
  readonly worker: number;
}

/** Supervisor → main: replacement `worker` exists; talk to it over `port`. */
export interface SpawnedMessage {
  readonly type: "spawned";
  readonly worker: number;
  readonly port: MessagePort;
}

/** Supervisor → main: replacement `worker` crashed (its error event reaches only its creator). */
export interface CrashedMessage {
  readonly type: "crashed";
  readonly worker: number;
}

/**
 * Supervisor → main: the supervisor's modules are loaded. Deno checks a
 * worker's module loading against the creating thread's read grant, so the
 * main thread must keep read until this arrives.
 */
export interface StartedMessage {
  readonly type: "started";
}

/** What the main thread hears from the supervisor. */
export type SupervisorToMain = SpawnedMessage | CrashedMessage | StartedMessage;

/** What the supervisor hears from the main thread. */
export type ToSupervisor = SupervisorInitMessage | SpawnMessage | TerminateMessage;
