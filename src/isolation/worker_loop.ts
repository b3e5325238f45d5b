/**
 * The tool-worker side of the sandbox's messages: answer pings, take the
 * settings and the stop flag once, run one job at a time with per-job stop
 * and progress hooks, and post one result per job. A worker the supervisor
 * created is first handed a `MessagePort` to the main thread and from then
 * on talks only over it. The program's tool worker is this loop around
 * `tools/runtime.ts`; the security suite's substitute workers use the same
 * loop around their own jobs.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import type {
  AssistAnswer,
  AssistJobMessage,
  JobMessage,
  SandboxSettings,
  ShapedResult,
  ToWorker,
  WorkerToMain,
} from "./messages.ts";
import type { RawToolResult } from "../contract/result.ts";
import type { ToolSettings } from "../contract/settings.ts";
import { type ProgressReporter, StopFlag, type StopSignal } from "../contract/stop.ts";
import { ProgressGate, WORKER_PROGRESS_INTERVAL_MS } from "./progress.ts";

/** What a job is given besides its message: its own stop signal and progress reporter. */
export interface JobHooks {
  /** Raised by the main thread at the budget or on cancellation of this job. */
  readonly stop: StopSignal;
  /** Posts progress of this job to the main thread (rate-limited, strictly increasing). */
  readonly progress: ProgressReporter;
  /**
   * Asks the pool for a second worker to run `tool`'s assist entry with
   * `args` and `shared` (ADR-064). Resolves with the helper's answer;
   * `undefined` when no worker was idle (declined at once) or the helper
   * crashed. Only a job has it, not a helper.
   */
  readonly assist?: (tool: string, args: unknown, shared: SharedArrayBuffer) => Promise<unknown>;
  /** A helper's: true once the main thread wants the worker back for a waiting call. */
  readonly recalled?: () => boolean;
}

/** What a worker does with the sandbox's messages. */
export interface WorkerHandlers {
  /** Called once, with the tool settings, before any job. */
  init(settings: ToolSettings | SandboxSettings): void;
  /**
   * Runs one job; its result is posted back under the job's id (shaped, when
   * the job carries `shape` and the handler shapes).
   */
  job(job: JobMessage, hooks: JobHooks): Promise<RawToolResult | ShapedResult>;
  /** Helps another worker's job (ADR-064); the answer goes to the asker. Absent: every request is answered `undefined`. */
  assist?(job: AssistJobMessage, hooks: JobHooks): Promise<unknown>;
}

/** Installs the message loop of a tool worker in the current worker. */
export function serveToolJobs(handlers: WorkerHandlers): void {
  let flag: StopFlag | undefined;
  let post = (message: WorkerToMain, transfer: Transferable[] = []) =>
    self.postMessage(message, transfer);
  /** Pending help requests by job id: how to end them when the helper is lost. */
  const asking = new Map<number, Set<(answer: unknown) => void>>();
  const onMessage = async (event: MessageEvent<ToWorker>) => {
    const message = event.data;
    switch (message.type) {
      case "connect": {
        const port = message.port;
        post = (reply, transfer = []) => port.postMessage(reply, transfer);
        port.onmessage = onMessage;
        return;
      }
      case "assist_lost":
        for (const end of asking.get(message.id) ?? []) end(undefined);
        return;
      case "assist": {
        const primary = new StopFlag(message.stopBuffer);
        const recall = new Int32Array(message.recall);
        const hooks: JobHooks = {
          stop: { reason: () => primary.reasonFor(message.stopId) },
          progress: () => {},
          recalled: () => Atomics.load(recall, 0) !== 0,
        };
        let answer: unknown;
        try {
          answer = await handlers.assist?.(message, hooks);
        } catch (error) {
          console.error("devserver: a helper failed:", error);
        }
        try {
          message.port.postMessage({ type: "answer", answer } satisfies AssistAnswer);
        } finally {
          message.port.close();
          post({ type: "assist_done", id: message.id });
        }
        return;
      }
      case "ping":
        post({ type: "pong" });
        return;
      case "init":
        flag = new StopFlag(message.stopBuffer);
        handlers.init(message.settings);
        return;
      case "job": {
        const id = message.id;
        const gate = new ProgressGate(WORKER_PROGRESS_INTERVAL_MS);
        const hooks: JobHooks = {
          stop: { reason: () => flag?.reasonFor(id) },
          progress: (progress, total, text) => {
            if (!gate.admit(progress)) return;
            post({ type: "progress", id, progress, total, message: text });
          },
          assist: (tool, args, shared) =>
            new Promise<unknown>((resolve) => {
              const channel = new MessageChannel();
              const ends = asking.get(id) ?? new Set<(answer: unknown) => void>();
              asking.set(id, ends);
              const end = (answer: unknown) => {
                ends.delete(end);
                if (ends.size === 0) asking.delete(id);
                channel.port1.close();
                resolve(answer);
              };
              ends.add(end);
              channel.port1.onmessage = (event: MessageEvent<AssistAnswer>) =>
                end(event.data.type === "answer" ? event.data.answer : undefined);
              post({ type: "assist", id, tool, args, shared, port: channel.port2 }, [
                channel.port2,
              ]);
            }),
        };
        const result = await handlers.job(message, hooks);
        asking.delete(id);
        post({ type: "result", id, result });
        return;
      }
    }
  };
  self.onmessage = onMessage;
}

/** @deprecated The old name of {@linkcode serveToolJobs} (the loop no longer answers a supervisor). */
export const answerSupervisor: typeof serveToolJobs = serveToolJobs;
