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
