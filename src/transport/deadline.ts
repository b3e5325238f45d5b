/**
 * Deadlines: a promise raced against one, the timer cleared either way (so no
 * timer outlives the race and keeps the process, or a test, waiting), and
 * many watched by one sweep ({@linkcode DeadlineSweep}).
 *
 * @module
 */

/** What a race that reached its deadline first answers. */
export const LATE: unique symbol = Symbol("late");

/** `promise`'s value, or {@linkcode LATE} when `ms` pass first. */
export async function raceDeadline<T>(promise: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

interface Watched {
  readonly at: number;
  readonly late: () => void;
}

/**
 * Deadlines watched by one sweep every `tickMs` while any is pending (a body
 * being read, a call waiting for a place): each `late` runs between its
 * deadline and one tick after it, and no timer is made per deadline (ADR-080).
 * The sweep's timer runs only while something is watched (it stops at the
 * first tick that finds nothing), so it keeps a process alive no longer
 * than the reads and waits it watches, plus a tick.
 */
export class DeadlineSweep {
  readonly #pending = new Set<Watched>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(readonly tickMs: number) {}

  /** A tick fit for `timeoutMs`: an eighth of it, between 5 and 250 ms. */
  static forTimeout(timeoutMs: number): DeadlineSweep {
    return new DeadlineSweep(Math.max(5, Math.min(250, Math.floor(timeoutMs / 8))));
  }

  /** Calls `late` once `timeoutMs` have passed, unless {@linkcode done} came first. */
  watch(timeoutMs: number, late: () => void): Watched {
    const watched = { at: performance.now() + timeoutMs, late };
    this.#pending.add(watched);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#sweep(), this.tickMs);
    }
    return watched;
  }

  /** What was watched ended in time (a body arrived, a wait ended): its deadline no longer applies. */
  done(watched: Watched): void {
    this.#pending.delete(watched);
  }

  /** Deadlines being watched now. */
  get pending(): number {
    return this.#pending.size;
  }

  #sweep(): void {
    if (this.#pending.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    const now = performance.now();
    for (const watched of this.#pending) {
      if (watched.at <= now) {
        this.#pending.delete(watched);
        watched.late();
      }
    }
  }
}
