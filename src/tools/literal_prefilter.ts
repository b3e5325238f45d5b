/**
 * A WebAssembly SIMD pass that tells, from a file's bytes alone, whether the
 * file holds a NUL byte (binary: skipped and counted), holds an ASCII literal
 * (the file must be searched), or neither (nothing to find: no string is made
 * of it). `search_code` had made a latin1 string of every file, looked for a
 * NUL in it and then for the literal, two passes and a copy of ~1.2 GB on the
 * Linux tree, most of which held neither (ADR-103).
 *
 * The pass is Muła's "generic SIMD" substring search: for each 16 bytes at
 * `i`, compare them with the literal's first byte and the 16 bytes at
 * `i + k - 1` with its last byte (`i8x16.eq`), and each position where both
 * agree (`i8x16.bitmask`, `i32.ctz`) is verified byte by byte; the same
 * 16 bytes are compared with 0 for the NUL. A case-insensitive literal
 * compares `byte | mask` with its lower-case bytes, the mask `0x20` on its
 * letters: on a latin1 text that is exactly what `toLowerCase()` and
 * `indexOf` of the lowered literal find (only `A`–`Z` lower to ASCII letters
 * in latin1, and no ASCII character is the lower case of another). The
 * answer only decides whether the file goes on to the unchanged path (latin1
 * string, NUL check, `searchText`), so a file's results are what they were.
 *
 * The module is written by `./wasm_encoder.ts` from the instructions below;
 * the walker reads straight into its memory ({@linkcode LiteralPrefilter.buffer}).
 *
 * @module
 */

import { encodeModule, I32, op, V128 } from "./wasm_encoder.ts";

/** What {@linkcode LiteralPrefilter.scan} found. */
export const NONE = 0, FOUND = 1, BINARY = 2;
export type PrefilterAnswer = typeof NONE | typeof FOUND | typeof BINARY;

/** The longest literal the pass takes (the tool's pattern limit, in ASCII bytes). */
export const MAX_LITERAL_BYTES = 512;
/** Memory layout: the literal's bytes, then their masks, then the text. */
const VALUES = 0;
const MASKS = MAX_LITERAL_BYTES;
export const TEXT_OFFSET = 2 * MAX_LITERAL_BYTES;
const PAGE = 65_536;
/** The most text the memory is made for at first; a larger cap grows it when a file needs it. */
const INITIAL_TEXT = 1024 * 1024 + 1;

// Locals of `scan(n, k)`.
const N = 0, K = 1, I = 2, BITS = 3, POS = 4, J = 5, LAST = 6;
const VF = 7, MF = 8, VL = 9, ML = 10, ZERO = 11, A = 12, NUL = 13, HIT = 14;

/** Returns 1 from `scan` when the literal lies at `POS`; falls through otherwise. */
function verify(): number[][] {
  return [
    op.i32Const(0),
    op.localSet(J),
    op.block(),
    op.loop(),
    // Every byte agreed: found.
    op.localGet(J),
    op.localGet(K),
    op.i32LtU(),
    op.i32Eqz(),
    op.if(),
    op.i32Const(FOUND),
    op.return(),
    op.end(),
    // (text[pos + j] | mask[j]) != value[j]: not here.
    op.localGet(POS),
    op.localGet(J),
    op.i32Add(),
    op.i32Load8U(TEXT_OFFSET),
    op.localGet(J),
    op.i32Load8U(MASKS),
    op.i32Or(),
    op.localGet(J),
    op.i32Load8U(VALUES),
    op.i32Ne(),
    op.brIf(1),
    op.localGet(J),
    op.i32Const(1),
    op.i32Add(),
    op.localSet(J),
    op.br(0),
    op.end(),
    op.end(),
  ];
}

/** `scan(n, k)`: 2 at the first NUL, 1 at the first match of the k-byte literal, else 0. */
function scanBody(): number[][] {
  return [
    // The first and last bytes of the literal and their masks, in every lane.
    op.i32Const(0),
    op.i32Load8U(VALUES),
    op.i8x16Splat(),
    op.localSet(VF),
    op.i32Const(0),
    op.i32Load8U(MASKS),
    op.i8x16Splat(),
    op.localSet(MF),
    op.localGet(K),
    op.i32Const(1),
    op.i32Sub(),
    op.localTee(LAST),
    op.i32Load8U(VALUES),
    op.i8x16Splat(),
    op.localSet(VL),
    op.localGet(LAST),
    op.i32Load8U(MASKS),
    op.i8x16Splat(),
    op.localSet(ML),
    op.i32Const(0),
    op.i8x16Splat(),
    op.localSet(ZERO),
    op.i32Const(0),
    op.localSet(I),
    // 16 positions at a time while both loads stay inside the text.
    op.block(),
    op.loop(),
    op.localGet(I),
    op.localGet(LAST),
    op.i32Add(),
    op.i32Const(16),
    op.i32Add(),
    op.localGet(N),
    op.i32GtU(),
    op.brIf(1),
    op.localGet(I),
    op.v128Load(TEXT_OFFSET),
    op.localTee(A),
    op.localGet(ZERO),
    op.i8x16Eq(),
    op.localSet(NUL),
    op.localGet(A),
    op.localGet(MF),
    op.v128Or(),
    op.localGet(VF),
    op.i8x16Eq(),
    op.localGet(I),
    op.localGet(LAST),
    op.i32Add(),
    op.v128Load(TEXT_OFFSET),
    op.localGet(ML),
    op.v128Or(),
    op.localGet(VL),
    op.i8x16Eq(),
    op.v128And(),
    op.localTee(HIT),
    op.localGet(NUL),
    op.v128Or(),
    op.v128AnyTrue(),
    op.if(),
    op.localGet(NUL),
    op.v128AnyTrue(),
    op.if(),
    op.i32Const(BINARY),
    op.return(),
    op.end(),
    op.localGet(HIT),
    op.i8x16Bitmask(),
    op.localSet(BITS),
    op.block(),
    op.loop(),
    op.localGet(BITS),
    op.i32Eqz(),
    op.brIf(1),
    op.localGet(I),
    op.localGet(BITS),
    op.i32Ctz(),
    op.i32Add(),
    op.localSet(POS),
    ...verify(),
    op.localGet(BITS),
    op.localGet(BITS),
    op.i32Const(1),
    op.i32Sub(),
    op.i32And(),
    op.localSet(BITS),
    op.br(0),
    op.end(),
    op.end(),
    op.end(),
    op.localGet(I),
    op.i32Const(16),
    op.i32Add(),
    op.localSet(I),
    op.br(0),
    op.end(),
    op.end(),
    // The rest one byte at a time: the NUL check to the end, candidates while k bytes remain.
    op.block(),
    op.loop(),
    op.localGet(I),
    op.localGet(N),
    op.i32LtU(),
    op.i32Eqz(),
    op.brIf(1),
    op.localGet(I),
    op.i32Load8U(TEXT_OFFSET),
    op.i32Eqz(),
    op.if(),
    op.i32Const(BINARY),
    op.return(),
    op.end(),
    op.localGet(I),
    op.localGet(LAST),
    op.i32Add(),
    op.localGet(N),
    op.i32LtU(),
    op.if(),
    op.localGet(I),
    op.localSet(POS),
    ...verify(),
    op.end(),
    op.localGet(I),
    op.i32Const(1),
    op.i32Add(),
    op.localSet(I),
    op.br(0),
    op.end(),
    op.end(),
    op.i32Const(NONE),
  ];
}

/** The module's bytes (exported for the tests, which check them against a plain reading). */
export function prefilterModuleBytes(): Uint8Array {
  return encodeModule(1, [{
    name: "scan",
    params: [I32, I32],
    results: [I32],
    locals: [I32, I32, I32, I32, I32, V128, V128, V128, V128, V128, V128, V128, V128],
    body: scanBody(),
  }]);
}

let compiled: WebAssembly.Module | undefined;

/** Whether the literal can be prefiltered: 1 to 512 ASCII characters. */
export function prefilterable(literal: string): boolean {
  if (literal.length < 1 || literal.length > MAX_LITERAL_BYTES) return false;
  for (let i = 0; i < literal.length; i++) if (literal.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * One thread's prefilter for one literal: its own memory, into which the walker reads
 * ({@linkcode buffer}); not shared between calls or threads.
 */
export class LiteralPrefilter {
  readonly #memory: WebAssembly.Memory;
  readonly #scan: (n: number, k: number) => number;
  readonly #k: number;
  /** The text area of the memory, `maxFileBytes + 1` long (1 MiB + 1 at most): read files here. */
  readonly buffer: Uint8Array;

  /**
   * `literal`: ASCII ({@linkcode prefilterable}); with `fold`, already lower-cased, and its
   * letters match either case.
   */
  constructor(literal: string, fold: boolean, maxFileBytes: number) {
    if (!prefilterable(literal)) throw new RangeError("not a prefilterable literal");
    if (fold && literal !== literal.toLowerCase()) throw new RangeError("fold needs lower case");
    compiled ??= new WebAssembly.Module(prefilterModuleBytes() as Uint8Array<ArrayBuffer>);
    const room = Math.min(maxFileBytes + 1, INITIAL_TEXT);
    this.#memory = new WebAssembly.Memory({ initial: Math.ceil((TEXT_OFFSET + room) / PAGE) });
    const instance = new WebAssembly.Instance(compiled, { env: { memory: this.#memory } });
    this.#scan = instance.exports.scan as (n: number, k: number) => number;
    this.#k = literal.length;
    const head = new Uint8Array(this.#memory.buffer, 0, TEXT_OFFSET);
    for (let j = 0; j < literal.length; j++) {
      const c = literal.charCodeAt(j);
      head[VALUES + j] = c;
      head[MASKS + j] = fold && c >= 0x61 && c <= 0x7a ? 0x20 : 0;
    }
    this.buffer = new Uint8Array(this.#memory.buffer, TEXT_OFFSET, room);
  }

  /**
   * What the bytes hold: {@linkcode BINARY} if any is 0 (before or after a match),
   * {@linkcode FOUND} if the literal is there and no NUL comes before it, else
   * {@linkcode NONE}. Bytes outside {@linkcode buffer} are copied into the memory first.
   */
  scan(bytes: Uint8Array): PrefilterAnswer {
    const n = bytes.length;
    if (bytes.buffer !== this.#memory.buffer || bytes.byteOffset !== TEXT_OFFSET) {
      const need = TEXT_OFFSET + n - this.#memory.buffer.byteLength;
      // Only bytes larger than `buffer` (never the walker's view of it) make the memory grow.
      if (need > 0) this.#memory.grow(Math.ceil(need / PAGE));
      new Uint8Array(this.#memory.buffer, TEXT_OFFSET, n).set(bytes);
    }
    return this.#scan(n, this.#k) as PrefilterAnswer;
  }

  /** {@linkcode scan} of the first `n` bytes of {@linkcode buffer}, read there already. */
  scanInPlace(n: number): PrefilterAnswer {
    if (n > this.buffer.length) throw new RangeError("more bytes than the buffer holds");
    return this.#scan(n, this.#k) as PrefilterAnswer;
  }
}
