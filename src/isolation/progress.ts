/**
 * The progress gate: which of a call's progress reports go on. A report
 * passes only if its value is higher than the last one passed (strictly
 * increasing, as the specification asks of `notifications/progress`) and
 * at least the interval has gone by since the last one passed (a tool may
 * report per file; a client needs a few updates a second). The tool worker
 * applies one gate so few messages cross threads; the main thread applies
 * another, so no worker can flood a client or send values that go back.
 *
 * @module
 */

import { escapeControlCharacters } from "../contract/text.ts";

/** At most this many progress notifications a second per call. */
export const PROGRESS_PER_SECOND = 10;

/** The interval {@linkcode PROGRESS_PER_SECOND} implies. */
export const PROGRESS_INTERVAL_MS = 1000 / PROGRESS_PER_SECOND;

/**
 * The tool worker's own gate is a little slower than the main thread's, so
 * the jitter of the thread hop never makes the main gate drop a report.
 */
export const WORKER_PROGRESS_INTERVAL_MS = PROGRESS_INTERVAL_MS * 1.2;

/** The longest progress message passed on; longer ones are cut. */
export const PROGRESS_MESSAGE_CHARS = 200;

/** One progress report of one call. */
export interface ProgressUpdate {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** Rate-limits and orders the progress reports of one call. */
export class ProgressGate {
  readonly #intervalMs: number;
  readonly #now: () => number;
  #last = -Infinity;
  #lastAt = -Infinity;

  constructor(
    intervalMs: number = PROGRESS_INTERVAL_MS,
    now: () => number = () => performance.now(),
  ) {
    this.#intervalMs = intervalMs;
    this.#now = now;
  }

  /** Whether a report of `progress` may go on now (and if so, it is counted as sent). */
  admit(progress: number): boolean {
    if (!Number.isFinite(progress) || progress <= this.#last) return false;
    const now = this.#now();
    if (now - this.#lastAt < this.#intervalMs) return false;
    this.#last = progress;
    this.#lastAt = now;
    return true;
  }
}

/**
 * A report as it may reach a client: a finite total no smaller than the
 * progress (else none), and the message with control, bidi and invisible
 * characters escaped and cut to {@linkcode PROGRESS_MESSAGE_CHARS}.
 */
export function cleanProgress(update: ProgressUpdate): ProgressUpdate {
  const total = typeof update.total === "number" && Number.isFinite(update.total) &&
      update.total >= update.progress
    ? update.total
    : undefined;
  const message = typeof update.message === "string"
    ? escapeControlCharacters(update.message).slice(0, PROGRESS_MESSAGE_CHARS)
    : undefined;
  return {
    progress: update.progress,
    ...(total !== undefined && { total }),
    ...(message !== undefined && { message }),
  };
}
