/**
 * `bench:floor`'s least possible literal scan: worker threads that take the
 * listed files in chunks and open, read and close each (`io`), or also
 * decode it and count the lines holding the needle (`scan`), under the tool
 * worker's grant or every permission. See `floor_scan_worker.ts`.
 *
 * @module
 */

import { toolWorkerPermissions } from "../../src/isolation/permissions.ts";
import { cpuNow } from "./stats.ts";
import type { FloorJob, FloorReport } from "./floor_scan_worker.ts";
import type { HandlerJob, HandlerReport } from "./handler_scan_worker.ts";
import { sandboxSettings } from "../../src/app.ts";
import type { SandboxSettings } from "../../src/isolation/messages.ts";
import { configFor } from "../../tests/helpers/fixtures.ts";
import { FULL_SCAN_ENV } from "./linux_corpus.ts";

/** Whose grant the threads hold: the tool worker's (read scoped to `root`) or every permission. */
export type FloorGrant = "tool worker" | "every permission";

/** One scan's wall and CPU time (ms, this process, every thread) and the threads' sums. */
export interface FloorRun {
  ms: number;
  cpuMs: number;
  report: FloorReport;
}

/**
 * Scans `files` (absolute paths under `root`) with `threads` workers. The
 * clock starts once every worker has loaded; files that cannot be opened
 * (gone, or outside the grant) are not counted in `report.files`.
 */
export async function floorScan(
  files: string[],
  options: {
    root: string;
    grant: FloorGrant;
    mode: FloorJob["mode"];
    needle: string;
    threads: number;
    /**
     * Files each worker goes over once, untimed, before the clock starts (ADR-122): the
     * prefilter is built and the loop compiled, as in a tool worker that has searched before.
     */
    warm?: string[];
  },
): Promise<FloorRun> {
  const counter = new SharedArrayBuffer(4);
  const workers = Array.from(
    { length: options.threads },
    () =>
      new Worker(new URL("./floor_scan_worker.ts", import.meta.url), {
        type: "module",
        deno: {
          permissions: options.grant === "tool worker"
            ? toolWorkerPermissions(options.root)
            : "inherit",
        },
      }),
  );
  try {
    // Each worker answers "ready" once its module has loaded, so loading is not timed.
    await Promise.all(workers.map((worker) => nextMessage(worker)));
    if (options.warm !== undefined) {
      const warm = options.warm;
      await Promise.all(workers.map((worker) => {
        const answer = nextMessage(worker);
        const job: FloorJob = {
          files: warm,
          counter: new SharedArrayBuffer(4),
          needle: options.needle,
          mode: options.mode,
        };
        worker.postMessage(job);
        return answer;
      }));
    }
    const cpu0 = cpuNow();
    const t0 = performance.now();
    const job: FloorJob = { files, counter, needle: options.needle, mode: options.mode };
    const reports = await Promise.all(workers.map((worker) => {
      const answer = nextMessage(worker) as Promise<FloorReport>;
      worker.postMessage(job);
      return answer;
    }));
    const ms = performance.now() - t0;
    const cpuMs = cpuNow() - cpu0;
    const report = reports.reduce((a, b) => ({
      files: a.files + b.files,
      bytes: a.bytes + b.bytes,
      lines: a.lines + b.lines,
    }));
    return { ms, cpuMs, report };
  } finally {
    for (const worker of workers) worker.terminate();
  }
}

/** The files of a first page and the matching lines ripgrep finds in them. */
export interface FirstPage {
  /** The files in path order up to and including the one holding the `first`th match. */
  relative: string[];
  /** That file. */
  lastFile: string;
  /** Every matching line of those files: those before the last one's, and all of its own. */
  expected: number;
}

/**
 * The files a first page of `first` matches must read (ADR-122): `sorted` is
 * `rg --files --sort path`, `matched` the path of each line of
 * `rg --sort path` (in that order); every file before the one holding the
 * `first`th match may hold one, so every one is read. A string says why
 * there is no such page.
 */
export function firstPage(
  sorted: readonly string[],
  matched: readonly string[],
  first: number,
): FirstPage | string {
  if (matched.length < first) {
    return `ripgrep finds ${matched.length} matching lines, fewer than ${first}`;
  }
  const lastFile = matched[first - 1];
  const upTo = sorted.indexOf(lastFile);
  if (upTo === -1) return `${lastFile} is not in ripgrep's file list`;
  const relative = sorted.slice(0, upTo + 1);
  const page = new Set(relative);
  return { relative, lastFile, expected: matched.filter((p) => page.has(p)).length };
}

function nextMessage(worker: Worker): Promise<unknown> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event: MessageEvent) => resolve(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(`floor worker failed: ${event.message}`));
    };
  });
}

/**
 * A worker running `search_code`'s real handler on one thread under `grant`
 * (`handler_scan_worker.ts`, ADR-140), kept across scans as a tool worker is.
 */
export class HandlerScanner {
  readonly #worker: Worker;
  readonly #ready: Promise<unknown>;
  /** `bench:search`'s settings: the time budget and the page out of the way of a full scan. */
  readonly #settings: SandboxSettings;

  constructor(readonly root: string, readonly grant: FloorGrant) {
    this.#settings = sandboxSettings(configFor(root, { ...FULL_SCAN_ENV }));
    this.#worker = new Worker(new URL("./handler_scan_worker.ts", import.meta.url), {
      type: "module",
      deno: { permissions: grant === "tool worker" ? toolWorkerPermissions(root) : "inherit" },
    });
    this.#ready = nextMessage(this.#worker);
  }

  /** One full scan of `needle`: wall and CPU (ms, this process; the caller's threads idle). */
  async scan(needle: string): Promise<{ ms: number; cpuMs: number; report: HandlerReport }> {
    await this.#ready;
    const answer = nextMessage(this.#worker) as Promise<HandlerReport>;
    const cpu0 = cpuNow();
    const t0 = performance.now();
    this.#worker.postMessage({ settings: this.#settings, needle } satisfies HandlerJob);
    const report = await answer;
    return { ms: performance.now() - t0, cpuMs: cpuNow() - cpu0, report };
  }

  close(): void {
    this.#worker.terminate();
  }
}
