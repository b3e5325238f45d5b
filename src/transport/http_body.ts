/**
 * Reading a request body under two limits: a size (refused from
 * `Content-Length` before a byte is read, and counted while streaming, so an
 * over-size body is never held whole) and a deadline (a client that stalls
 * or trickles its body, slowloris-style, is cut off). The bytes read are at
 * most the limit.
 *
 * @module
 */

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

/** Reads `request`'s body within `limits`; never reads more than `maxBytes` + one chunk. */
export async function readBody(request: Request, limits: BodyLimits): Promise<BodyRead> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    if (!/^\d+$/.test(declared.trim())) return { ok: false, status: 400, code: "bad_length" };
    if (Number(declared) > limits.maxBytes) {
      return { ok: false, status: 413, code: "body_too_large" };
    }
  }
  if (request.body === null) return { ok: true, bytes: new Uint8Array(0) };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  // One timer for the whole body (not one per chunk): at the deadline the reader is
  // cancelled, which ends the pending read, and the body is refused as late.
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    reader.cancel().catch(() => {});
  }, limits.timeoutMs);
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
    clearTimeout(timer);
    reader.releaseLock();
  }
  if (chunks.length === 1) return { ok: true, bytes: chunks[0] };
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { ok: true, bytes };
}
