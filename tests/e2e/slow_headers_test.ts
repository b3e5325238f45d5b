/**
 * Slowloris on the request headers (ADR-075). devserver bounds a request's
 * body in time (408 at `MCP_HTTP__REQUEST_TIMEOUT_MS`), but its handler runs
 * only once the headers are complete, and Deno.serve 2.9.6 has no header
 * timeout of its own: a client that sends its headers byte by byte, or
 * stops half-way, holds its connection for as long as it likes. The first
 * test pins that gap on the real program (so the day Deno bounds headers,
 * it fails and the docs get updated); the second proves the mitigation
 * docs/operations.md prescribes: nginx in front with `client_header_timeout`
 * cuts such a client off, while normal requests pass.
 *
 * nginx is required, as for the load-balancer test (`.ci/run` installs it).
 */

import assert from "node:assert/strict";
import { nginxBinary, startNginx } from "../../scripts/lib/nginx.ts";
import { makeWorkspace } from "../helpers/fixtures.ts";
import { modernBody, modernHeaders, startHttpChild } from "../helpers/http.ts";

/**
 * Opens a TCP connection to `url`'s host and port, sends the start of a request whose
 * headers never end (one more header byte every `trickleMs`, or none when 0), and
 * resolves with how many milliseconds passed until the peer closed or answered, or
 * `undefined` if it had not within `watchMs`.
 */
async function slowHeaders(
  url: string,
  trickleMs: number,
  watchMs: number,
): Promise<{ closedAfterMs?: number; answer: string }> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const encoder = new TextEncoder();
  const started = performance.now();
  await conn.write(encoder.encode(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `));
  let closedAfterMs: number | undefined;
  let answer = "";
  const reading = (async () => {
    const buffer = new Uint8Array(4096);
    try {
      const n = await conn.read(buffer);
      if (n !== null) answer = new TextDecoder().decode(buffer.subarray(0, n));
    } catch { /* reset: closed too */ }
    closedAfterMs = performance.now() - started;
  })();
  while (closedAfterMs === undefined && performance.now() - started < watchMs) {
    await new Promise((r) => setTimeout(r, trickleMs || 100));
    if (trickleMs > 0 && closedAfterMs === undefined) {
      await conn.write(encoder.encode("a")).catch(() => {});
    }
  }
  try {
    conn.close();
  } catch { /* already closed */ }
  await reading;
  return {
    closedAfterMs: closedAfterMs !== undefined && closedAfterMs < watchMs
      ? closedAfterMs
      : undefined,
    answer,
  };
}

/** A stalled body on the same server, for comparison: answered 408 at the request timeout. */
async function stalledBody(url: string, watchMs: number): Promise<number | undefined> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const started = performance.now();
  const head = Object.entries({ ...modernHeaders("tools/list"), Host: "127.0.0.1" })
    .map(([k, v]) => `${k}: ${v}\r\n`).join("");
  await conn.write(
    new TextEncoder().encode(`POST /mcp HTTP/1.1\r\n${head}Content-Length: 500\r\n\r\n{"jsonrpc"`),
  );
  const buffer = new Uint8Array(4096);
  const timer = setTimeout(() => conn.close(), watchMs);
  let text = "";
  try {
    const n = await conn.read(buffer);
    if (n !== null) text = new TextDecoder().decode(buffer.subarray(0, n));
  } catch { /* closed by the watch */ }
  clearTimeout(timer);
  try {
    conn.close();
  } catch { /* closed */ }
  return text.startsWith("HTTP/1.1 408") ? performance.now() - started : undefined;
}

Deno.test({
  name:
    "attack: slowloris on headers — devserver alone keeps a half-sent header open past its request timeout (the Deno.serve 2.9.6 gap, ADR-075)",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using ws = await makeWorkspace({ "a.txt": "a\n" });
    await using child = await startHttpChild(ws.root, {
      env: { MCP_HTTP__REQUEST_TIMEOUT_MS: "500" },
    });
    // The body gate works: a stalled body is answered 408 near the 500 ms timeout.
    const body = await stalledBody(child.url, 5000);
    assert.ok(body !== undefined && body < 4000, `stalled body answered after ${body} ms`);
    // The header gap: neither a trickle nor a stall is cut off within six times that.
    const [trickle, stall] = await Promise.all([
      slowHeaders(child.url, 200, 3000),
      slowHeaders(child.url, 0, 3000),
    ]);
    assert.equal(trickle.closedAfterMs, undefined, `trickled header closed: ${trickle.answer}`);
    assert.equal(stall.closedAfterMs, undefined, `stalled header closed: ${stall.answer}`);
    // And the server still answers others meanwhile.
    const ok = await fetch(child.url, {
      method: "POST",
      headers: modernHeaders("tools/list"),
      body: modernBody(1, "tools/list"),
    });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  },
});

Deno.test({
  name:
    "attack: slowloris on headers — nginx in front with client_header_timeout cuts the client off; normal requests pass",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    assert.ok(nginxBinary(), "nginx is not installed (apt-get install nginx; .ci/run does)");
    await using ws = await makeWorkspace({ "a.txt": "a\n" });
    await using child = await startHttpChild(ws.root);
    const upstream = new URL(child.url).host;
    await using nginx = await startNginx([upstream], 20_000, 1);
    const [trickle, stall] = await Promise.all([
      slowHeaders(nginx.url, 200, 8000),
      slowHeaders(nginx.url, 0, 8000),
    ]);
    for (const [what, cut] of [["trickled", trickle], ["stalled", stall]] as const) {
      assert.ok(
        cut.closedAfterMs !== undefined && cut.closedAfterMs >= 800,
        `${what} header not cut at the proxy's 1 s: ${JSON.stringify(cut)}`,
      );
      // nginx closes without a response or with a 408; never a devserver answer.
      assert.ok(cut.answer === "" || cut.answer.startsWith("HTTP/1.1 408"), cut.answer);
    }
    const ok = await fetch(nginx.url, {
      method: "POST",
      headers: { ...modernHeaders("tools/list"), Host: "127.0.0.1" },
      body: modernBody(1, "tools/list"),
    });
    assert.equal(ok.status, 200, await ok.clone().text());
    await ok.body?.cancel();
  },
});
