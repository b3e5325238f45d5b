/**
 * Where the main thread gets its tool workers. The first pool is created
 * by the main thread itself, with the tool-worker grant, while it still
 * holds read (Deno checks a worker's module loading against its creator's
 * read grant); such a worker answers its first message in milliseconds.
 * Replacements, needed after the main thread has dropped its grants, are
 * created by the supervisor worker, which keeps the grant for that alone
 * and hands the main thread a `MessagePort` to each one (verified on Deno
 * 2.9.6: ports and shared memory pass between workers). Either way the
 * sandbox sees the same {@linkcode ToolWorker}.
 *
 * @module
 */

import { fromFileUrl } from "../paths.ts";
import type {
  SupervisorInitMessage,
  SupervisorToMain,
  ToSupervisor,
  ToWorker,
  WorkerToMain,
} from "./messages.ts";
import { supervisorPermissions, toolWorkerPermissions } from "./permissions.ts";

/** What a tool worker's owner is told. */
export interface ToolWorkerEvents {
  /** A message from the worker. */
  message(message: WorkerToMain): void;
  /** The worker crashed (or could not be created); it is gone. */
  failed(): void;
}

/** One tool worker as the main thread sees it, wherever it was created. */
export interface ToolWorker {
  /** Posts a message to the worker (queued until a replacement's port arrives), transferring `transfer`. */
  post(message: ToWorker, transfer?: Transferable[]): void;
  /** Terminates the worker (a thread busy in JavaScript may spin on: Deno 2.9.6). */
  terminate(): void;
}

const SUPERVISOR = new URL("./supervisor.ts", import.meta.url);
/** The program's source tree (`src/`): the tool worker's import graph lives here. */
const PROGRAM_SOURCE = new URL("../", import.meta.url);

/** Creates tool workers: directly while the main thread may, through the supervisor after. */
export class ToolWorkerFactory {
  readonly #root: string;
  readonly #url: URL;
  readonly #supervisor: Worker;
  readonly #replacements = new Map<
    number,
    { events: ToolWorkerEvents; port?: MessagePort; queued: [ToWorker, Transferable[]][] }
  >();
  #nextReplacement = 1;
  #supervisorAlive = true;
  readonly #started = Promise.withResolvers<void>();

  /**
   * Starts the supervisor. Call while the main thread still holds read;
   * {@linkcode started} says when its modules have loaded.
   */
  constructor(root: string, toolWorkerUrl: URL) {
    this.#root = root;
    this.#url = toolWorkerUrl;
    this.#supervisor = new Worker(SUPERVISOR, {
      type: "module",
      name: "devserver-supervisor",
      deno: {
        permissions: supervisorPermissions(root, [
          fromFileUrl(PROGRAM_SOURCE),
          fromFileUrl(new URL("./", toolWorkerUrl)),
        ]),
      },
    });
    this.#supervisor.onmessage = (event: MessageEvent<SupervisorToMain>) =>
      this.#fromSupervisor(event.data);
    this.#supervisor.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      console.error(`devserver: sandbox supervisor failed: ${event.message}`);
      this.#supervisorLost();
    };
    this.#send(
      { type: "init", root, toolWorkerUrl: toolWorkerUrl.href } satisfies SupervisorInitMessage,
    );
  }

  /** Resolves once the supervisor's modules have loaded (or it failed to start). */
  get started(): Promise<void> {
    return this.#started.promise;
  }

  /** Whether replacements can still be created. */
  get canReplace(): boolean {
    return this.#supervisorAlive;
  }

  /**
   * A tool worker created by the calling (main) thread. Only before the
   * main thread drops read: its modules load under that grant.
   */
  direct(events: ToolWorkerEvents): ToolWorker {
    const worker = new Worker(this.#url, {
      type: "module",
      name: "devserver-tool-worker",
      deno: { permissions: toolWorkerPermissions(this.#root) },
    });
    worker.onmessage = (event: MessageEvent<WorkerToMain>) => events.message(event.data);
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      worker.terminate();
      events.failed();
    };
    return {
      post: (message, transfer = []) => worker.postMessage(message, transfer),
      terminate: () => worker.terminate(),
    };
  }

  /**
   * A tool worker created by the supervisor, reached over a port. Messages
   * posted before the port arrives are queued. `undefined` when the
   * supervisor is gone.
   */
  replacement(events: ToolWorkerEvents): ToolWorker | undefined {
    if (!this.#supervisorAlive) return undefined;
    const id = this.#nextReplacement++;
    const entry: {
      events: ToolWorkerEvents;
      port?: MessagePort;
      queued: [ToWorker, Transferable[]][];
    } = {
      events,
      queued: [],
    };
    this.#replacements.set(id, entry);
    this.#send({ type: "spawn", worker: id });
    return {
      post: (message, transfer = []) =>
        entry.port
          ? entry.port.postMessage(message, transfer)
          : entry.queued.push([message, transfer]),
      terminate: () => {
        if (!this.#replacements.delete(id)) return;
        entry.port?.close();
        this.#send({ type: "terminate", worker: id });
      },
    };
  }

  /** Stops the supervisor (and with it every replacement). */
  close(): void {
    this.#supervisorAlive = false;
    for (const entry of this.#replacements.values()) entry.port?.close();
    this.#replacements.clear();
    this.#supervisor.terminate();
    this.#started.resolve();
  }

  #send(message: ToSupervisor): void {
    if (this.#supervisorAlive) this.#supervisor.postMessage(message);
  }

  #fromSupervisor(message: SupervisorToMain): void {
    if (message.type === "started") {
      this.#started.resolve();
      return;
    }
    const entry = this.#replacements.get(message.worker);
    if (message.type === "spawned") {
      if (!entry) {
        message.port.close(); // terminated before it arrived
        return;
      }
      entry.port = message.port;
      entry.port.onmessage = (event: MessageEvent<WorkerToMain>) =>
        entry.events.message(event.data);
      for (const [queued, transfer] of entry.queued.splice(0)) {
        entry.port.postMessage(queued, transfer);
      }
      return;
    }
    if (!entry) return;
    this.#replacements.delete(message.worker);
    entry.port?.close();
    entry.events.failed();
  }

  #supervisorLost(): void {
    this.#supervisorAlive = false;
    this.#started.resolve();
    const lost = [...this.#replacements.values()];
    this.#replacements.clear();
    for (const entry of lost) {
      entry.port?.close();
      entry.events.failed();
    }
  }
}
