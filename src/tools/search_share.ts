/**
 * The memory two threads of one `search_code` share (ADR-064): both walk
 * the same tree in the same order, and the first to reach a directory
 * claims it (a compare-and-swap on a slot keyed by a 64-bit hash of its
 * path); the other passes its files over without opening them. Each thread
 * reads, checks (the walker's per-directory swap-race proof, ADR-054) and
 * searches only the directories it claimed, so no file's bytes cross a
 * thread. Besides the claims: whether the helper joined, the files and
 * bytes both read (one file cap and one byte cap for the call), the files
 * both searched (progress), each thread's front (how far it has committed
 * its results, and how many, so a thread past the other's front can tell
 * when the two together fill the page before it: ADR-084), and where each
 * thread stopped early, so the other stops once it passes that point
 * (nothing after it can be on the page).
 *
 * Walk order (the walker's: a directory's files by name, then its
 * subdirectories by name, depth first) is a total order on paths, so the
 * two threads' results merge without either keeping a log of the walk:
 * {@linkcode compareWalkOrder}.
 *
 * @module
 */

/** Which thread: the one that got the call, or the one lent to it. */
export type Side = 1 | 2;
export const PRIMARY: Side = 1;
export const HELPER: Side = 2;

/** A position in walk order: the file, whether it is continued (`i`), matches of it already returned. */
export interface WalkPosition {
  readonly f: string;
  readonly i: boolean;
  readonly m: number;
}

const SLOTS = 1 << 16;
const MAX_PROBES = 64;
const MAX_PATH = 4096;

// Int32 words of the header.
const STATE = 0; // 0 open, 1 the helper joined, 2 closed (the helper may no longer join)
const SCANNED = 1;
const WALKED = 14;
const END_KIND = 2; // + side - 1: 0 none, 1 published
const END_I = 4; // + side - 1
const END_M = 6; // + side - 1
const END_LEN = 8; // + side - 1
const FRONT_SEQ = 16; // + side - 1: odd while the front is being written
const FRONT_COUNT = 18; // + side - 1
const FRONT_LEN = 20; // + side - 1
const HEADER_WORDS = 24;

const OPEN = 0, JOINED = 1, CLOSED = 2;

const HEADER_BYTES = HEADER_WORDS * 4;
const BYTES_AT = HEADER_BYTES; // one BigInt64: bytes read by both
const KEYS_AT = BYTES_AT + 8; // SLOTS BigInt64 keys
const OWNERS_AT = KEYS_AT + SLOTS * 8; // SLOTS Int32 owners
const PATHS_AT = OWNERS_AT + SLOTS * 4; // 4 × MAX_PATH Uint16: the published ends, then fronts
const SIZE = PATHS_AT + 4 * MAX_PATH * 2;

/** The shared memory of one two-thread search. */
export class SearchShare {
  readonly buffer: SharedArrayBuffer;
  readonly #words: Int32Array;
  readonly #bytes: BigInt64Array;
  readonly #keys: BigInt64Array;
  readonly #owners: Int32Array;
  readonly #paths: Uint16Array;
  /** Cached reads of the other side's end, once published. */
  readonly #ends: (WalkPosition | undefined)[] = [undefined, undefined, undefined];

  /** A new share, or a view of one received from the other thread. */
  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(SIZE)) {
    if (buffer.byteLength !== SIZE) throw new Error("not a search share");
    this.buffer = buffer;
    this.#words = new Int32Array(buffer, 0, HEADER_WORDS);
    this.#bytes = new BigInt64Array(buffer, BYTES_AT, 1);
    this.#keys = new BigInt64Array(buffer, KEYS_AT, SLOTS);
    this.#owners = new Int32Array(buffer, OWNERS_AT, SLOTS);
    this.#paths = new Uint16Array(buffer, PATHS_AT, 4 * MAX_PATH);
  }

  /** The helper, at its start: true when it may work (the primary has not finished first). */
  join(): boolean {
    return Atomics.compareExchange(this.#words, STATE, OPEN, JOINED) === OPEN;
  }

  /** The primary, at its end: true when the helper joined (its answer must be awaited). */
  close(): boolean {
    return Atomics.compareExchange(this.#words, STATE, OPEN, CLOSED) === JOINED;
  }

  /** Whether the helper joined (and so may own directories). */
  get joined(): boolean {
    return Atomics.load(this.#words, STATE) === JOINED;
  }

  /**
   * Who searches the directory at `dir` (relative to the root): the side
   * that claimed it first. When the table is full, the primary (both sides
   * agree, so no directory is searched twice or never).
   */
  claim(dir: string, side: Side): Side {
    const key = hash64(dir);
    let slot = Number(key & BigInt(SLOTS - 1));
    for (let probe = 0; probe < MAX_PROBES; probe++, slot = (slot + 1) & (SLOTS - 1)) {
      const seen = Atomics.compareExchange(this.#keys, slot, 0n, key);
      if (seen !== 0n && seen !== key) continue;
      const owner = Atomics.compareExchange(this.#owners, slot, 0, side);
      return owner === 0 ? side : owner as Side;
    }
    return PRIMARY;
  }

  /** Counts one searched file for both; returns the total so far. */
  countScanned(): number {
    return Atomics.add(this.#words, SCANNED, 1) + 1;
  }

  /** Counts one file walked by its owner, for the call's file cap; returns the total so far. */
  countWalked(): number {
    return Atomics.add(this.#words, WALKED, 1) + 1;
  }

  /**
   * Takes back `files` walked and `bytes` read: a batch of directories read again counts once
   * (ADR-139).
   */
  uncount(files: number, bytes: number): void {
    Atomics.sub(this.#words, WALKED, files);
    Atomics.sub(this.#bytes, 0, BigInt(bytes));
  }

  /** Adds `n` bytes read; returns the total before them. */
  addBytes(n: number): number {
    return Number(Atomics.add(this.#bytes, 0, BigInt(n)));
  }

  /**
   * Publishes where `side` stopped early; once. False when it was not published (already, or
   * a path too long for the slot: the other side then goes on to its own end, and the merge
   * cuts there all the same).
   */
  publishEnd(side: Side, position: WalkPosition): boolean {
    const i = side - 1;
    if (Atomics.load(this.#words, END_KIND + i) !== 0) return false;
    const f = position.f;
    if (f.length > MAX_PATH) return false;
    for (let k = 0; k < f.length; k++) this.#paths[i * MAX_PATH + k] = f.charCodeAt(k);
    Atomics.store(this.#words, END_LEN + i, f.length);
    Atomics.store(this.#words, END_I + i, position.i ? 1 : 0);
    Atomics.store(this.#words, END_M + i, position.m);
    Atomics.store(this.#words, END_KIND + i, 1);
    return true;
  }

  /**
   * Publishes `side`'s front (ADR-084): it has committed every result of the directories it
   * owns before the file `f` in walk order, `count` results in all (matches in content mode,
   * files otherwise), and none after `f`. A front stays true once published, so a reader that
   * sees an older one only decides later. A path too long for the slot is not published.
   */
  publishFront(side: Side, f: string, count: number): void {
    if (f.length > MAX_PATH) return;
    const i = side - 1;
    Atomics.add(this.#words, FRONT_SEQ + i, 1); // odd: being written
    const at = (2 + i) * MAX_PATH;
    // Atomic stores and loads of each unit (not plain ones): in one total order with the
    // sequence word, so a reader that saw any unit of a newer front also sees its odd sequence.
    for (let k = 0; k < f.length; k++) Atomics.store(this.#paths, at + k, f.charCodeAt(k));
    Atomics.store(this.#words, FRONT_LEN + i, f.length);
    Atomics.store(this.#words, FRONT_COUNT + i, count);
    Atomics.add(this.#words, FRONT_SEQ + i, 1); // even: whole
  }

  /** The count of `side`'s latest front (0 before any): a cheap test before reading its path. */
  frontCount(side: Side): number {
    return Atomics.load(this.#words, FRONT_COUNT + side - 1);
  }

  /**
   * The sequence word of `side`'s front (even when whole, odd while being written; 0 before
   * any): unchanged since a read, the front is the one read then, so a thread that tests the
   * other's front at every file reads its path only when it moved (ADR-106).
   */
  frontSeq(side: Side): number {
    return Atomics.load(this.#words, FRONT_SEQ + side - 1);
  }

  /** `side`'s latest front, or undefined when none is published or it is being written. */
  frontOf(side: Side): { f: string; count: number } | undefined {
    const i = side - 1;
    const seq = Atomics.load(this.#words, FRONT_SEQ + i);
    if (seq === 0 || (seq & 1) === 1) return undefined;
    const length = Atomics.load(this.#words, FRONT_LEN + i);
    const count = Atomics.load(this.#words, FRONT_COUNT + i);
    const at = (2 + i) * MAX_PATH;
    const units = new Uint16Array(length);
    for (let k = 0; k < length; k++) units[k] = Atomics.load(this.#paths, at + k);
    const f = stringOfUnits(units);
    // Written meanwhile: the copy may mix two fronts, so it says nothing.
    if (Atomics.load(this.#words, FRONT_SEQ + i) !== seq) return undefined;
    return { f, count };
  }

  /** Where `side` stopped early, once it published it. */
  endOf(side: Side): WalkPosition | undefined {
    const cached = this.#ends[side];
    if (cached) return cached;
    const i = side - 1;
    if (Atomics.load(this.#words, END_KIND + i) === 0) return undefined;
    const length = Atomics.load(this.#words, END_LEN + i);
    const f = stringOfUnits(this.#paths.subarray(i * MAX_PATH, i * MAX_PATH + length));
    const end = {
      f,
      i: Atomics.load(this.#words, END_I + i) === 1,
      m: Atomics.load(this.#words, END_M + i),
    };
    this.#ends[side] = end;
    return end;
  }
}

/**
 * Compares two files' paths (relative to the walk's start) in walk order:
 * in the first directory where they part, a file comes before a
 * subdirectory, then names by UTF-16 code unit (the walker's sort).
 */
export function compareWalkOrder(a: string, b: string): number {
  if (a === b) return 0;
  let i = 0;
  for (;;) {
    const ea = a.indexOf("/", i), eb = b.indexOf("/", i);
    const ca = ea < 0 ? a.slice(i) : a.slice(i, ea);
    const cb = eb < 0 ? b.slice(i) : b.slice(i, eb);
    if (ca !== cb || ea < 0 || eb < 0) {
      const fileA = ea < 0, fileB = eb < 0;
      if (fileA !== fileB) return fileA ? -1 : 1;
      return ca < cb ? -1 : ca > cb ? 1 : 0;
    }
    i = ea + 1;
  }
}

/** Orders two positions: by file, a continued file before a finished one, fewer matches first. */
export function comparePositions(a: WalkPosition, b: WalkPosition): number {
  const byFile = compareWalkOrder(a.f, b.f);
  if (byFile !== 0) return byFile;
  if (a.i !== b.i) return a.i ? -1 : 1;
  return a.m - b.m;
}

/** Two FNV-1a hashes of the path's UTF-16 units, as one non-zero 64-bit key. */
function hash64(s: string): bigint {
  let h1 = 0x811c9dc5, h2 = 0x050c5d1f;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x01000193) ^ (h2 >>> 15);
  }
  const key = (BigInt(h1 >>> 0) << 32n) | BigInt(h2 >>> 0);
  return key === 0n ? 1n : BigInt.asIntN(64, key);
}

/** The string of UTF-16 `units` (a published path), decoded in chunks a spread can take. */
function stringOfUnits(units: Uint16Array): string {
  let f = "";
  for (let k = 0; k < units.length; k += 1024) {
    f += String.fromCharCode(...units.subarray(k, k + 1024));
  }
  return f;
}
