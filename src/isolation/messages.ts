/**
 * The messages between the main thread, the supervisor worker and the tool
 * workers. Plain data only: everything here is structured-cloned.
 *
 * @module
 */

import type { RawToolResult } from "../contract/result.ts";
import type { ToolSettings } from "../contract/settings.ts";

/** The tool settings every worker gets, plus how the pool runs; sent once. */
export interface SandboxSettings extends ToolSettings {
  /** Hard budget of one call in milliseconds. */
  readonly timeoutMs: number;
  /** How many tool workers may run at once. */
  readonly poolSize: number;
  /** How many calls may wait for a worker; one more is refused `busy` at once. */
  readonly queueLimit: number;
}

/** Main → supervisor: set up (once). */
export interface InitMessage {
  readonly type: "init";
  readonly settings: SandboxSettings;
  /** The module tool workers run (a test can substitute its own). */
  readonly toolWorkerUrl: string;
}

/** Main → supervisor → tool worker: run one tool call. */
export interface JobMessage {
  readonly type: "job";
  readonly id: number;
  readonly tool: string;
  readonly args: unknown;
}

/**
 * Supervisor → tool worker: answer with a pong. A freshly started nested
 * worker answers its first messages only after a pause (about half a second
 * on Deno 2.9), so every tool worker is warmed with one ping before it is
 * given a job, and the budget clock never counts the warm-up.
 */
export interface PingMessage {
  readonly type: "ping";
}

/** Tool worker → supervisor: the answer to a ping. */
export interface PongMessage {
  readonly type: "pong";
}

/** Tool worker → supervisor → main: the answer to one job. */
export interface ResultMessage {
  readonly type: "result";
  readonly id: number;
  readonly result: RawToolResult;
}

/** Supervisor → main: a tool worker was terminated (budget) or crashed, and replaced. */
export interface EventMessage {
  readonly type: "event";
  readonly event: "worker_terminated" | "worker_crashed";
  readonly id: number;
}

/**
 * Supervisor → main: the supervisor's modules are loaded. Deno checks a
 * worker's module loading against the creating thread's read grant, so the
 * main thread must keep read until this arrives.
 */
export interface StartedMessage {
  readonly type: "started";
}

/** Supervisor → main: every tool worker of the pool has started and answered a ping. */
export interface ReadyMessage {
  readonly type: "ready";
}
