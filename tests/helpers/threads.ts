/**
 * This process's tool-worker threads as Linux shows them (`/proc/<pid>/task`):
 * Deno names every `Worker`'s thread `worker-N`. Tests use them to prove a
 * closed, cancelled or abandoned call leaves no thread behind (a thread busy
 * in JavaScript outlives `Worker.terminate()` on Deno 2.9.6, ADR-016, ADR-100).
 *
 * Deno lets only a thread with every permission read `/proc` (its special-file
 * check, ADR-083), and the suite runs without them (`scripts/test.ts`). So
 * unless this process can read it itself, a child with every permission reads
 * it for the process, given its pid (this module is also that child's
 * program). Every function rejects where `/proc` cannot be read at all (not
 * Linux), so no test can pass by seeing no thread.
 *
 * @module
 */

const TICK_MS = 10; // USER_HZ = 100 on Linux

/** Each live `worker-N` thread's CPU time so far (user + system, ms), by thread id. */
export type ThreadCpu = Map<string, number>;

/** What {@linkcode threadsGone} answers: the threads still alive (their CPU meanwhile, ms). */
export interface ThreadsGone {
  /** `worker-N (tid)` → CPU ms used while waited for. */
  alive: Map<string, number>;
  waitedMs: number;
}

/** The live `worker-N` threads of process `pid` (`self` for this one) and their CPU so far. */
export function readThreads(pid: string): ThreadCpu {
  const out: ThreadCpu = new Map();
  for (const entry of Deno.readDirSync(`/proc/${pid}/task`)) {
    try {
      const dir = `/proc/${pid}/task/${entry.name}`;
      if (!Deno.readTextFileSync(`${dir}/comm`).startsWith("worker-")) continue;
      const stat = Deno.readTextFileSync(`${dir}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(entry.name, (Number(fields[11]) + Number(fields[12])) * TICK_MS);
    } catch { /* the thread ended meanwhile */ }
  }
  return out;
}

function nameOf(pid: string, tid: string): string {
  try {
    return `${Deno.readTextFileSync(`/proc/${pid}/task/${tid}/comm`).trim()} (${tid})`;
  } catch {
    return tid;
  }
}

async function waitGone(pid: string, threads: string[], ms: number): Promise<ThreadsGone> {
  const started = performance.now();
  const first = readThreads(pid);
  const names = new Map(threads.map((tid) => [tid, nameOf(pid, tid)]));
  for (;;) {
    const now = readThreads(pid);
    const alive = new Map(
      threads.filter((tid) => now.has(tid)).map((tid) => [
        names.get(tid)!,
        now.get(tid)! - (first.get(tid) ?? now.get(tid)!),
      ]),
    );
    const waitedMs = performance.now() - started;
    if (alive.size === 0 || waitedMs >= ms) return { alive, waitedMs };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Whether this process may read its own `/proc` entries (only with every permission). */
function readsProcItself(): boolean {
  try {
    Deno.readDirSync("/proc/self/task");
    return true;
  } catch {
    return false;
  }
}

/** Runs this module as a child with every permission, which reads `/proc/<our pid>`. */
async function viaChild(args: string[]): Promise<unknown> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "-A",
      "--no-prompt",
      "--no-check",
      new URL(import.meta.url).pathname,
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`the /proc reader failed: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** This process's live `worker-N` threads and the CPU each used so far. */
export async function workerThreads(): Promise<ThreadCpu> {
  if (readsProcItself()) return readThreads("self");
  return new Map(Object.entries(await viaChild(["snapshot", String(Deno.pid)]) as object));
}

/** The worker threads started since `before` (a {@linkcode workerThreads} snapshot). */
export async function threadsSince(before: ThreadCpu): Promise<Set<string>> {
  return new Set([...(await workerThreads()).keys()].filter((tid) => !before.has(tid)));
}

/**
 * Waits until none of `threads` is alive, at most `ms`; returns those still alive then, by
 * name, with the CPU each used while waited for (ms).
 */
export async function threadsGone(threads: Set<string>, ms: number): Promise<ThreadsGone> {
  if (readsProcItself()) return waitGone("self", [...threads], ms);
  const answer = await viaChild(["gone", String(Deno.pid), String(ms), [...threads].join(",")]) as {
    alive: Record<string, number>;
    waitedMs: number;
  };
  return { alive: new Map(Object.entries(answer.alive)), waitedMs: answer.waitedMs };
}

if (import.meta.main) {
  const [mode, pid, ...rest] = Deno.args;
  if (mode === "snapshot") {
    console.log(JSON.stringify(Object.fromEntries(readThreads(pid))));
  } else if (mode === "gone") {
    const [ms, list] = rest;
    const result = await waitGone(pid, list ? list.split(",") : [], Number(ms));
    console.log(
      JSON.stringify({ alive: Object.fromEntries(result.alive), waitedMs: result.waitedMs }),
    );
  } else {
    console.error("usage: threads.ts snapshot PID | gone PID MS TID,TID…");
    Deno.exit(2);
  }
}
