/**
 * The main thread's handle on the sandbox: it creates the pool of tool
 * workers (directly, while it still holds read) and the supervisor that
 * replaces them, queues calls (at most `queueLimit` waiting, then `busy`),
 * hands each to an idle warm worker, and stops calls cooperatively:
 *
 * - at the time budget, or when the client cancels, it raises the call's
 *   stop flag (`StopFlag`, shared memory the worker's tools read between
 *   units of work) and gives the call `stopGraceMs` to return what it has;
 *   whatever the worker answers within the grace is the call's result (a
 *   partial success with `timed_out: true` included);
 * - a worker that has not answered by the end of the grace is abandoned:
 *   the call answers `timed_out` (or `cancelled`), the worker is terminated
 *   (on Deno 2.9.6 a thread busy in JavaScript spins on regardless), never
 *   given another job, and replaced through the supervisor.
 *
 * A running call may ask for a second worker (ADR-064, `assist`): it gets
 * one only when a warm worker is idle and no call is waiting, at once or
 * never (the request is not queued). The lent worker gets the asker's
 * stop flag, so the budget and cancellation stop both; when a call arrives
 * and finds no idle worker, every lent worker is recalled (a shared word it
 * checks at each directory) and serves the call as soon as it has handed
 * its share back. A lent worker is abandoned with its asker.
 *
 * Progress reports of a running call go to its `onProgress`, rate-limited
 * and strictly increasing; none after its result. After `started` resolves
 * the main thread may drop its own permissions: the workers keep theirs.
 *
 * @module
 */

import type {
  AssistRequestMessage,
  JobMessage,
  SandboxSettings,
  ShapedResult,
  ShapeOptions,
  WorkerToMain,
} from "./messages.ts";
import { cleanProgress, ProgressGate, type ProgressUpdate } from "./progress.ts";
import { type ToolWorker, ToolWorkerFactory } from "./tool_workers.ts";
import { refusal } from "../contract/refusal.ts";
import type { RawToolResult } from "../contract/result.ts";
import { newStopBuffer, StopFlag, type StopReason } from "../contract/stop.ts";
import { log } from "../log.ts";

/** Per-call options of {@linkcode Sandbox.run}. */
export interface RunOptions {
  /** Aborted when the client cancels the call: queued, it is dropped; running, asked to stop. */
  readonly signal?: AbortSignal;
  /** Receives the call's progress (rate-limited, strictly increasing, never after the result). */
  readonly onProgress?: (update: ProgressUpdate) => void;
}

/** {@linkcode RunOptions} asking the worker to shape its result for the client (ADR-074). */
export interface ShapedRunOptions extends RunOptions {
  readonly shape: ShapeOptions;
}

/** Runs tool calls in the permission-scoped workers. */
export interface Sandbox {
  /** Runs `tool` with already-validated `args`; resolves with its raw result (never rejects). */
  run(tool: string, args: unknown, options?: RunOptions): Promise<RawToolResult>;
  /**
   * The same, but what the worker produced comes back shaped (`kind: "shaped"`, when the
   * worker shapes); what the sandbox answers itself (busy, timed out, cancelled, a crash)
   * stays raw.
   */
  run(
    tool: string,
    args: unknown,
    options: ShapedRunOptions,
  ): Promise<RawToolResult | ShapedResult>;
  /**
   * Resolves once the modules of the supervisor and of the workers the main
   * thread created itself have loaded (or failed to). Deno checks that loading against
   * the main thread's read grant, so the main thread must not drop read
   * before this resolves.
   */
  readonly started: Promise<void>;
  /** Resolves when the whole pool has answered a ping (calls may come earlier: they wait). */
  readonly ready: Promise<void>;
  /** How many tool workers were abandoned (budget, cancellation) or crashed so far. */
  readonly replacedWorkers: number;
  /** How many times a worker was lent to another's call as its second thread (ADR-064). */
  readonly lentWorkers: number;
  /** How many lent workers were recalled for a waiting call before they finished. */
  readonly recalledWorkers: number;
  /**
   * Stops every worker: a running call's stop flag is raised (`cancelled`), then its worker is
   * terminated. Pending calls answer `internal_error`.
   */
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

interface Call {
  readonly job: JobMessage;
  readonly options: RunOptions;
  readonly gate: ProgressGate;
  readonly resolve: (result: RawToolResult | ShapedResult) => void;
  settled: boolean;
  onAbort?: () => void;
}

interface Slot {
  readonly worker: ToolWorker;
  readonly flag: StopFlag;
  /** The shared memory behind `flag` (a helper lent to this slot's call reads it too). */
  readonly buffer: SharedArrayBuffer;
  /** Set while this worker helps another slot's call (ADR-064): it takes no job. */
  lentTo?: Slot;
  /** The worker lent to this slot's running call, and the word that recalls it. */
  helper?: { readonly slot: Slot; readonly recall: Int32Array };
  /** Resolves at the first pong, or when the worker fails. */
  readonly loaded: PromiseWithResolvers<void>;
  /** False until the worker has answered its first ping. */
  warm: boolean;
  /** False once the worker crashed, was abandoned or closed: its messages are ignored. */
  live: boolean;
  call?: Call;
  /** Why the running call was asked to stop, once it was. */
  stopping?: StopReason;
  budget?: ReturnType<typeof setTimeout>;
  grace?: ReturnType<typeof setTimeout>;
}

/** Starts the first pool and the supervisor. */
export function startSandbox(settings: SandboxSettings, options: SandboxOptions): Sandbox {
  const factory = new ToolWorkerFactory(settings.root, options.toolWorkerUrl);
  const slots: Slot[] = [];
  const queue: Call[] = [];
  let nextId = 1;
  let replaced = 0;
  let lent = 0;
  let recalled = 0;
  let closed = false;

  const settle = (call: Call, result: RawToolResult | ShapedResult) => {
    if (call.settled) return;
    call.settled = true;
    if (call.onAbort) call.options.signal?.removeEventListener("abort", call.onAbort);
    call.resolve(result);
  };

  const stopMessage = (reason: StopReason) =>
    reason === "timed_out"
      ? `The call exceeded its ${settings.timeoutMs} ms budget and was stopped.`
      : "The client cancelled this call.";

  const clearTimers = (slot: Slot) => {
    clearTimeout(slot.budget);
    clearTimeout(slot.grace);
    slot.budget = slot.grace = undefined;
  };

  /** Ends a loan: `helper` no longer helps anyone. */
  const endLoan = (helper: Slot) => {
    const asker = helper.lentTo;
    helper.lentTo = undefined;
    if (asker?.helper?.slot === helper) asker.helper = undefined;
  };

  /** Takes `slot` out of the pool for good; returns the call it was running. */
  const retire = (slot: Slot): Call | undefined => {
    slot.live = false;
    clearTimers(slot);
    endLoan(slot);
    const index = slots.indexOf(slot);
    if (index >= 0) slots.splice(index, 1);
    const call = slot.call;
    slot.call = undefined;
    slot.loaded.resolve();
    return call;
  };

  /** Lends an idle warm worker to `slot`'s running call, or declines at once. */
  const lend = (slot: Slot, message: AssistRequestMessage) => {
    const call = slot.call;
    const helper = call && call.job.id === message.id && !slot.stopping && !slot.helper &&
        queue.length === 0
      ? slots.find((s) => s !== slot && s.live && s.warm && !s.call && !s.lentTo)
      : undefined;
    if (!helper) {
      message.port.postMessage({ type: "declined" });
      message.port.close();
      return;
    }
    const recall = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    helper.lentTo = slot;
    lent++;
    slot.helper = { slot: helper, recall: new Int32Array(recall) };
    helper.worker.post({
      type: "assist",
      id: nextId++,
      stopId: message.id,
      stopBuffer: slot.buffer,
      recall,
      tool: message.tool,
      args: message.args,
      shared: message.shared,
      port: message.port,
    }, [message.port]);
  };

  /** Asks every lent worker to hand its share back (a call is waiting for a worker). */
  const recallHelpers = () => {
    for (const s of slots) {
      if (s.helper && Atomics.exchange(s.helper.recall, 0, 1) === 0) recalled++;
    }
  };

  const onMessage = (slot: Slot, message: WorkerToMain) => {
    if (!slot.live) return;
    if (message.type === "assist") {
      lend(slot, message);
      return;
    }
    if (message.type === "assist_done") {
      if (slot.lentTo) {
        endLoan(slot);
        pump();
      }
      return;
    }
    if (message.type === "pong") {
      slot.warm = true;
      slot.loaded.resolve();
      checkReady();
      pump();
      return;
    }
    const call = slot.call;
    if (!call || message.id !== call.job.id) return;
    if (message.type === "progress") {
      if (call.settled || !call.options.onProgress || !call.gate.admit(message.progress)) return;
      call.options.onProgress(cleanProgress(message));
      return;
    }
    clearTimers(slot);
    slot.call = undefined;
    slot.stopping = undefined;
    settle(call, message.result);
    pump();
  };

  const onFailed = (slot: Slot) => {
    if (!slot.live) return;
    const asker = slot.lentTo;
    const call = retire(slot);
    if (asker?.call) asker.worker.post({ type: "assist_lost", id: asker.call.job.id });
    // A crashed asker's helper is no longer needed.
    if (slot.helper) Atomics.store(slot.helper.recall, 0, 1);
    slot.worker.terminate();
    replaced++;
    log("warn", "a tool worker crashed; it is being replaced");
    if (call) settle(call, refusal("internal_error", "The tool worker crashed during this call."));
    pump();
  };

  /** The end of the grace: the worker did not answer; the call answers for it. */
  const abandon = (slot: Slot) => {
    if (!slot.live) return;
    const reason = slot.stopping ?? "timed_out";
    const helper = slot.helper?.slot;
    const call = retire(slot);
    slot.worker.terminate();
    replaced++;
    if (helper?.live) {
      // It read the same stop flag and did not answer either: abandoned with its asker.
      retire(helper);
      helper.worker.terminate();
      replaced++;
    }
    log(
      "warn",
      `a tool worker did not stop within ${settings.stopGraceMs} ms of being asked ` +
        `(${reason}); it was abandoned and is being replaced`,
    );
    if (call) settle(call, refusal(reason, stopMessage(reason)));
    pump();
  };

  const askToStop = (slot: Slot, reason: StopReason) => {
    const call = slot.call;
    if (!slot.live || !call || slot.stopping) return;
    slot.stopping = reason;
    slot.flag.request(call.job.id, reason);
    clearTimeout(slot.budget);
    slot.grace = setTimeout(() => abandon(slot), settings.stopGraceMs);
  };

  const addSlot = (direct: boolean): boolean => {
    const buffer = newStopBuffer();
    const made: { slot?: Slot } = {};
    const events = {
      message: (message: WorkerToMain) => made.slot && onMessage(made.slot, message),
      failed: () => made.slot && onFailed(made.slot),
    };
    const worker = direct ? factory.direct(events) : factory.replacement(events);
    if (!worker) return false;
    const slot: Slot = made.slot = {
      worker,
      flag: new StopFlag(buffer),
      buffer,
      loaded: Promise.withResolvers<void>(),
      warm: false,
      live: true,
    };
    slots.push(slot);
    worker.post({ type: "init", settings, stopBuffer: buffer });
    worker.post({ type: "ping" });
    return true;
  };

  const begin = (slot: Slot, call: Call) => {
    slot.call = call;
    slot.stopping = undefined;
    slot.budget = setTimeout(() => askToStop(slot, "timed_out"), settings.timeoutMs);
    if (call.onAbort) call.options.signal?.removeEventListener("abort", call.onAbort);
    call.onAbort = () => askToStop(slot, "cancelled");
    call.options.signal?.addEventListener("abort", call.onAbort, { once: true });
    slot.worker.post(call.job);
  };

  function pump(): void {
    if (closed) return;
    while (!filling && slots.length < settings.poolSize && addSlot(false)) { /* refill */ }
    if (slots.length === 0 && !filling) {
      for (const call of queue.splice(0)) {
        settle(call, refusal("internal_error", "The sandbox can no longer start tool workers."));
      }
      return;
    }
    while (queue.length > 0) {
      const slot = slots.find((s) => s.warm && !s.call && !s.lentTo);
      if (!slot) return recallHelpers();
      begin(slot, queue.shift()!);
    }
  }

  const direct = Math.max(1, Math.min(settings.directWorkers, settings.poolSize));
  for (let i = 0; i < direct; i++) addSlot(true);
  const started = Promise.all([factory.started, ...slots.map((s) => s.loaded.promise)]).then(
    () => {},
  );
  // The rest of the pool comes from the supervisor, off the path to the first answer.
  let filling = true;
  started.then(() => {
    filling = false;
    pump();
  });
  const ready = Promise.withResolvers<void>();
  const checkReady = () => {
    if (closed || slots.filter((s) => s.warm).length >= settings.poolSize) ready.resolve();
  };

  return {
    started,
    ready: ready.promise,
    run: ((
      tool: string,
      args: unknown,
      options: RunOptions & { shape?: ShapeOptions } = {},
    ): Promise<RawToolResult | ShapedResult> => {
      if (closed) {
        return Promise.resolve(refusal("internal_error", "The sandbox is not running."));
      }
      if (options.signal?.aborted) {
        return Promise.resolve(refusal("cancelled", stopMessage("cancelled")));
      }
      if (queue.length >= settings.queueLimit) {
        return Promise.resolve(
          refusal("busy", `${settings.queueLimit} calls are already waiting for a tool worker.`),
        );
      }
      const job: JobMessage = options.shape
        ? { type: "job", id: nextId++, tool, args, shape: options.shape }
        : { type: "job", id: nextId++, tool, args };
      return new Promise((resolve) => {
        const call: Call = { job, options, gate: new ProgressGate(), resolve, settled: false };
        call.onAbort = () => {
          const index = queue.indexOf(call);
          if (index >= 0) queue.splice(index, 1);
          settle(call, refusal("cancelled", stopMessage("cancelled")));
        };
        options.signal?.addEventListener("abort", call.onAbort, { once: true });
        queue.push(call);
        pump();
      });
    }) as Sandbox["run"],
    get replacedWorkers() {
      return replaced;
    },
    get lentWorkers() {
      return lent;
    },
    get recalledWorkers() {
      return recalled;
    },
    close() {
      if (closed) return;
      closed = true;
      const calls = [...queue.splice(0)];
      for (const slot of [...slots]) {
        // A running call is asked to stop first (a lent helper reads the same flag):
        // terminate alone leaves a thread busy in JavaScript spinning (ADR-100).
        if (slot.call && !slot.stopping) slot.flag.request(slot.call.job.id, "cancelled");
        if (slot.helper) Atomics.store(slot.helper.recall, 0, 1);
        const call = retire(slot);
        if (call) calls.push(call);
        slot.worker.terminate();
      }
      factory.close();
      ready.resolve();
      for (const call of calls) settle(call, refusal("internal_error", "The sandbox was closed."));
    },
  };
}
