/**
 * The cap on concurrent tool calls over HTTP: a counter, not a queue. A call
 * that finds the cap reached is refused at once (503 with `Retry-After`), so
 * a flood costs the server a counter check per request and never memory.
 * Behind the cap, the sandbox's own bounded queue (32) orders the calls for
 * the tool workers.
 *
 * @module
 */

/** Admits at most `limit` holders at once. */
export class CallGate {
  #held = 0;

  constructor(readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError("limit must be >= 1");
  }

  /** Takes a place if one is free; `false` (and nothing taken) when the cap is reached. */
  tryEnter(): boolean {
    if (this.#held >= this.limit) return false;
    this.#held++;
    return true;
  }

  /** Gives a place back. */
  leave(): void {
    if (this.#held > 0) this.#held--;
  }

  /** Places taken now. */
  get held(): number {
    return this.#held;
  }
}
