/**
 * The cap on concurrent tool calls over HTTP, with a bounded wait queue in
 * front of it (ADR-079): at most `limit` calls hold a place, at most
 * `maxQueued` more wait for one in arrival order, and a call that finds both
 * full is refused at once (503 with `Retry-After`). A waiting call gives up
 * at its deadline (the request timeout) or when its client goes away, and
 * then never runs. So a flood costs the server a counter check per request
 * beyond the queue, and memory for at most `maxQueued` waiting requests.
 * Behind the cap, the sandbox's own bounded queue (32) orders the calls for
 * the tool workers.
 *
 * @module
 */

import { DeadlineSweep } from "./deadline.ts";

/** How a wait for a place ended. */
export type Wait = "entered" | "timed_out" | "gone";

/** What {@linkcode CallGate.enter} answers: a place now, a refusal now, or a wait. */
export type Admission = "entered" | "full" | Promise<Wait>;

interface Waiter {
  readonly settle: (outcome: Wait) => void;
}

/** Admits at most `limit` holders at once, and queues at most `maxQueued` more. */
export class CallGate {
  #held = 0;
  readonly #queue: Waiter[] = [];

  /**
   * `deadlines` watches the waits' deadlines (one sweep for all, not a timer per wait; the
   * server shares its body deadlines' sweep): a wait ends within a tick of its deadline.
   */
  constructor(
    readonly limit: number,
    readonly maxQueued = 0,
    readonly deadlines: DeadlineSweep = new DeadlineSweep(5),
  ) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError("limit must be >= 1");
    if (!Number.isSafeInteger(maxQueued) || maxQueued < 0) {
      throw new RangeError("maxQueued must be >= 0");
    }
  }

  /** Takes a place if one is free; `false` (and nothing taken) when the cap is reached. */
  tryEnter(): boolean {
    if (this.#held >= this.limit || this.#queue.length > 0) return false;
    this.#held++;
    return true;
  }

  /**
   * Takes a place now (`"entered"`, synchronously: the common case costs no
   * promise), refuses (`"full"`: the cap and the queue are both full), or
   * queues: the promise settles `"entered"` (the place is taken) when a
   * holder leaves, `"timed_out"` after `timeoutMs`, or `"gone"` when `signal`
   * aborts; in the last two cases nothing is taken and the waiter is out of
   * the queue.
   */
  enter(signal: AbortSignal, timeoutMs: number): Admission {
    if (this.tryEnter()) return "entered";
    if (this.#queue.length >= this.maxQueued || signal.aborted) return "full";
    const { promise, resolve } = Promise.withResolvers<Wait>();
    const onAbort = () => waiter.settle("gone");
    const waiter: Waiter = {
      settle: (outcome) => {
        // Most settle at the head (a place handed on); a timeout or an abort may be anywhere.
        if (this.#queue[0] === waiter) this.#queue.shift();
        else {
          const at = this.#queue.indexOf(waiter);
          if (at >= 0) this.#queue.splice(at, 1);
        }
        this.deadlines.done(watched);
        signal.removeEventListener("abort", onAbort);
        resolve(outcome);
      },
    };
    this.#queue.push(waiter);
    const watched = this.deadlines.watch(timeoutMs, () => waiter.settle("timed_out"));
    signal.addEventListener("abort", onAbort, { once: true });
    return promise;
  }

  /** Gives a place back: to the longest-waiting call if one waits, else to the pool. */
  leave(): void {
    const next = this.#queue[0];
    if (next !== undefined) {
      // The place passes on without being freed, so no newcomer can take it first.
      next.settle("entered");
      return;
    }
    if (this.#held > 0) this.#held--;
  }

  /** Places taken now. */
  get held(): number {
    return this.#held;
  }

  /** Calls waiting now. */
  get queued(): number {
    return this.#queue.length;
  }
}
