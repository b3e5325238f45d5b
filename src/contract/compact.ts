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

/**
 * A call at least this long (ms) is followed by a collection: its cost (~10 ms) is ≤ 10% of it,
 * paid after the answer. 100, not ADR-118's 500 (ADR-138): a search's first page over a big tree
 * takes 150–250 ms, and 24 of them in a row grew the server's peak RSS to 231 MB without one
 * (196 MB with); a `read_file` (a few ms) is never followed by one.
 */
export const COMPACT_AFTER_MS = 100;

/** Collects this thread's heap now, when `gc` is exposed; returns whether it could. */
export function compactHeap(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== "function") return false;
  gc();
  return true;
}

/**
 * How long (ms) a thread waits, idle, after a long call before it collects (ADR-138): a call that
 * arrives sooner postpones the collection until the thread is idle again.
 */
export const COMPACT_IDLE_MS = 150;

/** The collection owed since the last long call, until it runs (a call that starts postpones it). */
let pendingCompaction: ReturnType<typeof setTimeout> | undefined;

/**
 * Runs `work`; when it took `afterMs` or more (however it ended), schedules
 * `compact` on a timer `idleMs` later, so the call's answer is posted before
 * the collection. A call that starts before then postpones it: the collection
 * stays owed and is scheduled again when that call ends, however short, so
 * calls back to back never wait for one and none is lost. The timer does not
 * keep the thread alive.
 */
export async function compactingAfter<T>(
  work: () => Promise<T>,
  afterMs: number = COMPACT_AFTER_MS,
  compact: () => unknown = compactHeap,
  idleMs: number = COMPACT_IDLE_MS,
): Promise<T> {
  const owed = pendingCompaction !== undefined;
  clearTimeout(pendingCompaction);
  pendingCompaction = undefined;
  const start = performance.now();
  try {
    return await work();
  } finally {
    if (owed || performance.now() - start >= afterMs) {
      // An overlapping call (a job and an assist) may have scheduled one since: one is enough.
      clearTimeout(pendingCompaction);
      pendingCompaction = setTimeout(() => {
        pendingCompaction = undefined;
        compact();
      }, idleMs);
      Deno.unrefTimer(Number(pendingCompaction));
    }
  }
}
