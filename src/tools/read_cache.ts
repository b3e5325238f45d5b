/**
 * A tool worker's cache of processed reads (ADR-081): what `read_file` made
 * of a file (its raw result) and what the pipeline made of that (the shaped
 * result, as text cut at its fence nonce), keyed by the opened file's
 * identity, its workspace path and the call's range. One per worker, in its
 * tool context: no state is shared between threads. Bounded in bytes (least
 * recently used first out); `0` turns it off.
 *
 * What it never skips: every call still resolves its path through
 * containment (denylist, symlinks), is confirmed against swaps (on a hit,
 * that the path still leads to a regular file of the kept identity: a hit
 * opens nothing, ADR-098), gets its own fence nonce and its own answer; only
 * the open and read of the bytes and the work done on them are saved, and
 * only for a file whose identity could not have stayed the same through a
 * change (`Workspace.readRegularFileSync`'s `identity`; what is kept was read
 * through a handle that passed every check of a read).
 *
 * @module
 */

import type { RawToolResult } from "../contract/result.ts";

/** The default bound of one worker's cache: small next to a laptop's memory. */
export const DEFAULT_READ_CACHE_BYTES = 32 * 1024 * 1024;

/** A shaped result kept for reuse: its text blocks cut at the nonce, the rest as it was. */
export interface ShapedTemplate {
  /** The shaped result (a `CallToolResult`) with its text block left out (`content` empty). */
  readonly result: { readonly [key: string]: unknown };
  /** The first text block's text, split at every occurrence of the nonce it was fenced with. */
  readonly segments: readonly string[];
  /** The pipeline option it was shaped with. */
  readonly redactSecrets: boolean;
  /**
   * Every maximal run of hex digits in `segments` at least a nonce long, lowercased
   * (`hexRunsOf`): all a fresh nonce must be checked against (ADR-081's amendment).
   */
  readonly hexRuns: readonly string[];
}

interface Entry {
  readonly key: string;
  readonly raw: RawToolResult;
  shaped?: ShapedTemplate;
  bytes: number;
}

/** Figures a test or a benchmark reads. */
export interface ReadCacheStats {
  readonly hits: number;
  readonly misses: number;
  readonly entries: number;
  readonly bytes: number;
}

/** How many once-missed keys are remembered before the memory of them starts again. */
const SEEN_KEYS = 4096;

/** What a JavaScript string of `n` code units may hold in memory, at most. */
const charBytes = (n: number) => 2 * n;
/** What an entry costs besides its strings (the objects, the key). */
const ENTRY_OVERHEAD = 512;

/** The per-worker cache of processed reads. */
export class ReadCache {
  readonly #limit: number;
  /** Insertion order is recency: a hit moves its entry to the end. */
  readonly #entries = new Map<string, Entry>();
  readonly #byRaw = new WeakMap<RawToolResult, Entry>();
  /**
   * Keys missed once lately: an entry is kept on its second miss only, so reads spread
   * over many files, each read once, keep nothing (no memory held, no work to keep it).
   */
  #seen = new Set<string>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;

  /** A cache of at most `limitBytes` (estimated); 0 or less keeps nothing. */
  constructor(limitBytes: number) {
    this.#limit = Math.max(0, limitBytes);
  }

  /** Whether anything is ever kept. */
  get enabled(): boolean {
    return this.#limit > 0;
  }

  /**
   * What a read of `key` should do: `"reuse"` what is kept (then {@linkcode get} returns
   * it), `"keep"` (read, and `put` will keep it: its key was missed before lately), or
   * just `"read"`. Counts a hit or a miss.
   */
  probe(key: string): "reuse" | "keep" | "read" {
    if (this.#entries.has(key)) {
      this.#hits++;
      return "reuse";
    }
    this.#misses++;
    if (this.#seen.has(key)) return "keep";
    if (this.#seen.size >= SEEN_KEYS) this.#seen = new Set();
    this.#seen.add(key);
    return "read";
  }

  /** The raw result kept under `key` (now the most recently used), or `undefined`. */
  get(key: string): RawToolResult | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.raw;
  }

  /**
   * Keeps `raw` under `key` (replacing what was there), if it fits in a share of the bound.
   * A read keeps only what {@linkcode probe} answered `"keep"` for.
   */
  put(key: string, raw: RawToolResult): void {
    if (!this.enabled || raw.kind !== "ok") return;
    this.#seen.delete(key);
    const bytes = ENTRY_OVERHEAD + charBytes(key.length) + charBytes(rawChars(raw));
    // One entry never takes more than an eighth of the bound: a few large files cannot
    // push every small one out.
    if (bytes > this.#limit / 8) return;
    this.#drop(key);
    const entry: Entry = { key, raw, bytes };
    this.#entries.set(key, entry);
    this.#byRaw.set(raw, entry);
    this.#bytes += bytes;
    this.#evict();
  }

  /** The shaped template of the entry `raw` came from, when it was shaped with these options. */
  shapedOf(raw: RawToolResult, redactSecrets: boolean): ShapedTemplate | undefined {
    const entry = this.#byRaw.get(raw);
    if (!entry || this.#entries.get(entry.key) !== entry) return undefined;
    return entry.shaped?.redactSecrets === redactSecrets ? entry.shaped : undefined;
  }

  /** Attaches `shaped` to the entry `raw` came from, if it is still kept. */
  attachShaped(raw: RawToolResult, shaped: ShapedTemplate): void {
    const entry = this.#byRaw.get(raw);
    if (!entry || this.#entries.get(entry.key) !== entry) return;
    const before = entry.shaped ? templateBytes(entry.shaped) : 0;
    entry.shaped = shaped;
    const delta = templateBytes(shaped) - before;
    entry.bytes += delta;
    this.#bytes += delta;
    if (entry.bytes > this.#limit / 8) this.#drop(entry.key);
    this.#evict();
  }

  /** Whether `raw` is a kept entry's result (so its shaping may be kept too). */
  holds(raw: RawToolResult): boolean {
    const entry = this.#byRaw.get(raw);
    return entry !== undefined && this.#entries.get(entry.key) === entry;
  }

  /** Counts and size, for tests and benchmarks. */
  get stats(): ReadCacheStats {
    return {
      hits: this.#hits,
      misses: this.#misses,
      entries: this.#entries.size,
      bytes: this.#bytes,
    };
  }

  #drop(key: string): void {
    const old = this.#entries.get(key);
    if (!old) return;
    this.#entries.delete(key);
    this.#byRaw.delete(old.raw);
    this.#bytes -= old.bytes;
  }

  #evict(): void {
    for (const key of this.#entries.keys()) {
      if (this.#bytes <= this.#limit) return;
      this.#drop(key);
    }
  }
}

/**
 * About the characters of a raw result's strings: its text parts, and its structured
 * half's string fields (a read's `content`) plus a margin for the rest, without
 * serialising it.
 */
function rawChars(raw: RawToolResult): number {
  if (raw.kind !== "ok") return 0;
  let n = 1024;
  for (const part of raw.parts) n += part.text.length;
  for (const value of Object.values(raw.structured)) {
    if (typeof value === "string") n += value.length;
  }
  return n;
}

function templateBytes(shaped: ShapedTemplate): number {
  let n = 0;
  for (const segment of shaped.segments) n += segment.length;
  for (const run of shaped.hexRuns) n += run.length;
  return charBytes(n + JSON.stringify(shaped.result).length);
}
