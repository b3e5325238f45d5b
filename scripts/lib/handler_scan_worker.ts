/**
 * `bench:floor`'s handler rows (ADR-140): `search_code`'s real handler and result pipeline on
 * one thread (a direct context, as in a tool worker, without the server around it), in a
 * worker whose grant the benchmark chooses (the tool worker's, or every permission). It
 * answers `"ready"` once loaded, then, for each {@linkcode HandlerJob}, pages through every
 * result of the literal with `max_results` 10,000 and answers a {@linkcode HandlerReport}.
 *
 * @module
 */

import { callDirect } from "../../tests/helpers/fixtures.ts";
import { createToolContext } from "../../src/tools/runtime.ts";
import type { SandboxSettings } from "../../src/isolation/messages.ts";
import type { ToolContext } from "../../src/tools/types.ts";

/**
 * One full scan of `needle`, with the settings a tool worker is given (made by the creating
 * thread, which may read the environment: a tool worker may not).
 */
export interface HandlerJob {
  readonly settings: SandboxSettings;
  readonly needle: string;
}

/** What one scan found: matching lines and files searched (summed over its pages). */
export interface HandlerReport {
  readonly lines: number;
  readonly files: number;
  readonly pages: number;
  /** Whether this thread may read `/`: false under the tool worker's grant. */
  readonly readsAnywhere: boolean;
  /** Set when a page was not a result: what it said. */
  readonly error?: string;
}

let context: ToolContext | undefined;

async function scan(job: HandlerJob): Promise<HandlerReport> {
  context ??= createToolContext(job.settings);
  let cursor: string | undefined;
  let lines = 0, files = 0, pages = 0;
  const readsAnywhere = Deno.permissions.querySync({ name: "read", path: "/" }).state === "granted";
  do {
    const result = await callDirect(context, "search_code", {
      pattern: job.needle,
      max_results: 10_000,
      ...(cursor ? { cursor } : {}),
    });
    pages++;
    if ("invalidParams" in result || result.isError) {
      return { lines, files, pages, readsAnywhere, error: JSON.stringify(result).slice(0, 300) };
    }
    const s = result.structuredContent as {
      total_matches: number;
      files_scanned: number;
      next_cursor?: string;
    };
    lines += s.total_matches;
    files += s.files_scanned;
    cursor = s.next_cursor;
  } while (cursor);
  return { lines, files, pages, readsAnywhere };
}

self.onmessage = async (event: MessageEvent<HandlerJob>) => {
  try {
    self.postMessage(await scan(event.data));
  } catch (error) {
    self.postMessage({ lines: 0, files: 0, pages: 0, readsAnywhere: false, error: String(error) });
  }
};
self.postMessage("ready");
