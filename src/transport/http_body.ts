/**
 * Reading a request body under two limits: a size (refused from
 * `Content-Length` before a byte is read, and counted while streaming, so an
 * over-size body is never held whole) and a deadline (a client that stalls
 * or trickles its body, slowloris-style, is cut off). The bytes read are at
 * most the limit.
 *
 * The deadline is watched by one {@linkcode DeadlineSweep} per server (a
 * coarse sweep while bodies are pending), not by a timer per request, and a
 * small body is read in one chunk without releasing the reader's lock: both
 * cost more per request than the read itself (ADR-080).
 *
 * @module
 */

import { DeadlineSweep } from "./deadline.ts";

/** The outcome of reading a body. */
export type BodyRead =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly status: 413 | 408 | 400; readonly code: string };

/** Limits of {@linkcode readBody}. */
export interface BodyLimits {
  /** Most bytes accepted. */
  readonly maxBytes: number;
  /** Most milliseconds the whole body may take to arrive. */
  readonly timeoutMs: number;
}

const EMPTY = { ok: true, bytes: new Uint8Array(0) } as const;

/**
 * Reads `request`'s body within `limits`; never reads more than `maxBytes` + one chunk.
 * `deadlines` watches the time limit (a fresh sweep per call when not given).
 */
export async function readBody(
  request: Request,
  limits: BodyLimits,
  deadlines: DeadlineSweep = DeadlineSweep.forTimeout(limits.timeoutMs),
): Promise<BodyRead> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    if (!/^\d+$/.test(declared.trim())) return { ok: false, status: 400, code: "bad_length" };
    if (Number(declared) > limits.maxBytes) {
      return { ok: false, status: 413, code: "body_too_large" };
    }
  }
  if (request.body === null) return EMPTY;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  // At the deadline the reader is cancelled, which ends the pending read, and the body is
  // refused as late.
  let late = false;
  const watched = deadlines.watch(limits.timeoutMs, () => {
    late = true;
    reader.cancel().catch(() => {});
  });
  try {
    while (true) {
      const next = await reader.read();
      if (late) return { ok: false, status: 408, code: "body_timeout" };
      if (next.done) break;
      size += next.value.byteLength;
      if (size > limits.maxBytes) {
        reader.cancel().catch(() => {});
        return { ok: false, status: 413, code: "body_too_large" };
      }
      chunks.push(next.value);
    }
  } catch {
    if (late) return { ok: false, status: 408, code: "body_timeout" };
    // The client went away mid-body.
    return { ok: false, status: 400, code: "body_aborted" };
  } finally {
    deadlines.done(watched);
    // The lock is not released: the stream is done or cancelled, nobody reads it after us, and
    // releasing it costs a TypeError (with its stack) per request.
  }
  if (chunks.length === 1) return { ok: true, bytes: chunks[0] };
  if (chunks.length === 0) return EMPTY;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { ok: true, bytes };
}
