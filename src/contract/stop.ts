/**
 * The cooperative stop signal. Deno 2.9's `Worker.terminate()` does not stop
 * a thread that is busy in JavaScript, so a call is stopped by asking: the
 * main thread writes the id of the job to stop (and why) into memory shared
 * with the tool worker, and every long loop in a tool checks it between units
 * of work. A flag names its job, so a late stop for a finished job can never
 * stop the next one, and nothing needs resetting.
 *
 * @module
 */

/** Why a call is asked to stop. */
export type StopReason = "cancelled" | "timed_out";

const REASONS: readonly StopReason[] = ["cancelled", "timed_out"];

/** Slot 0: the job to stop (0 for none); slot 1: the reason's index + 1. */
const SLOTS = 2;

/** Shared memory for one worker's stop flag; post it to the worker, keep it here. */
export function newStopBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT);
}

/** Raises and reads stop requests in a buffer from {@linkcode newStopBuffer}. */
export class StopFlag {
  readonly #cells: Int32Array;

  constructor(buffer: SharedArrayBuffer) {
    this.#cells = new Int32Array(buffer);
  }

  /** Asks job `jobId` to stop for `reason`. The first reason raised wins. */
  request(jobId: number, reason: StopReason): void {
    if (Atomics.load(this.#cells, 0) === jobId) return;
    Atomics.store(this.#cells, 1, REASONS.indexOf(reason) + 1);
    Atomics.store(this.#cells, 0, jobId);
  }

  /** Why job `jobId` was asked to stop, or `undefined` while it may go on. */
  reasonFor(jobId: number): StopReason | undefined {
    if (Atomics.load(this.#cells, 0) !== jobId) return undefined;
    return REASONS[Atomics.load(this.#cells, 1) - 1];
  }
}

/** What a tool checks between units of work. */
export interface StopSignal {
  /** Why the call must stop now, or `undefined` while it may go on. Cheap: one atomic load. */
  reason(): StopReason | undefined;
}

/** A signal that never stops (for direct calls in tests and one-off runs). */
export const NEVER_STOP: StopSignal = { reason: () => undefined };

/** Reports progress of a long call (files scanned so far, and the total when known). */
export type ProgressReporter = (progress: number, total?: number, message?: string) => void;
