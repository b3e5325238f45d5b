/**
 * The DNS-rebinding defence of HTTP mode: the `Host` header and the
 * `Origin` header checked against allowlists before anything else looks at
 * a request. The SDK's `createMcpHandler` validates neither (its own
 * documentation says so), and a browser page on any site can make a request
 * to a loopback port once a rebinding DNS name points there.
 *
 * The check is a pure function returning a result (the shape of the SDK's
 * `hostHeaderValidation.ts`); the 403 response is built apart, by
 * {@linkcode originRefusal}, and never echoes a header unescaped.
 *
 * @module
 */

import { quoteName } from "../contract/text.ts";

/** The host names accepted in `Host` and `Origin` on every server: loopback only. */
export const LOCALHOST_NAMES: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/** What a server accepts, beyond {@linkcode LOCALHOST_NAMES}. */
export interface OriginPolicy {
  /** Extra host names (lower-case, no port; IPv6 in brackets or not). */
  readonly allowedHosts: readonly string[];
  /** Extra origins, normalised (`scheme://host[:port]`, as `URL.origin` writes them). */
  readonly allowedOrigins: readonly string[];
}

/** Why a request was refused: which header, and the stable code for logs and metrics. */
export type OriginCheck =
  | { readonly ok: true }
  | {
    readonly ok: false;
    /** `missing_host`, `invalid_host_header`, `invalid_host`, `invalid_origin_header`, `invalid_origin`. */
    readonly code: string;
    /** The header refused. */
    readonly header: "Host" | "Origin";
    /** What was refused, as it may stand in a message (escaped, cut, quoted), if anything. */
    readonly value?: string;
  };

/** The longest a refused header value is quoted in a 403 body, in characters. */
const MAX_QUOTED_HEADER = 100;

/** `[::1]` and `::1` are the same host; compare bracketed. */
function canonicalHost(hostname: string): string {
  const h = hostname.toLowerCase();
  return h.includes(":") && !h.startsWith("[") ? `[${h}]` : h;
}

/** The host names each policy accepts, built once per policy rather than per request. */
const ALLOWED_HOSTS = new WeakMap<OriginPolicy, ReadonlySet<string>>();

function allowedHosts(policy: OriginPolicy): ReadonlySet<string> {
  let allowed = ALLOWED_HOSTS.get(policy);
  if (allowed === undefined) {
    allowed = new Set([...LOCALHOST_NAMES, ...policy.allowedHosts.map(canonicalHost)]);
    ALLOWED_HOSTS.set(policy, allowed);
  }
  return allowed;
}

/**
 * `Host` values that are a loopback name exactly as `URL` would give it back, with an
 * optional port in range: their host name is known without parsing a URL. Anything else
 * (case, other names, odd ports) takes the full parse.
 */
const PLAIN_LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(?::([0-9]{1,5}))?$/;

/** Checks `Host` and then `Origin` of `headers` against `policy`. Pure. */
export function checkHostAndOrigin(headers: Headers, policy: OriginPolicy): OriginCheck {
  const allowed = allowedHosts(policy);
  const hostHeader = headers.get("host");
  if (hostHeader === null || hostHeader === "") {
    return { ok: false, code: "missing_host", header: "Host" };
  }
  let hostname: string;
  const plain = PLAIN_LOOPBACK_HOST.exec(hostHeader);
  if (plain !== null && (plain[2] === undefined || Number(plain[2]) <= 65535)) {
    hostname = plain[1];
  } else {
    try {
      const url = new URL(`http://${hostHeader}`);
      // `Host: a/b` or `Host: user@x` parse as URLs with more than a host in them.
      if (url.pathname !== "/" || url.username !== "" || url.search !== "") throw new Error();
      hostname = url.hostname;
    } catch {
      return {
        ok: false,
        code: "invalid_host_header",
        header: "Host",
        value: quoteName(hostHeader, MAX_QUOTED_HEADER),
      };
    }
  }
  if (!allowed.has(canonicalHost(hostname))) {
    return {
      ok: false,
      code: "invalid_host",
      header: "Host",
      value: quoteName(hostname, MAX_QUOTED_HEADER),
    };
  }
  const origin = headers.get("origin");
  // Non-browser clients send no Origin; only browsers, which this check defends against, do.
  if (origin === null || origin === "") return { ok: true };
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return {
      ok: false,
      code: "invalid_origin_header",
      header: "Origin",
      value: quoteName(origin, MAX_QUOTED_HEADER),
    };
  }
  if (url.hostname === "" || url.origin === "null") {
    return {
      ok: false,
      code: "invalid_origin_header",
      header: "Origin",
      value: quoteName(origin, MAX_QUOTED_HEADER),
    };
  }
  const web = url.protocol === "http:" || url.protocol === "https:";
  if (web && LOCALHOST_NAMES.includes(canonicalHost(url.hostname))) return { ok: true };
  if (policy.allowedOrigins.includes(url.origin)) return { ok: true };
  return {
    ok: false,
    code: "invalid_origin",
    header: "Origin",
    value: quoteName(url.origin === "null" ? origin : url.origin, MAX_QUOTED_HEADER),
  };
}

/** The 403 answer to a refused check: a JSON-RPC error naming the header and what it held. */
export function originRefusal(check: Extract<OriginCheck, { ok: false }>): Response {
  const what = check.value === undefined ? "is missing" : `${check.value} is not allowed`;
  const remedy = check.header === "Host"
    ? "add the host name to MCP_HTTP__ALLOWED_HOSTS"
    : "add the origin to MCP_HTTP__ALLOWED_ORIGINS";
  return Response.json(
    {
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message: `Forbidden: the ${check.header} header ${what}; ${remedy} to accept it.`,
        data: { refused: check.header, reason: check.code },
      },
    },
    { status: 403 },
  );
}
