/**
 * The supervisor worker: holds the sandbox's grants so the main thread can
 * drop its own, starts tool workers with the tool-worker grant, hands each
 * job to an idle worker, and enforces the time budget by terminating a
 * worker that overruns and starting a fresh one. It runs no tool code.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import type {
  EventMessage,
  InitMessage,
  JobMessage,
  PongMessage,
  ReadyMessage,
  ResultMessage,
  SandboxSettings,
  StartedMessage,
} from "./messages.ts";
import { toolWorkerPermissions } from "./permissions.ts";
import { refusal } from "../contract/refusal.ts";

interface Slot {
  worker: Worker;
  /** False until the worker has answered its warm-up ping. */
  warm: boolean;
  job?: { id: number; timer: ReturnType<typeof setTimeout> };
}

let settings: SandboxSettings | undefined;
let workerUrl = "";
const slots: Slot[] = [];
const queue: JobMessage[] = [];

function spawn(): Slot {
  const worker = new Worker(workerUrl, {
    type: "module",
    name: "devserver-tool-worker",
    deno: { permissions: toolWorkerPermissions(settings!.root) },
  });
  const slot: Slot = { worker, warm: false };
  worker.onmessage = (event: MessageEvent<ResultMessage | PongMessage>) => {
    if (event.data.type === "pong") {
      slot.warm = true;
      announceReady();
      pump();
      return;
    }
    if (!slot.job || event.data.id !== slot.job.id) return;
    clearTimeout(slot.job.timer);
    slot.job = undefined;
    self.postMessage(event.data);
    pump();
  };
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    const id = slot.job?.id;
    replace(slot);
    if (id !== undefined) {
      answer(id, "internal_error", "The tool worker crashed during this call.");
      self.postMessage({ type: "event", event: "worker_crashed", id } satisfies EventMessage);
    }
    pump();
  };
  worker.postMessage({ type: "init", settings: settings!, toolWorkerUrl: workerUrl });
  worker.postMessage({ type: "ping" });
  slots.push(slot);
  return slot;
}

let announced = false;
function announceReady(): void {
  if (announced || slots.filter((s) => s.warm).length < settings!.poolSize) return;
  announced = true;
  self.postMessage({ type: "ready" } satisfies ReadyMessage);
}

/** Keeps the pool full: a terminated or crashed worker is replaced at once, warming in the background. */
function refill(): void {
  while (slots.length < settings!.poolSize) spawn();
}

function replace(slot: Slot): void {
  if (slot.job) clearTimeout(slot.job.timer);
  slot.worker.terminate();
  slots.splice(slots.indexOf(slot), 1);
}

function answer(
  id: number,
  error: "timed_out" | "internal_error" | "busy",
  message: string,
): void {
  self.postMessage({ type: "result", id, result: refusal(error, message) } satisfies ResultMessage);
}

function pump(): void {
  refill();
  while (queue.length > 0) {
    const slot = slots.find((s) => s.warm && s.job === undefined);
    if (!slot) return;
    const job = queue.shift()!;
    const target = slot;
    const timer = setTimeout(() => {
      replace(target);
      answer(
        job.id,
        "timed_out",
        `The call exceeded its ${settings!.timeoutMs} ms budget and was stopped.`,
      );
      self.postMessage(
        { type: "event", event: "worker_terminated", id: job.id } satisfies EventMessage,
      );
      pump();
    }, settings!.timeoutMs);
    target.job = { id: job.id, timer };
    target.worker.postMessage(job);
  }
}

self.onmessage = (event: MessageEvent<InitMessage | JobMessage>) => {
  const message = event.data;
  if (message.type === "init") {
    settings = message.settings;
    workerUrl = message.toolWorkerUrl;
    refill(); // start and warm the whole pool now, so no call pays for start-up
    return;
  }
  if (queue.length >= settings!.queueLimit) {
    answer(
      message.id,
      "busy",
      `${settings!.queueLimit} calls are already waiting for a tool worker.`,
    );
    return;
  }
  queue.push(message);
  pump();
};

// Our modules are loaded: the main thread may now drop its read grant.
self.postMessage({ type: "started" } satisfies StartedMessage);
