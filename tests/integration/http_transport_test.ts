/**
 * HTTP mode in-process: the real server (sandbox workers, dispatcher, SDK
 * factory) behind `createHttpHandler`, driven with `Request`s. Each gate is
 * tested in the order it applies — Host/Origin first, then the health
 * routes, the bearer token, the method, the body limits, the JSON-RPC
 * rules, the call cap — and the 2026-07-28 transport rules the SDK handler
 * implements are tested as ours. No answer may carry a stack trace or a path.
 */

import assert from "node:assert/strict";
import { createDevServer, type DevServer } from "../../src/app.ts";
import {
  createHttpHandler,
  type HttpHandler,
  type HttpServeOptions,
  type RequestRecord,
} from "../../src/transport/http.ts";
import { HttpMetrics } from "../../src/transport/http_metrics.ts";
import { configFor, makeWorkspace, type TempWorkspace } from "../helpers/fixtures.ts";
import { ENVELOPE, modernBody, modernHeaders, toolCall } from "../helpers/http.ts";
import { threadsGone, threadsSince, workerThreads } from "../helpers/threads.ts";

const URL_MCP = "http://localhost:8080/mcp";
const TOKEN = "test-token-0123456789abcdef";

interface Rig extends AsyncDisposable {
  readonly handler: HttpHandler;
  readonly server: DevServer;
  readonly records: RequestRecord[];
  readonly ws: TempWorkspace;
}

/**
 * How long a closed rig's worker threads may take to end. Idle ones end at once; a replacement
 * still loading when the rig closes ends once loaded (0.5–0.8 s here), longer on a loaded machine.
 */
const THREADS_GONE_MS = 15_000;

/**
 * The real server behind the handler; `toolWorkerUrl` substitutes the tool worker. The rig
 * waits for its first workers to load before the test runs (ADR-100): under `deno test` a
 * worker's module graph is type-checked on the worker's own thread as it loads (about 10 s of
 * CPU for the tool worker's, cold), which `terminate()` cannot interrupt, so a rig closed
 * before its workers had loaded left that check running on, and each next rig started its own
 * (none had reached the cache yet).
 * Its teardown fails if one of its worker threads outlives the close.
 */
async function rig(
  options: Partial<HttpServeOptions> = {},
  toolWorkerUrl?: URL,
): Promise<Rig> {
  const ws = await makeWorkspace({ "a.txt": "alpha\n", "src/b.ts": "export const b = 1;\n" });
  const before = await workerThreads();
  const server = createDevServer(configFor(ws.root), toolWorkerUrl ? { toolWorkerUrl } : {});
  await server.sandbox.started;
  const records: RequestRecord[] = [];
  const handler = createHttpHandler({
    hostname: "127.0.0.1",
    port: 0,
    factory: server.factory,
    legacy: "stateless",
    policy: { allowedHosts: [], allowedOrigins: [] },
    maxBodyBytes: 64 * 1024,
    requestTimeoutMs: 2000,
    maxConcurrentCalls: 8,
    readiness: () => Promise.resolve({ ready: true, checks: { probe: true } }),
    onRequest: (record) => records.push(record),
    ...options,
  });
  return {
    handler,
    server,
    records,
    ws,
    async [Symbol.asyncDispose]() {
      // Every worker thread started since the rig began: the tests of a file run one at a time.
      const threads = await threadsSince(before);
      // Seen, or the guard below would pass by seeing nothing: the rig waited for its workers.
      assert.ok(threads.size >= 1, "the rig's worker threads were not seen in /proc");
      await handler.close();
      server.close();
      const { alive, waitedMs } = await threadsGone(threads, THREADS_GONE_MS);
      await ws[Symbol.asyncDispose]();
      assert.equal(
        alive.size,
        0,
        `${alive.size} worker thread(s) of the closed rig still alive after ${
          waitedMs.toFixed(0)
        } ms: ${[...alive].map(([name, ms]) => `${name} ${ms} ms of CPU`).join(", ")}`,
      );
    },
  };
}

/**
 * A rig with one call place and `maxQueuedCalls` waiting behind it, over the hang worker,
 * that records the paths of the calls that reach the dispatcher, in order. `send` posts a
 * `read_file` of `path` (`progress` holds its place for 500 ms); `holding` resolves once
 * the first call has reached the dispatcher.
 */
async function queueRig(maxQueuedCalls: number): Promise<
  Rig & {
    readonly ran: string[];
    send(id: number, path: string, signal?: AbortSignal): Promise<Response>;
    holding(): Promise<void>;
  }
> {
  // A queued call may wait up to the request timeout: longer than the holder's 500 ms and a
  // slow first worker start on a loaded machine.
  const r = await rig(
    { maxConcurrentCalls: 1, maxQueuedCalls, requestTimeoutMs: 20_000 },
    new URL("../security/fixtures/hang_worker.ts", import.meta.url),
  );
  const call = r.server.dispatcher.call.bind(r.server.dispatcher);
  const ran: string[] = [];
  r.server.dispatcher.call = (name, args, options) => {
    ran.push(String((args as { path?: unknown }).path));
    return call(name, args, options);
  };
  return Object.assign(r, {
    ran,
    send(id: number, path: string, signal?: AbortSignal) {
      const request = toolCall(URL_MCP, id, "read_file", { path }, {
        headers: { Host: "localhost" },
      });
      return r.handler.fetch(signal ? new Request(request, { signal }) : request);
    },
    async holding() {
      while (ran.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    },
  });
}

/** Asserts a JSON-RPC error answer and returns its body; checks it leaks nothing. */
async function expectError(
  response: Response,
  status: number,
  code: number,
  root?: string,
): Promise<{ error: { code: number; message: string; data?: unknown }; id: unknown }> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  const body = JSON.parse(text);
  assert.equal(body.jsonrpc, "2.0");
  assert.equal(body.error.code, code, text);
  assert.equal(typeof body.error.message, "string");
  assertNoInternals(text, root);
  return body;
}

/** No stack frame, no module URL, no absolute path of the machine. */
function assertNoInternals(text: string, root?: string): void {
  assert.doesNotMatch(text, /\n\s+at |file:\/\/|\/src\/|node_modules/, text.slice(0, 300));
  if (root !== undefined) assert.ok(!text.includes(root), "the workspace path leaked");
}

Deno.test("attack: DNS rebinding — a foreign Host is refused 403 naming the header, before any tool runs", async () => {
  await using r = await rig();
  const response = await r.handler.fetch(
    toolCall(URL_MCP, 1, "read_file", { path: "a.txt" }, {
      headers: { Host: "attacker.example:8080" },
    }),
  );
  const body = await expectError(response, 403, -32000, r.ws.root);
  assert.match(body.error.message, /the Host header "attacker\.example" is not allowed/);
  assert.deepEqual(body.error.data, { refused: "Host", reason: "invalid_host" });
  // The refusal was decided before the body was classified: no method, no tool recorded.
  assert.equal(r.records.at(-1)?.method, undefined);
  assert.equal(r.records.at(-1)?.errorCode, "invalid_host");
});

Deno.test("attack: a browser page on another origin is refused 403 naming the Origin, also on a localhost Host", async () => {
  await using r = await rig();
  for (const origin of ["https://attacker.example", "http://localhost.attacker.example", "null"]) {
    const response = await r.handler.fetch(
      toolCall(URL_MCP, 1, "read_file", { path: "a.txt" }, {
        headers: { Host: "localhost:8080", Origin: origin },
      }),
    );
    const body = await expectError(response, 403, -32000);
    assert.match(body.error.message, /the Origin header .* is not allowed/, origin);
  }
});

Deno.test("attack: a Host header with a path, credentials or nothing in it is refused", async () => {
  await using r = await rig();
  for (const host of ["localhost/evil", "user@localhost", "", "local host"]) {
    const response = await r.handler.fetch(
      new Request("http://localhost/healthz", { headers: { Host: host } }),
    );
    assert.equal(response.status, 403, host);
    await response.body?.cancel();
  }
});

Deno.test("http: localhost names pass in Host and Origin; configured hosts and origins widen, nothing else", async () => {
  await using r = await rig({
    policy: { allowedHosts: ["mcp.example.com"], allowedOrigins: ["https://app.example.com"] },
  });
  const pass: Record<string, string>[] = [
    { Host: "localhost:8080" },
    { Host: "127.0.0.1:1" },
    { Host: "[::1]:8080" },
    { Host: "LOCALHOST" },
    { Host: "mcp.example.com", Origin: "https://app.example.com" },
    { Host: "localhost", Origin: "http://localhost:5173" },
    { Host: "localhost", Origin: "http://[::1]:3000" },
  ];
  for (const headers of pass) {
    const response = await r.handler.fetch(new Request("http://x/healthz", { headers }));
    assert.equal(response.status, 200, JSON.stringify(headers));
    await response.body?.cancel();
  }
  const refuse: Record<string, string>[] = [
    { Host: "other.example.com" },
    { Host: "mcp.example.com", Origin: "http://app.example.com" }, // scheme differs
    { Host: "mcp.example.com", Origin: "https://app.example.com:8443" }, // port differs
  ];
  for (const headers of refuse) {
    const response = await r.handler.fetch(new Request("http://x/healthz", { headers }));
    assert.equal(response.status, 403, JSON.stringify(headers));
    await response.body?.cancel();
  }
});

Deno.test("http: /healthz and /readyz answer without the token; /readyz is 503 when a check fails", async () => {
  let ready = true;
  await using r = await rig({
    bearerToken: TOKEN,
    readiness: () => Promise.resolve({ ready, checks: { workspace_readable: ready, git: true } }),
  });
  const get = (path: string) =>
    r.handler.fetch(new Request(`http://localhost${path}`, { headers: { Host: "localhost" } }));
  assert.deepEqual(await (await get("/healthz")).json(), { status: "ok" });
  const up = await get("/readyz");
  assert.equal(up.status, 200);
  assert.equal((await up.json()).status, "ready");
  ready = false;
  const down = await get("/readyz");
  assert.equal(down.status, 503);
  assert.deepEqual((await down.json()).checks, { workspace_readable: false, git: true });
  const unknown = await get("/nothing-here");
  await expectError(unknown, 404, -32000);
});

Deno.test("attack: /mcp without the bearer token, or with a wrong one, is 401 with WWW-Authenticate: Bearer", async () => {
  await using r = await rig({ bearerToken: TOKEN });
  const call = (authorization?: string) =>
    r.handler.fetch(
      toolCall(URL_MCP, 1, "read_file", { path: "a.txt" }, {
        headers: {
          Host: "localhost",
          ...(authorization === undefined ? {} : { Authorization: authorization }),
        },
      }),
    );
  const missing = await call();
  assert.equal(missing.headers.get("www-authenticate"), 'Bearer realm="devserver"');
  await expectError(missing, 401, -32001);
  for (
    const wrong of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, TOKEN]
  ) {
    const response = await call(wrong);
    assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer/);
    const body = await expectError(response, 401, -32001);
    assert.ok(!JSON.stringify(body).includes(TOKEN.slice(0, 8)), "the token is not echoed");
  }
  const ok = await call(`Bearer ${TOKEN}`);
  assert.equal(ok.status, 200);
  assert.equal((await ok.json()).result.structuredContent.content, "alpha\n");
  // The scheme is case-insensitive (RFC 7235).
  const lower = await call(`bearer ${TOKEN}`);
  assert.equal(lower.status, 200);
  await lower.body?.cancel();
});

Deno.test("http: the 2026-07-28 header rules — version, Mcp-Method and Mcp-Name must match the body (400, -32020)", async () => {
  await using r = await rig();
  const body = modernBody(1, "tools/call", { name: "read_file", arguments: { path: "a.txt" } });
  const send = (headers: Record<string, string>) =>
    r.handler.fetch(
      new Request(URL_MCP, { method: "POST", headers: { Host: "localhost", ...headers }, body }),
    );
  const base = modernHeaders("tools/call", "read_file");
  const versionMismatch = await send({ ...base, "MCP-Protocol-Version": "2025-06-18" });
  await expectError(versionMismatch, 400, -32020);
  const { "Mcp-Method": _m, ...noMethod } = base;
  await expectError(await send(noMethod), 400, -32020);
  await expectError(await send({ ...base, "Mcp-Method": "tools/list" }), 400, -32020);
  await expectError(await send({ ...base, "Mcp-Name": "list_directory" }), 400, -32020);
  const { "Mcp-Name": _n, ...noName } = base;
  await expectError(await send(noName), 400, -32020);
  // The encoded form of Mcp-Name is decoded before it is compared.
  const encoded = await send({ ...base, "Mcp-Name": `=?base64?${btoa("read_file")}?=` });
  assert.equal(encoded.status, 200);
  await encoded.body?.cancel();
  const wrongEncoded = await send({ ...base, "Mcp-Name": `=?base64?${btoa("git_log")}?=` });
  await expectError(wrongEncoded, 400, -32020);
  // Header names in any letter case.
  const lower = Object.fromEntries(Object.entries(base).map(([k, v]) => [k.toLowerCase(), v]));
  const upper = Object.fromEntries(Object.entries(base).map(([k, v]) => [k.toUpperCase(), v]));
  for (const headers of [lower, upper]) {
    const response = await send(headers);
    assert.equal(response.status, 200);
    await response.body?.cancel();
  }
});

Deno.test("http: notifications 202, unknown method 404 -32601, GET and DELETE 405, session headers ignored", async () => {
  await using r = await rig();
  const post = (body: string, headers: Record<string, string>) =>
    r.handler.fetch(
      new Request(URL_MCP, { method: "POST", headers: { Host: "localhost", ...headers }, body }),
    );
  const note = JSON.stringify({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 7, _meta: ENVELOPE },
  });
  const accepted = await post(note, modernHeaders("notifications/cancelled"));
  assert.equal(accepted.status, 202);
  assert.equal(await accepted.text(), "");
  const unknown = await post(modernBody(3, "resources/list"), modernHeaders("resources/list"));
  const body = await expectError(unknown, 404, -32601);
  assert.equal(body.id, 3);
  for (const method of ["GET", "DELETE", "PUT"]) {
    const response = await r.handler.fetch(
      new Request(URL_MCP, { method, headers: { Host: "localhost" } }),
    );
    assert.equal(response.headers.get("allow"), "POST");
    await expectError(response, 405, -32000);
  }
  const plain = await r.handler.fetch(toolCall(URL_MCP, 4, "read_file", { path: "a.txt" }, {
    headers: { Host: "localhost" },
  }));
  const withSession = await r.handler.fetch(toolCall(URL_MCP, 4, "read_file", { path: "a.txt" }, {
    headers: { Host: "localhost", "Mcp-Session-Id": "forged-session", "Last-Event-ID": "99" },
  }));
  assert.equal(withSession.status, 200);
  assert.equal(withSession.headers.get("mcp-session-id"), null);
  const [a, b] = [await plain.json(), await withSession.json()];
  assert.equal(b.result.structuredContent.content, a.result.structuredContent.content);
});

Deno.test("attack: a JSON-RPC batch is refused 400 -32600 in either era, and none of it runs", async () => {
  await using r = await rig();
  const modern = JSON.parse(
    modernBody(1, "tools/call", { name: "read_file", arguments: { path: "a.txt" } }),
  );
  const legacy = { jsonrpc: "2.0", id: 2, method: "tools/list" };
  for (const batch of [[modern], [legacy], [legacy, legacy], []]) {
    const response = await r.handler.fetch(
      new Request(URL_MCP, {
        method: "POST",
        headers: { Host: "localhost", "Content-Type": "application/json" },
        body: JSON.stringify(batch),
      }),
    );
    const body = await expectError(response, 400, -32600);
    assert.match(body.error.message, /batches are not supported/);
    // Refused by our gate, before the SDK saw it: nothing classified, nothing run.
    assert.equal(r.records.at(-1)?.errorCode, "batch");
    assert.equal(r.records.at(-1)?.tool, undefined);
  }
});

Deno.test("attack: an oversized body is refused 413 by Content-Length before a byte is read", async () => {
  await using r = await rig({ maxBodyBytes: 4096 });
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled += 65536;
      controller.enqueue(new Uint8Array(65536));
    },
  });
  const response = await r.handler.fetch(
    new Request(URL_MCP, {
      method: "POST",
      headers: { ...modernHeaders("tools/list"), Host: "localhost", "Content-Length": "999999" },
      body,
    }),
  );
  await expectError(response, 413, -32000);
  // The stream may be primed with one chunk by the runtime; it is never drained.
  assert.ok(pulled <= 2 * 65536, `pulled ${pulled} bytes`);
});

Deno.test("attack: an endless body without Content-Length is cut at the limit, never buffered whole", async () => {
  await using r = await rig({ maxBodyBytes: 64 * 1024 });
  let pulled = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled += 16384;
      controller.enqueue(new Uint8Array(16384).fill(0x20));
    },
  });
  const response = await r.handler.fetch(
    new Request(URL_MCP, {
      method: "POST",
      headers: { ...modernHeaders("tools/list"), Host: "localhost" },
      body: endless,
    }),
  );
  await expectError(response, 413, -32000);
  assert.ok(pulled <= 64 * 1024 + 3 * 16384, `read ${pulled} bytes of an endless body`);
  assert.equal(r.records.at(-1)?.errorCode, "body_too_large");
});

Deno.test("attack: slowloris — a body that stalls after its first bytes is answered 408 at the deadline", async () => {
  await using r = await rig({ requestTimeoutMs: 300 });
  const stalled = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0",'));
    },
    pull() {
      return new Promise(() => {}); // never another byte
    },
  });
  const started = performance.now();
  const response = await r.handler.fetch(
    new Request(URL_MCP, {
      method: "POST",
      headers: { ...modernHeaders("tools/list"), Host: "localhost" },
      body: stalled,
    }),
  );
  const elapsed = performance.now() - started;
  await expectError(response, 408, -32000);
  assert.equal(response.headers.get("connection"), "close");
  assert.ok(elapsed >= 250 && elapsed < 5000, `answered after ${elapsed} ms`);
});

Deno.test("http: over the call cap a tools/call is 503 with Retry-After at once; other methods still pass", async () => {
  await using r = await rig({ maxConcurrentCalls: 1 });
  // Hold the only place: a request whose body has not finished arriving is not yet a call,
  // so hold it with a real call and race a second one against it.
  const first = r.handler.fetch(
    toolCall(URL_MCP, 1, "search_code", { pattern: "b" }, { headers: { Host: "localhost" } }),
  );
  while (r.handler.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  const second = await r.handler.fetch(
    toolCall(URL_MCP, 2, "read_file", { path: "a.txt" }, { headers: { Host: "localhost" } }),
  );
  assert.equal(second.headers.get("retry-after"), "1");
  const body = await expectError(second, 503, -32000);
  assert.equal(body.id, 2);
  const list = await r.handler.fetch(
    new Request(URL_MCP, {
      method: "POST",
      headers: { ...modernHeaders("tools/list"), Host: "localhost" },
      body: modernBody(3, "tools/list"),
    }),
  );
  assert.equal(list.status, 200);
  await list.body?.cancel();
  assert.equal((await first).status, 200);
  // The place is given back: the next call is served.
  const third = await r.handler.fetch(
    toolCall(URL_MCP, 4, "read_file", { path: "a.txt" }, { headers: { Host: "localhost" } }),
  );
  assert.equal(third.status, 200);
  await third.body?.cancel();
  assert.equal(r.handler.inFlight, 0);
});

Deno.test("http: a refused tool call is recorded with its code; metrics count requests, refusals and latency", async () => {
  await using r = await rig();
  const metrics = new HttpMetrics({
    methods: ["tools/call", "tools/list"],
    tools: ["read_file"],
    refusalCodes: ["not_found"],
    workerRestarts: () => r.server.sandbox.replacedWorkers,
  });
  await using m = await rig({
    metrics,
    onRequest: (record) => {
      if (record.outcome === "refused" && typeof record.errorCode === "string") {
        metrics.countRefusal(record.errorCode);
      }
    },
  });
  const missing = await m.handler.fetch(
    toolCall(URL_MCP, 1, "read_file", { path: "missing.txt" }, { headers: { Host: "localhost" } }),
  );
  assert.equal((await missing.json()).result.isError, true);
  const ok = await m.handler.fetch(
    toolCall(URL_MCP, 2, "read_file", { path: "a.txt" }, { headers: { Host: "localhost" } }),
  );
  await ok.body?.cancel();
  const text = await (await m.handler.fetch(
    new Request("http://localhost/metrics", { headers: { Host: "localhost" } }),
  )).text();
  assert.match(
    text,
    /^devserver_http_requests_total\{method="tools\/call",outcome="refused"\} 1$/m,
  );
  assert.match(text, /^devserver_http_requests_total\{method="tools\/call",outcome="ok"\} 1$/m);
  assert.match(text, /^devserver_tool_refusals_total\{code="not_found"\} 1$/m);
  assert.match(text, /^devserver_tool_call_duration_seconds_count\{tool="read_file"\} 2$/m);
  assert.match(text, /^devserver_worker_restarts_total 0$/m);
  // Without metrics configured the path does not exist.
  const none = await r.handler.fetch(
    new Request("http://localhost/metrics", { headers: { Host: "localhost" } }),
  );
  assert.equal(none.status, 404);
  await none.body?.cancel();
});

Deno.test("http: legacy clients are served statelessly when configured, and answered -32022 on reject", async () => {
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "old", version: "1" },
    },
  });
  const headers = {
    Host: "localhost",
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
  };
  await using served = await rig({ legacy: "stateless" });
  const ok = await served.handler.fetch(
    new Request(URL_MCP, { method: "POST", headers, body: initialize }),
  );
  assert.equal(ok.status, 200);
  assert.match(await ok.text(), /"protocolVersion":"2025-06-18"/);
  await using strict = await rig({ legacy: "reject" });
  const refused = await strict.handler.fetch(
    new Request(URL_MCP, { method: "POST", headers, body: initialize }),
  );
  const text = await refused.text();
  assert.match(text, /-32022/);
});

Deno.test("http: an answer that streams (progress) is SSE with X-Accel-Buffering: no", async () => {
  await using r = await rig({}, new URL("../security/fixtures/hang_worker.ts", import.meta.url));
  const handler = r.handler;
  {
    const response = await handler.fetch(
      toolCall(URL_MCP, 1, "read_file", { path: "progress" }, {
        headers: { Host: "localhost" },
        meta: { progressToken: "p1" },
      }),
    );
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
    assert.equal(response.headers.get("x-accel-buffering"), "no");
    const text = await response.text();
    assert.match(text, /notifications\/progress/);
    assert.match(text, /"id":1/);
    assert.equal(handler.inFlight, 0);
  }
});

Deno.test("http: a client that cancels an SSE answer aborts its call (the signal the sandbox's stop flag follows)", async () => {
  await using r = await rig({}, new URL("../security/fixtures/hang_worker.ts", import.meta.url));
  const call = r.server.dispatcher.call.bind(r.server.dispatcher);
  const signals: AbortSignal[] = [];
  r.server.dispatcher.call = (name, args, options) => {
    if (options?.signal) signals.push(options.signal);
    return call(name, args, options);
  };
  const response = await r.handler.fetch(
    toolCall(URL_MCP, 1, "read_file", { path: "progress" }, {
      headers: { Host: "localhost" },
      meta: { progressToken: "p1" },
    }),
  );
  assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
  const reader = response.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  assert.match(first, /notifications\/progress/);
  assert.equal(signals.length, 1);
  assert.equal(signals[0].aborted, false);
  await reader.cancel();
  assert.equal(signals[0].aborted, true, "closing the stream did not abort the call");
  assert.equal(r.handler.inFlight, 0);
});

Deno.test("attack: calls beyond the cap and its queue over HTTP — queued calls run in arrival order, the one beyond the queue is 503 at once, a queued call whose client left never runs", async () => {
  await using r = await queueRig(3);
  const { ran, send } = r;
  // `progress` holds the only place for 500 ms in the hang worker.
  const holder = send(1, "progress");
  await r.holding();
  const leaving = new AbortController();
  const queued = [send(2, "q-gone", leaving.signal), send(3, "q-first"), send(4, "q-second")];
  const started = performance.now();
  const beyond = await send(5, "q-beyond");
  assert.ok(performance.now() - started < 400, "the call beyond the queue waited");
  assert.equal(beyond.headers.get("retry-after"), "1");
  assert.equal((await expectError(beyond, 503, -32000)).id, 5);
  leaving.abort();
  assert.equal((await holder).status, 200);
  const [gone, first, second] = await Promise.all(queued);
  assert.equal(gone.status, 503);
  await gone.body?.cancel();
  for (const answer of [first, second]) {
    assert.equal(
      answer.status,
      200,
      JSON.stringify(r.records.map((x) => [x.outcome, x.errorCode, x.durationMs])),
    );
    await answer.body?.cancel();
  }
  assert.deepEqual(ran, ["progress", "q-first", "q-second"], "order, or the abandoned call ran");
  assert.ok(r.records.some((x) => x.outcome === "cancelled" && x.errorCode === "client_gone"));
  assert.ok(r.records.some((x) => x.outcome === "refused" && x.errorCode === "saturated"));
  assert.equal(r.handler.inFlight, 0);
});

Deno.test("http: at shutdown's deadline a queued call is abandoned before it runs (abortInFlight reaches the queue)", async () => {
  await using r = await queueRig(2);
  const { ran, send } = r;
  const holder = send(1, "progress");
  await r.holding();
  const queued = send(2, "q-never");
  while (r.handler.inFlight < 2) await new Promise((resolve) => setTimeout(resolve, 1));
  r.handler.stopAccepting();
  r.handler.abortInFlight();
  const answer = await queued;
  assert.equal(answer.status, 503);
  await answer.body?.cancel();
  await (await holder).body?.cancel();
  assert.deepEqual(ran, ["progress"], "the queued call ran after the abort");
  assert.ok(r.records.some((x) => x.outcome === "cancelled" && x.errorCode === "client_gone"));
});

Deno.test("http: Mcp-Method is required on every request of the 2026-07-28 revision, not only tools/call (400, -32020)", async () => {
  await using r = await rig();
  const send = (body: string, headers: Record<string, string>) =>
    r.handler.fetch(
      new Request(URL_MCP, { method: "POST", headers: { Host: "localhost", ...headers }, body }),
    );
  for (const [id, method] of [[5, "tools/list"], [6, "server/discover"]] as const) {
    const body = modernBody(id, method);
    const { "Mcp-Method": _m, ...noMethod } = modernHeaders(method);
    assert.equal((await expectError(await send(body, noMethod), 400, -32020)).id, id, method);
    const wrong = { ...noMethod, "Mcp-Method": "tools/call" };
    await expectError(await send(body, wrong), 400, -32020);
    const right = await send(body, modernHeaders(method));
    assert.equal(right.status, 200, method);
    await right.body?.cancel();
  }
  // A notification is not a request: the SDK accepts one without the header (202), but one
  // whose header names another method is refused like a request.
  const note = JSON.stringify({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 7, _meta: ENVELOPE },
  });
  const { "Mcp-Method": _n, ...noMethod } = modernHeaders("notifications/cancelled");
  const bare = await send(note, noMethod);
  assert.equal(bare.status, 202);
  await bare.body?.cancel();
  await expectError(await send(note, { ...noMethod, "Mcp-Method": "tools/list" }), 400, -32020);
});

Deno.test("attack: with a bearer token configured, a foreign Host is refused 403 before the token is looked at (the rebinding gate comes first)", async () => {
  await using r = await rig({ bearerToken: TOKEN });
  for (const authorization of [undefined, `Bearer ${TOKEN}`, "Bearer wrong"]) {
    const response = await r.handler.fetch(
      toolCall(URL_MCP, 1, "read_file", { path: "a.txt" }, {
        headers: {
          Host: "attacker.example",
          ...(authorization === undefined ? {} : { Authorization: authorization }),
        },
      }),
    );
    assert.equal(response.headers.get("www-authenticate"), null, String(authorization));
    const body = await expectError(response, 403, -32000, r.ws.root);
    assert.deepEqual(body.error.data, { refused: "Host", reason: "invalid_host" });
    assert.equal(r.records.at(-1)?.errorCode, "invalid_host");
  }
  // /healthz needs no token, but is behind the same gate.
  const health = await r.handler.fetch(
    new Request("http://localhost/healthz", { headers: { Host: "attacker.example" } }),
  );
  assert.equal(health.status, 403);
  await health.body?.cancel();
});
