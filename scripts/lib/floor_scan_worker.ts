/**
 * One thread of `bench:floor`'s least possible literal scan: takes files in
 * chunks from a shared counter and, for each, opens, reads into one reused
 * buffer and closes it (`io`), and in `scan` mode also decodes it as latin1
 * and counts the lines holding the needle with `String.indexOf` — the read
 * path `search_code` uses (ADR-054), with nothing around it: no walk, no
 * ignore files, no policy, no results. `prefilter` mode reads into the
 * literal prefilter's memory instead and asks it first (ADR-103), making the
 * latin1 string only of the files it finds the needle in: the scan path
 * `search_code` takes since. In `walk` mode it lists instead
 * every directory under the one path it is given with `Deno.readDirSync`
 * (skipping `.git` and not following links): the least a walk costs, with no
 * ignore file, policy or sort.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { Buffer } from "node:buffer";
import { closeSync, openSync, readSync } from "node:fs";
import { FOUND, LiteralPrefilter } from "../../src/tools/literal_prefilter.ts";

/** What the benchmark sends: the files, the shared chunk counter, the needle and the mode. */
export interface FloorJob {
  files: string[];
  counter: SharedArrayBuffer;
  needle: string;
  mode: "io" | "scan" | "prefilter" | "walk";
}

/** What a thread answers: files read (walk: entries listed), bytes read, lines holding the needle. */
export interface FloorReport {
  files: number;
  bytes: number;
  lines: number;
}

const CHUNK = 64;

/** The prefilter of the last job's needle: a warm-up job builds it for the timed one. */
let kept: { needle: string; prefilter: LiteralPrefilter } | undefined;

self.onmessage = (event: MessageEvent<FloorJob>) => {
  const { files, counter, needle, mode } = event.data;
  if (mode === "walk") {
    self.postMessage(walk(files[0]));
    return;
  }
  const next = new Int32Array(counter);
  if (mode === "prefilter" && kept?.needle !== needle) {
    kept = { needle, prefilter: new LiteralPrefilter(needle, false, 512 * 1024) };
  }
  const prefilter = mode === "prefilter" ? kept!.prefilter : undefined;
  const memory = prefilter?.buffer;
  const buffer = memory !== undefined
    ? Buffer.from(memory.buffer, memory.byteOffset, memory.byteLength)
    : Buffer.allocUnsafe(512 * 1024 + 1);
  // Node's Buffer#latin1Slice, as src/access/walk.ts's latin1Text uses it (not in the types).
  const latin1 = buffer as unknown as { latin1Slice(start: number, end: number): string };
  const report: FloorReport = { files: 0, bytes: 0, lines: 0 };
  for (;;) {
    const start = Atomics.add(next, 0, CHUNK);
    if (start >= files.length) break;
    const end = Math.min(files.length, start + CHUNK);
    for (let i = start; i < end; i++) {
      let fd: number;
      try {
        fd = openSync(files[i], "r");
      } catch {
        continue;
      }
      let length = 0;
      try {
        length = readSync(fd, buffer, 0, buffer.length, 0);
      } finally {
        closeSync(fd);
      }
      report.files++;
      report.bytes += length;
      if (mode === "io") continue;
      if (prefilter !== undefined && prefilter.scan(buffer.subarray(0, length)) !== FOUND) continue;
      const text = latin1.latin1Slice(0, length);
      let at = text.indexOf(needle);
      while (at !== -1) {
        report.lines++;
        const newline = text.indexOf("\n", at);
        if (newline === -1) break;
        at = text.indexOf(needle, newline + 1);
      }
    }
  }
  self.postMessage(report);
};

function walk(root: string): FloorReport {
  const report: FloorReport = { files: 0, bytes: 0, lines: 0 };
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    for (const entry of Deno.readDirSync(dir)) {
      report.files++;
      if (entry.isDirectory && entry.name !== ".git") stack.push(`${dir}/${entry.name}`);
    }
  }
  return report;
}

self.postMessage("ready");
