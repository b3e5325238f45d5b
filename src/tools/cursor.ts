/**
 * Pagination cursors the server can check: an HMAC-signed payload, keyed by
 * a random key made at start. A forged cursor fails its signature; a stale
 * one (the directory changed since) fails its fingerprint. Either is a
 * JSON-RPC -32602, never a silent wrong page. No state is kept per cursor.
 *
 * @module
 */

import type { RawInvalidParams } from "../contract/result.ts";

/** Thrown when a cursor is forged, malformed, or no longer valid. */
export class InvalidCursor extends Error {
  override name = "InvalidCursor";
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** What {@linkcode CursorCodec.open} gives a tool. */
export type OpenedCursor =
  | { readonly ok: true; readonly payload: unknown }
  | { readonly ok: false; readonly result: RawInvalidParams };

/** Signs and verifies cursor payloads with one key. */
export class CursorCodec {
  readonly #key: Promise<CryptoKey>;

  /** `keyBytes`: at least 32 random bytes, made once per server start. */
  constructor(keyBytes: Uint8Array) {
    if (keyBytes.length < 32) throw new RangeError("cursor key must be at least 32 bytes");
    this.#key = crypto.subtle.importKey(
      "raw",
      keyBytes as Uint8Array<ArrayBuffer>,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
  }

  /** Encodes and signs `payload` (any JSON value) as an opaque string. */
  async sign(payload: unknown): Promise<string> {
    const body = encoder.encode(JSON.stringify(payload));
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await this.#key, body));
    return toBase64Url(body) + "." + toBase64Url(mac);
  }

  /**
   * A client's cursor opened for a tool: its payload, or the `invalid_params`
   * result (a JSON-RPC -32602) a tool returns for a forged or malformed one.
   */
  async open(cursor: string): Promise<OpenedCursor> {
    try {
      return { ok: true, payload: await this.verify(cursor) };
    } catch (error) {
      if (!(error instanceof InvalidCursor)) throw error;
      return {
        ok: false,
        result: { kind: "invalid_params", message: `Invalid cursor: ${error.message}.` },
      };
    }
  }

  /** Returns the payload of a cursor this codec signed, or throws {@linkcode InvalidCursor}. */
  async verify(cursor: string): Promise<unknown> {
    const parts = cursor.split(".");
    if (parts.length !== 2) throw new InvalidCursor("malformed cursor");
    let body: Uint8Array, mac: Uint8Array;
    try {
      body = fromBase64Url(parts[0]);
      mac = fromBase64Url(parts[1]);
    } catch {
      throw new InvalidCursor("malformed cursor");
    }
    const ok = await crypto.subtle.verify(
      "HMAC",
      await this.#key,
      mac as Uint8Array<ArrayBuffer>,
      body as Uint8Array<ArrayBuffer>,
    );
    if (!ok) throw new InvalidCursor("cursor signature does not match");
    try {
      return JSON.parse(decoder.decode(body));
    } catch {
      throw new InvalidCursor("malformed cursor");
    }
  }
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new InvalidCursor("malformed cursor");
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
