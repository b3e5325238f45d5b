/**
 * The tool-worker side of the supervisor's messages: answer the warm-up
 * ping, take the settings once, and post one result per job. The tool
 * worker is this loop around `tool_runtime.ts`; the security suite's
 * substitute workers use the same loop around their own jobs.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import type {
  InitMessage,
  JobMessage,
  PingMessage,
  PongMessage,
  ResultMessage,
  SandboxSettings,
} from "./messages.ts";
import type { RawToolResult } from "../contract/result.ts";

/** What a worker does with the supervisor's messages. */
export interface WorkerHandlers {
  /** Called once, with the sandbox settings, before any job. */
  init(settings: SandboxSettings): void;
  /** Runs one job; its result is posted back under the job's id. */
  job(job: JobMessage): Promise<RawToolResult>;
}

/** Installs the message loop of a tool worker in the current worker. */
export function answerSupervisor(handlers: WorkerHandlers): void {
  self.onmessage = async (event: MessageEvent<InitMessage | PingMessage | JobMessage>) => {
    const message = event.data;
    if (message.type === "ping") {
      self.postMessage({ type: "pong" } satisfies PongMessage);
      return;
    }
    if (message.type === "init") {
      handlers.init(message.settings);
      return;
    }
    const result = await handlers.job(message);
    self.postMessage({ type: "result", id: message.id, result } satisfies ResultMessage);
  };
}
