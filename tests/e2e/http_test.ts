/**
 * HTTP mode end to end: the real program (`devserver serve --transport http
 * --port 0`, or the same serving code with a test's tool worker) as a child
 * process, reached by the SDK v2 client's Streamable HTTP transport, the SDK
 * v1 client's (2025 era, served statelessly), `curl`, raw TCP and plain
 * `fetch`. Every tool result the SDK clients return is checked against its
 * published schema and the response budget (ADR-020).
 */

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { fakeSecret } from "../../src/secrets/rule.ts";
import { makeWorkspace } from "../helpers/fixtures.ts";
import { modernBody, modernHeaders, startHttpChild, toolCall } from "../helpers/http.ts";
import { checkToolCalls, limitsFor } from "./support.ts";

const SERVE_HTTP_WORKER = new URL("../security/fixtures/serve_http_worker.ts", import.meta.url);
const TOKEN = "e2e-token-abcdefghijklmnop";

function withWorker(worker: string) {
  return { script: SERVE_HTTP_WORKER, args: [worker] };
}

/** The permission states of the child's main thread, from its debug line. */
function permissionStates(stderr: string): Record<string, string> {
  const line = stderr.split("\n").find((l) => l.includes("main thread permissions after start:"));
  assert.ok(line, `no permission line in:\n${stderr}`);
  return Object.fromEntries([...line.matchAll(/(\w+)=(\w+)/g)].map((m) => [m[1], m[2]]));
}

Deno.test("http e2e: the SDK v2 client lists and calls tools, pages a listing; the main thread keeps only net", async () => {
  await using ws = await makeWorkspace({
    "a.txt": "alpha\n",
    "many/one.txt": "1\n",
    "many/two.txt": "2\n",
    "many/three.txt": "3\n",
  });
  const env = { MCP_LOG__LEVEL: "debug", MCP_SANDBOX__LIST_PAGE_SIZE: "2" };
  await using child = await startHttpChild(ws.root, { env });
  assert.match(child.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  assert.notEqual(new URL(child.url).port, "0");
  const client = new Client(
    { name: "devserver-http-e2e", version: "0.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  checkToolCalls(
    client as unknown as Parameters<typeof checkToolCalls>[0],
    limitsFor(ws.root, env),
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(child.url)));
  try {
    const { tools } = await client.listTools();
    assert.equal(tools.length, 7);
    const read = await client.callTool({ name: "read_file", arguments: { path: "a.txt" } });
    assert.equal((read.structuredContent as { content: string }).content, "alpha\n");
    const first = await client.callTool({ name: "list_directory", arguments: { path: "many" } });
    const page1 = first.structuredContent as { entries: unknown[]; next_cursor?: string };
    assert.equal(page1.entries.length, 2);
    assert.ok(page1.next_cursor);
    const second = await client.callTool({
      name: "list_directory",
      arguments: { path: "many", cursor: page1.next_cursor },
    });
    assert.equal((second.structuredContent as { entries: unknown[] }).entries.length, 1);
  } finally {
    await client.close();
  }
  const ready = await fetch(`${child.base}/readyz`);
  assert.deepEqual(await ready.json(), {
    status: "ready",
    checks: { workspace_readable: true, tool_worker: true, git: true },
  });
  const states = permissionStates(child.stderr());
  assert.equal(states.net, "granted");
  for (const name of ["read", "run", "env", "write", "ffi", "sys"]) {
    assert.notEqual(states[name], "granted", `${name}: ${JSON.stringify(states)}`);
  }
  // One JSON record per request on stderr, tool arguments by name only.
  const records = child.stderr().split("\n").filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l)).filter((r) => r.event === "request");
  const call = records.find((r) => r.tool === "read_file");
  assert.ok(call, child.stderr());
  assert.deepEqual(call.argumentNames, ["path"]);
  assert.equal(call.arguments, undefined);
  assert.ok(!child.stderr().includes("alpha"), "file contents reached the log");
  for (const field of ["requestId", "method", "durationMs", "outcome", "status"]) {
    assert.ok(field in call, field);
  }
});

Deno.test("http e2e: the SDK v1 client (2025 era) is served statelessly, with the bearer token", async () => {
  await using ws = await makeWorkspace({ "a.txt": "alpha\n" });
  const env = { MCP_HTTP__BEARER_TOKEN: TOKEN };
  await using child = await startHttpChild(ws.root, { env });
  const client = new ClientV1({ name: "devserver-http-e2e-v1", version: "0.0.0" });
  checkToolCalls(client as unknown as Parameters<typeof checkToolCalls>[0], limitsFor(ws.root));
  await client.connect(
    new StreamableHTTPClientTransportV1(new URL(child.url), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    }),
  );
  try {
    assert.equal((await client.listTools()).tools.length, 7);
    const read = await client.callTool({ name: "read_file", arguments: { path: "a.txt" } });
    assert.equal((read.structuredContent as { content: string }).content, "alpha\n");
  } finally {
    await client.close();
  }
  // The same client without the token is turned away.
  const anonymous = new ClientV1({ name: "anon", version: "0.0.0" });
  await assert.rejects(
    () => anonymous.connect(new StreamableHTTPClientTransportV1(new URL(child.url))),
  );
});

Deno.test("http e2e: curl — lower-case headers on the wire, a call, health, 403 on a foreign Host; SIGTERM exits 0", async () => {
  await using ws = await makeWorkspace({ "a.txt": "alpha\n" });
  const child = await startHttpChild(ws.root);
  const curl = async (...args: string[]) => {
    const out = await new Deno.Command("curl", {
      args: ["-s", "-o", "-", "-w", "\n%{http_code}", ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    const at = text.lastIndexOf("\n");
    return { status: Number(text.slice(at + 1)), body: text.slice(0, at) };
  };
  try {
    const headers = Object.entries(modernHeaders("tools/call", "read_file"))
      .flatMap(([k, v]) => ["-H", `${k.toLowerCase()}: ${v}`]);
    const body = modernBody(1, "tools/call", { name: "read_file", arguments: { path: "a.txt" } });
    const call = await curl("-X", "POST", ...headers, "--data-binary", body, child.url);
    assert.equal(call.status, 200, call.body);
    assert.equal(JSON.parse(call.body).result.structuredContent.content, "alpha\n");
    assert.equal((await curl(`${child.base}/healthz`)).status, 200);
    const rebinding = await curl("-H", "Host: rebind.attacker.example", `${child.base}/healthz`);
    assert.equal(rebinding.status, 403);
    assert.match(rebinding.body, /Host header/);
    assert.equal((await curl("-X", "GET", child.url)).status, 405);
  } finally {
    child.process.kill("SIGTERM");
  }
  const status = await child.status;
  assert.equal(status.code, 0, child.stderr());
  await child[Symbol.asyncDispose]();
});

Deno.test("attack: slowloris over a real socket — headers, part of the body, then silence — is cut off with 408", async () => {
  await using ws = await makeWorkspace();
  await using child = await startHttpChild(ws.root, {
    env: { MCP_HTTP__REQUEST_TIMEOUT_MS: "500" },
  });
  const port = Number(new URL(child.url).port);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: 1000\r\n\r\n{"jsonrpc":"2.0",`,
    ));
    const started = performance.now();
    const buffer = new Uint8Array(4096);
    const n = await conn.read(buffer);
    const elapsed = performance.now() - started;
    const head = new TextDecoder().decode(buffer.subarray(0, n ?? 0));
    assert.match(head, /^HTTP\/1\.1 408/, head);
    assert.ok(elapsed >= 400 && elapsed < 10_000, `answered after ${elapsed} ms`);
  } finally {
    conn.close();
  }
  const health = await fetch(`${child.base}/healthz`);
  assert.equal(health.status, 200);
  await health.body?.cancel();
});

Deno.test("attack: 1,000 concurrent tool calls against a cap of 2 and a queue of 2 — each answered 200 or 503, none lost, healthy after", async () => {
  await using ws = await makeWorkspace();
  await using child = await startHttpChild(ws.root, {
    ...withWorker("hang_worker.ts"),
    env: { MCP_HTTP__MAX_CONCURRENT_CALLS: "2", MCP_HTTP__MAX_QUEUED_CALLS: "2" },
  });
  const statuses = await Promise.all(
    Array.from({ length: 1000 }, async (_, i) => {
      // `progress` runs 500 ms in the hang worker: the cap is reached at once.
      const response = await fetch(toolCall(child.url, i, "read_file", { path: "progress" }));
      const body = await response.json();
      if (response.status === 503) {
        assert.equal(response.headers.get("retry-after"), "1");
        assert.equal(body.id, i);
      } else {
        assert.equal(body.id, i);
      }
      return response.status;
    }),
  );
  const ok = statuses.filter((s) => s === 200).length;
  const busy = statuses.filter((s) => s === 503).length;
  assert.equal(
    ok + busy,
    1000,
    `other statuses: ${statuses.filter((s) => s !== 200 && s !== 503)}`,
  );
  assert.ok(ok >= 2, `${ok} served`);
  assert.ok(busy >= 900, `${busy} refused`);
  const health = await fetch(`${child.base}/healthz`);
  assert.equal(health.status, 200);
  await health.body?.cancel();
  const after = await fetch(toolCall(child.url, 5000, "read_file", { path: "whoami" }));
  assert.equal(after.status, 200);
  await after.body?.cancel();
});

Deno.test("attack: a tool call that busy-loops past its budget over HTTP — timed_out, the worker replaced, and /metrics counts the restart", async () => {
  await using ws = await makeWorkspace();
  await using child = await startHttpChild(ws.root, {
    ...withWorker("hang_worker.ts"),
    env: { MCP_HTTP__METRICS: "true", MCP_SANDBOX__TOOL_TIMEOUT_MS: "300" },
  });
  const metricsText = async () => {
    const response = await fetch(`${child.base}/metrics`);
    assert.equal(response.status, 200);
    return await response.text();
  };
  // The hang worker answers `whoami` through read_file's refusal text, with its instance id.
  const instance = async (id: number) => {
    const response = await fetch(toolCall(child.url, id, "read_file", { path: "whoami" }));
    const text = JSON.stringify(await response.json());
    const found = text.match(/instance\\":\\"([0-9a-f-]{36})/);
    assert.ok(found, text);
    return found[1];
  };
  const before = await instance(10);
  assert.match(await metricsText(), /^devserver_worker_restarts_total 0$/m);
  // `hang` spins without looking at the stop flag: only replacing the worker ends it.
  const hung = await fetch(toolCall(child.url, 1, "read_file", { path: "hang" }));
  assert.equal(hung.status, 200);
  const body = await hung.json();
  assert.equal(body.result.isError, true, JSON.stringify(body));
  assert.equal(body.result._meta["dev.devserver/refusal"].error, "timed_out", JSON.stringify(body));
  // The supervisor reports the replacement after the answer; poll, bounded.
  let text = await metricsText();
  const deadline = Date.now() + 10_000;
  while (!/^devserver_worker_restarts_total 1$/m.test(text) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    text = await metricsText();
  }
  assert.match(text, /^devserver_worker_restarts_total 1$/m);
  assert.match(text, /^devserver_tool_refusals_total\{code="timed_out"\} 1$/m);
  // A fresh worker answers the next call.
  assert.notEqual(await instance(11), before, "the hung worker was not replaced");
});

Deno.test("http e2e: a client that closes its connection cancels its call through the stop flag", async () => {
  await using ws = await makeWorkspace();
  await using child = await startHttpChild(ws.root, {
    ...withWorker("hang_worker.ts"),
    env: { MCP_SANDBOX__TOOL_TIMEOUT_MS: "20000" },
  });
  // curl gives up after 0.6 s and closes its connection mid-call. (Deno's own fetch abort
  // was observed to keep the pooled connection open, so the server never sees it close.)
  // The request is kept small: on Deno 2.9.6 a request's signal was observed not to fire on
  // disconnect once the request passes a few hundred bytes (docs/protocol.md, HTTP).
  const request = new Request(child.url, {
    method: "POST",
    headers: modernHeaders("tools/call", "read_file"),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "read_file",
        arguments: { path: "count" },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  const headers = [...request.headers].flatMap(([k, v]) => ["-H", `${k}: ${v}`]);
  const out = await new Deno.Command("curl", {
    args: [
      "-s",
      "--max-time",
      "0.6",
      "-X",
      "POST",
      ...headers,
      "--data-binary",
      await request.text(),
      child.url,
    ],
    stdout: "null",
    stderr: "null",
  }).output();
  assert.equal(out.code, 28, "curl timed out (exit 28) rather than receiving an answer");
  const deadline = Date.now() + 10_000;
  while (!/count stopped \((\w+)\)/.test(child.stderr()) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // `cancelled`, not `limit` (the loop's own end) nor `timed_out` (the budget).
  assert.match(child.stderr(), /count stopped \(cancelled\)/, child.stderr());
});

// Both signals the issue names (a terminal's Ctrl-C is SIGINT; systemd and containers send SIGTERM).
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`http e2e: ${signal} lets a call in flight finish, refuses new work, and exits 0`, async () => {
    await using ws = await makeWorkspace();
    const child = await startHttpChild(ws.root, withWorker("hang_worker.ts"));
    const inFlight = fetch(toolCall(child.url, 1, "read_file", { path: "progress" }));
    await new Promise((resolve) => setTimeout(resolve, 150));
    child.process.kill(signal);
    const response = await inFlight;
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.match(body.result.content[0].text, /iterations/);
    const status = await child.status;
    assert.equal(status.code, 0, child.stderr());
    await assert.rejects(() => fetch(`${child.base}/healthz`));
    await child[Symbol.asyncDispose]();
  });
}

Deno.test("attack: a tool in HTTP mode cannot open an outbound connection, though the process listens", async () => {
  await using ws = await makeWorkspace();
  let accepted = 0;
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepting = (async () => {
    for await (const conn of listener) {
      accepted++;
      conn.close();
    }
  })();
  try {
    await using child = await startHttpChild(ws.root, withWorker("net_probe_worker.ts"));
    const target = `127.0.0.1:${listener.addr.port}`;
    const response = await fetch(toolCall(child.url, 1, "read_file", { path: target }));
    assert.equal(response.status, 200); // the main thread served HTTP: it holds net
    const text: string = (await response.json()).result.content[0].text;
    const outcome = JSON.parse(/net probe: (\{.*?\})/.exec(text)![1]);
    assert.equal(outcome.connect, "NotCapable");
    assert.equal(outcome.fetch, "NotCapable");
    assert.notEqual(outcome.net, "granted");
    assert.equal(accepted, 0, "the listener saw a connection from the tool");
  } finally {
    listener.close();
    await accepting.catch(() => {});
  }
});

Deno.test("http e2e: production refuses HTTP without a token; a non-loopback bind without one warns", async () => {
  await using ws = await makeWorkspace();
  await assert.rejects(
    () => startHttpChild(ws.root, { env: { MCP_ENVIRONMENT: "production" }, startMs: 30_000 }),
    /HTTP mode needs a bearer token/,
  );
  await using child = await startHttpChild(ws.root, { args: ["--host", "0.0.0.0"] });
  assert.match(child.stderr(), /non-loopback address 0\.0\.0\.0 without a bearer token/);
});

Deno.test("attack: request records never carry a secret — not a token-shaped argument, not the bearer token, not file text", async () => {
  const github = "ghp_" + fakeSecret("http-log-gh", 36);
  await using ws = await makeWorkspace({ "notes.txt": `file-text-marker-41c9 ${github}\n` });
  const env = {
    MCP_LOG__LEVEL: "debug",
    MCP_LOG__ARGUMENTS: "values",
    MCP_HTTP__BEARER_TOKEN: TOKEN,
  };
  await using child = await startHttpChild(ws.root, { env });
  const auth = { Authorization: `Bearer ${TOKEN}` };
  for (const args of [{ path: "notes.txt" }, { path: `${github}.txt` }]) {
    const response = await fetch(toolCall(child.url, 1, "read_file", args, { headers: auth }));
    assert.equal(response.status, 200);
    await response.body?.cancel();
  }
  const wrong = await fetch(
    toolCall(child.url, 2, "read_file", { path: "notes.txt" }, {
      headers: { Authorization: `Bearer ${TOKEN}-wrong` },
    }),
  );
  assert.equal(wrong.status, 401);
  await wrong.body?.cancel();
  const log = child.stderr();
  const records = log.split("\n").filter((l) => l.includes('"event":"request"'));
  assert.equal(records.length, 3, log);
  // Values are logged as configured, with the secret replaced.
  assert.match(records[1], /"path":"\[redacted:[^\]]+\]\.txt"/, records[1]);
  for (const secret of [github, TOKEN, "file-text-marker-41c9"]) {
    assert.ok(!log.includes(secret), `the log holds ${secret.slice(0, 12)}…`);
  }
});
