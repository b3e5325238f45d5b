/**
 * The supervisor worker: it keeps the grant needed to start a tool worker
 * after the main thread has dropped its own, and uses it only for that. The
 * main thread creates the first pool itself (a worker created from a worker
 * answers its first message only after about a second on Deno 2.9); when a
 * worker crashes or is abandoned, the main thread asks the supervisor for a
 * replacement. The supervisor creates it with the tool-worker grant, hands
 * it one end of a `MessageChannel` and the main thread the other, so jobs
 * never pass through here. A replacement's error events reach only its
 * creator, so the supervisor relays them (`crashed`), and only it can
 * terminate a replacement (`terminate`). It runs no tool code and reads
 * nothing itself.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import type { ConnectMessage, SupervisorToMain, ToSupervisor } from "./messages.ts";
import { toolWorkerPermissions } from "./permissions.ts";

let root = "";
let workerUrl = "";
const workers = new Map<number, Worker>();

function post(message: SupervisorToMain, transfer: Transferable[] = []): void {
  self.postMessage(message, transfer);
}

function spawn(id: number): void {
  const worker = new Worker(workerUrl, {
    type: "module",
    name: "devserver-tool-worker",
    deno: { permissions: toolWorkerPermissions(root) },
  });
  workers.set(id, worker);
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    terminate(id);
    post({ type: "crashed", worker: id });
  };
  const channel = new MessageChannel();
  worker.postMessage({ type: "connect", port: channel.port2 } satisfies ConnectMessage, [
    channel.port2,
  ]);
  post({ type: "spawned", worker: id, port: channel.port1 }, [channel.port1]);
}

function terminate(id: number): void {
  workers.get(id)?.terminate();
  workers.delete(id);
}

self.onmessage = (event: MessageEvent<ToSupervisor>) => {
  const message = event.data;
  switch (message.type) {
    case "init":
      root = message.root;
      workerUrl = message.toolWorkerUrl;
      return;
    case "spawn":
      spawn(message.worker);
      return;
    case "terminate":
      terminate(message.worker);
      return;
  }
};

// Our modules are loaded: the main thread may now drop its read grant.
post({ type: "started" });
