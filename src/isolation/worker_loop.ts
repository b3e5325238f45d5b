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
}

/** Installs the message loop of a tool worker in the current worker. */
export function serveToolJobs(handlers: WorkerHandlers): void {
  let flag: StopFlag | undefined;
  let post = (message: WorkerToMain) => self.postMessage(message);
  const onMessage = async (event: MessageEvent<ToWorker>) => {
    const message = event.data;
    switch (message.type) {
      case "connect": {
        const port = message.port;
        post = (reply) => port.postMessage(reply);
        port.onmessage = onMessage;
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
        };
        const result = await handlers.job(message, hooks);
        post({ type: "result", id, result });
        return;
      }
    }
  };
  self.onmessage = onMessage;
}

/** @deprecated The old name of {@linkcode serveToolJobs} (the loop no longer answers a supervisor). */
export const answerSupervisor: typeof serveToolJobs = serveToolJobs;
