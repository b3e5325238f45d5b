/**
 * This process's tool-worker threads as Linux shows them (`/proc/self/task`):
 * Deno names every `Worker`'s thread `worker-N`. Tests use them to prove a
 * closed, cancelled or abandoned call leaves no thread behind (a thread busy
 * in JavaScript outlives `Worker.terminate()` on Deno 2.9.6, ADR-016, ADR-100).
 * Empty where `/proc` is absent (not Linux).
 *
 * @module
 */

const TICK_MS = 10; // USER_HZ = 100 on Linux

/** Each live `worker-N` thread's CPU time so far (user + system, ms), by thread id. */
export function workerThreads(): Map<string, number> {
  const out = new Map<string, number>();
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync("/proc/self/task");
  } catch {
    return out;
  }
  for (const entry of entries) {
    try {
      const dir = `/proc/self/task/${entry.name}`;
      if (!Deno.readTextFileSync(`${dir}/comm`).startsWith("worker-")) continue;
      const stat = Deno.readTextFileSync(`${dir}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(entry.name, (Number(fields[11]) + Number(fields[12])) * TICK_MS);
    } catch { /* the thread ended meanwhile */ }
  }
  return out;
}

/** A thread's name (`worker-N`) and id, for messages; its id alone once it has ended. */
export function threadName(tid: string): string {
  try {
    return `${Deno.readTextFileSync(`/proc/self/task/${tid}/comm`).trim()} (${tid})`;
  } catch {
    return tid;
  }
}

/** The worker threads started since `before` (a {@linkcode workerThreads} snapshot). */
export function threadsSince(before: Map<string, number>): Set<string> {
  return new Set([...workerThreads().keys()].filter((tid) => !before.has(tid)));
}

/**
 * Waits until none of `threads` is alive, at most `ms`; returns those still alive then, with
 * the CPU each used while waited for (ms).
 */
export async function threadsGone(
  threads: Set<string>,
  ms: number,
): Promise<{ alive: Map<string, number>; waitedMs: number }> {
  const started = performance.now();
  const first = workerThreads();
  for (;;) {
    const now = workerThreads();
    const alive = new Map(
      [...threads].filter((tid) => now.has(tid)).map((tid) => [
        tid,
        now.get(tid)! - (first.get(tid) ?? now.get(tid)!),
      ]),
    );
    const waitedMs = performance.now() - started;
    if (alive.size === 0 || waitedMs >= ms) return { alive, waitedMs };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
