/**
 * A full collection of a tool worker's heap once a long call has answered
 * (ADR-118). A full scan promotes garbage into the old generation faster than
 * V8's incremental marking reclaims it, and each mark-compact raises the next
 * one's limit: without a collection between calls, every scan starts from a
 * bigger heap and the server's peak RSS grew by ~10 MB a scan. Needs V8's
 * `--expose-gc` (the `devserver` task's flags); without it, does nothing.
 *
 * @module
 */

import { getHeapSpaceStatistics } from "node:v8";

/** A call at least this long (ms) is followed by a collection: its cost (~10 ms) is ≤ 2% of it. */
export const COMPACT_AFTER_MS = 500;

/** Collects this thread's heap now, when `gc` is exposed; returns whether it could. */
export function compactHeap(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== "function") return false;
  gc();
  return true;
}

/**
 * Runs `work`; when it took `afterMs` or more (however it ended), schedules
 * `compact` on a timer, so the call's answer is posted before the collection.
 */
export async function compactingAfter<T>(
  work: () => Promise<T>,
  afterMs: number = COMPACT_AFTER_MS,
  compact: () => unknown = compactHeap,
): Promise<T> {
  const start = performance.now();
  try {
    return await work();
  } finally {
    if (performance.now() - start >= afterMs) setTimeout(compact, 0);
  }
}

/**
 * This thread's old generation in use now, in bytes: every V8 heap space but the young
 * generation's (`node:v8`'s space statistics, no permission needed, ~30 µs). The young
 * generation is left out: it fills and empties every few thousand files whatever is promoted.
 */
export function oldGenerationUsed(): number {
  let used = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name !== "new_space" && space.space_name !== "new_large_object_space") {
      used += space.space_used_size;
    }
  }
  return used;
}

/**
 * A long walk's collection when its garbage has piled up (ADR-121, amending ADR-118's fixed
 * interval): asked every so many files, it collects when the old generation has grown by
 * `growth` bytes or more since the walk began or since its own last collection. A walk that
 * promotes little (a literal full scan now: ~1 MB of the old generation per 16,384 files)
 * is not stopped for a full collection that frees next to nothing; one that promotes fast is
 * collected as soon as the growth shows, at most `growth` plus one interval's garbage above
 * where it started.
 */
export class GrowthCompactor {
  readonly growth: number;
  readonly #used: () => number;
  readonly #compact: () => unknown;
  #base: number;

  /** Measures the heap now as the walk's starting point. */
  constructor(
    growth: number,
    used: () => number = oldGenerationUsed,
    compact: () => unknown = compactHeap,
  ) {
    this.growth = growth;
    this.#used = used;
    this.#compact = compact;
    this.#base = used();
  }

  /** Collects when the old generation grew by `growth` since the base; returns whether it did. */
  check(): boolean {
    if (this.#used() - this.#base < this.growth) return false;
    this.#compact();
    this.#base = this.#used();
    return true;
  }
}
