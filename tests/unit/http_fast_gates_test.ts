/**
 * The HTTP gates' per-request shortcuts (ADR-074) decide exactly as the full
 * paths do: the `Host` check without a URL parse for plain loopback names
 * (DNS rebinding: odd spellings of a host must still be judged by the URL
 * parser), and the answer's outcome without a JSON parse when it holds no
 * error member (a refusal or error must never be recorded `ok`).
 */

import assert from "node:assert/strict";
import { checkHostAndOrigin, LOCALHOST_NAMES } from "../../src/transport/http_origin.ts";
import { inspectAnswer } from "../../src/transport/http.ts";
import { REFUSAL_META_KEY } from "../../src/contract/envelope.ts";

/** The Host decision by the URL parser alone (what every Host took before the shortcut). */
function byUrl(host: string, allowed: readonly string[]): boolean {
  try {
    const url = new URL(`http://${host}`);
    if (url.pathname !== "/" || url.username !== "" || url.search !== "") return false;
    const h = url.hostname.toLowerCase();
    const canon = h.includes(":") && !h.startsWith("[") ? `[${h}]` : h;
    return [...LOCALHOST_NAMES, ...allowed].includes(canon);
  } catch {
    return false;
  }
}

Deno.test("attack: DNS rebinding with odd Host spellings — the loopback shortcut agrees with the URL parser on every one", () => {
  const policy = { allowedHosts: ["mcp.example.internal"], allowedOrigins: [] };
  const hosts = [
    "localhost",
    "localhost:8080",
    "127.0.0.1",
    "127.0.0.1:65535",
    "127.0.0.1:65536",
    "127.0.0.1:99999",
    "127.0.0.1:0080",
    "127.0.0.1:",
    "[::1]",
    "[::1]:3000",
    "[::1]:70000",
    "LOCALHOST",
    "localhost.",
    "localhost.evil.com",
    "evil.com",
    "evil.com:80",
    "localhost@evil.com",
    "user@localhost",
    "localhost/x",
    "localhost?x",
    "localhost#x",
    "127.0.0.1.nip.io",
    "127.1",
    "0x7f.0.0.1",
    "::1",
    "mcp.example.internal",
    "mcp.example.internal:443",
    " localhost",
    "localhost ",
  ];
  for (const host of hosts) {
    const headers = new Headers({ host }); // as a request holds it (trimmed)
    const check = checkHostAndOrigin(headers, policy);
    const expected = byUrl(headers.get("host")!, policy.allowedHosts);
    assert.equal(check.ok, expected, `Host: ${JSON.stringify(host)}`);
  }
  // The policy's names are built once per policy: a second policy is not answered from the first.
  const other = { allowedHosts: ["other.internal"], allowedOrigins: [] };
  assert.equal(checkHostAndOrigin(new Headers({ host: "other.internal" }), other).ok, true);
  assert.equal(checkHostAndOrigin(new Headers({ host: "other.internal" }), policy).ok, false);
});

Deno.test("inspectAnswer: answers without an error member are ok unparsed; every error or refusal is still found", () => {
  const ok = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    result: {
      content: [{ type: "text", text: 'file text with "error":{ and "isError":true inside' }],
      structuredContent: { content: '{"error":{"code":1}}' },
    },
  });
  assert.deepEqual(inspectAnswer(ok), { outcome: "ok" });
  const error = JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "x" } });
  assert.deepEqual(inspectAnswer(error), { outcome: "error", errorCode: -32602 });
  const refused = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    result: {
      isError: true,
      content: [{ type: "text", text: "Refused (denied_path): …" }],
      _meta: { [REFUSAL_META_KEY]: { error: "denied_path", remedy: "r" } },
    },
  });
  assert.deepEqual(inspectAnswer(refused), { outcome: "refused", errorCode: "denied_path" });
  // A member named `error` deeper in a result is no JSON-RPC error: parsed, and still ok.
  const nested = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    result: { structuredContent: { error: 1 } },
  });
  assert.deepEqual(inspectAnswer(nested), { outcome: "ok" });
});
