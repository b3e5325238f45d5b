/**
 * The optional bearer token of HTTP mode: `Authorization: Bearer <token>`
 * compared in constant time (both sides hashed to 32 bytes first, so
 * neither the length nor a common prefix shows in the timing), and the 401
 * answer with `WWW-Authenticate: Bearer`.
 *
 * @module
 */

import { createHash, timingSafeEqual } from "node:crypto";

/** Why a request failed authentication, or that it passed. */
export type AuthCheck = { readonly ok: true } | {
  readonly ok: false;
  /** `missing_token` (no or a non-Bearer `Authorization`) or `invalid_token`. */
  readonly code: "missing_token" | "invalid_token";
};

const digest = (text: string): Uint8Array => createHash("sha256").update(text, "utf8").digest();

/** Checks a request's `Authorization` header against `token`, in constant time. */
export class BearerCheck {
  readonly #expected: Uint8Array;

  constructor(token: string) {
    this.#expected = digest(token);
  }

  /** Whether `headers` carry the token. Pure apart from the hashing. */
  check(headers: Headers): AuthCheck {
    const header = headers.get("authorization");
    const match = header === null ? null : /^Bearer +(\S+) *$/i.exec(header);
    if (match === null) return { ok: false, code: "missing_token" };
    return timingSafeEqual(digest(match[1]), this.#expected)
      ? { ok: true }
      : { ok: false, code: "invalid_token" };
  }
}

/** The 401 answer: a JSON-RPC error and the `WWW-Authenticate` challenge (RFC 6750). */
export function authRefusal(check: Extract<AuthCheck, { ok: false }>): Response {
  const challenge = check.code === "invalid_token"
    ? 'Bearer realm="devserver", error="invalid_token"'
    : 'Bearer realm="devserver"';
  return Response.json(
    {
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32001,
        message: check.code === "invalid_token"
          ? "Unauthorized: the bearer token is not the one this server was given."
          : "Unauthorized: send Authorization: Bearer <token> (the server's MCP_HTTP__BEARER_TOKEN).",
      },
    },
    { status: 401, headers: { "WWW-Authenticate": challenge } },
  );
}
