/**
 * A small typed encoder of WebAssembly modules: just what the literal
 * prefilter (`./literal_prefilter.ts`) needs — one imported memory, functions
 * of `i32` parameters, structured control flow, `i32` arithmetic and loads,
 * and the handful of 128-bit SIMD instructions it uses. The module's bytes
 * are written here from readable instructions at start-up, so the repository
 * holds no opaque binary and needs no build step (ADR-103).
 *
 * Each instruction is a function returning its bytes; a function body is the
 * concatenation of them. Opcodes are the WebAssembly 2.0 core specification's
 * (section 5.4) and the SIMD proposal's (`0xfd` prefix, LEB128 sub-opcode).
 *
 * @module
 */

/** Value types (spec 5.3.1). */
export const I32 = 0x7f;
export const V128 = 0x7b;
/** The empty block type. */
const EMPTY = 0x40;

/** Unsigned LEB128. */
export function uleb(value: number): number[] {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`uleb: ${value}`);
  const out: number[] = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

/** Signed LEB128 of a 32-bit integer. */
export function sleb(value: number): number[] {
  if (!Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 31) {
    throw new RangeError(`sleb: ${value}`);
  }
  const out: number[] = [];
  while (true) {
    const byte = value & 0x7f;
    value >>= 7;
    const done = (value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

/** A name or byte string: its length, then its bytes. */
function vec(bytes: readonly number[]): number[] {
  return [...uleb(bytes.length), ...bytes];
}

function name(text: string): number[] {
  return vec([...new TextEncoder().encode(text)]);
}

function section(id: number, body: readonly number[]): number[] {
  return [id, ...vec(body)];
}

/** The instructions (spec 5.4). */
export const op = {
  block: (): number[] => [0x02, EMPTY],
  loop: (): number[] => [0x03, EMPTY],
  if: (): number[] => [0x04, EMPTY],
  end: (): number[] => [0x0b],
  br: (depth: number): number[] => [0x0c, ...uleb(depth)],
  brIf: (depth: number): number[] => [0x0d, ...uleb(depth)],
  return: (): number[] => [0x0f],
  localGet: (i: number): number[] => [0x20, ...uleb(i)],
  localSet: (i: number): number[] => [0x21, ...uleb(i)],
  localTee: (i: number): number[] => [0x22, ...uleb(i)],
  /** `i32.load8_u` with a static offset (alignment 1). */
  i32Load8U: (offset = 0): number[] => [0x2d, 0x00, ...uleb(offset)],
  i32Const: (value: number): number[] => [0x41, ...sleb(value)],
  i32Eqz: (): number[] => [0x45],
  i32Ne: (): number[] => [0x47],
  i32LtU: (): number[] => [0x49],
  i32GtU: (): number[] => [0x4b],
  i32Ctz: (): number[] => [0x68],
  i32Add: (): number[] => [0x6a],
  i32Sub: (): number[] => [0x6b],
  i32And: (): number[] => [0x71],
  i32Or: (): number[] => [0x72],
  /** `v128.load` with a static offset (alignment 1: the text is read at every offset). */
  v128Load: (offset = 0): number[] => [0xfd, ...uleb(0x00), 0x00, ...uleb(offset)],
  i8x16Splat: (): number[] => [0xfd, ...uleb(0x0f)],
  i8x16Eq: (): number[] => [0xfd, ...uleb(0x23)],
  v128And: (): number[] => [0xfd, ...uleb(0x4e)],
  v128Or: (): number[] => [0xfd, ...uleb(0x50)],
  v128AnyTrue: (): number[] => [0xfd, ...uleb(0x53)],
  i8x16Bitmask: (): number[] => [0xfd, ...uleb(0x64)],
} as const;

/** One exported function: its parameter and result types, extra locals, and body. */
export interface FunctionSpec {
  readonly name: string;
  readonly params: readonly number[];
  readonly results: readonly number[];
  /** The locals after the parameters, by type, in order. */
  readonly locals: readonly number[];
  /** The instructions, without the final `end`. */
  readonly body: readonly (readonly number[])[];
}

/**
 * A module importing one memory (`env.memory`, at least `minPages` of 64 KiB) and exporting
 * the given functions.
 */
export function encodeModule(minPages: number, functions: readonly FunctionSpec[]): Uint8Array {
  const types = functions.map((f) => [0x60, ...vec([...f.params]), ...vec([...f.results])]);
  const typeSection = section(0x01, [...uleb(types.length), ...types.flat()]);
  // The memory import: no maximum (flag 0), so the host may grow it.
  const importSection = section(0x02, [
    ...uleb(1),
    ...name("env"),
    ...name("memory"),
    0x02,
    0x00,
    ...uleb(minPages),
  ]);
  const functionSection = section(0x03, [
    ...uleb(functions.length),
    ...functions.flatMap((_, i) => uleb(i)),
  ]);
  const exportSection = section(0x07, [
    ...uleb(functions.length),
    ...functions.flatMap((f, i) => [...name(f.name), 0x00, ...uleb(i)]),
  ]);
  const bodies = functions.map((f) => {
    // Runs of equal types, as the code section groups locals.
    const groups: number[] = [];
    let count = 0;
    for (let i = 0; i < f.locals.length; i++) {
      count++;
      if (i + 1 === f.locals.length || f.locals[i + 1] !== f.locals[i]) {
        groups.push(...uleb(count), f.locals[i]);
        count = 0;
      }
    }
    const runs = f.locals.length === 0
      ? 0
      : f.locals.filter((t, i) => i === 0 || f.locals[i - 1] !== t).length;
    return vec([...uleb(runs), ...groups, ...f.body.flat(), 0x0b]);
  });
  const codeSection = section(0x0a, [...uleb(bodies.length), ...bodies.flat()]);
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d, // "\0asm"
    0x01,
    0x00,
    0x00,
    0x00, // version 1
    ...typeSection,
    ...importSection,
    ...functionSection,
    ...exportSection,
    ...codeSection,
  ]);
}
