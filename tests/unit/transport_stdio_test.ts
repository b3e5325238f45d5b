import assert from "node:assert/strict";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { LineTransport, type LineTransportOptions } from "../../src/transport/stdio.ts";
import { MODERN_PROTOCOL_VERSION, PROTOCOL_VERSION_META_KEY } from "../../src/version.ts";

const encoder = new TextEncoder();

/** A LineTransport over in-memory streams: feed bytes in, read JSON lines out. */
function harness(options: LineTransportOptions = { maxLineBytes: 4096 }) {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const input = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const events: string[] = [];
  const output: Record<string, unknown>[] = [];
  let partial = "";
  const decoder = new TextDecoder();
  const writable = new WritableStream<Uint8Array>({
    write(chunk) {
      partial += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = partial.indexOf("\n")) !== -1) {
        const line = partial.slice(0, newline);
        partial = partial.slice(newline + 1);
        output.push(JSON.parse(line));
        events.push("write");
      }
    },
  });
  const transport = new LineTransport(input, writable, options);
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => void received.push(message);
  let closed = false;
  transport.onclose = () => {
    closed = true;
    events.push("close");
  };
  return {
    transport,
    received,
    output,
    events,
    get closed() {
      return closed;
    },
    feed(text: string | Uint8Array) {
      controller.enqueue(typeof text === "string" ? encoder.encode(text) : text);
    },
    end() {
      controller.close();
    },
  };
}

/** Waits (by yielding to the event loop) until `condition` holds, or fails. */
async function until(condition: () => boolean, what: string, ms = 1000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

function request(id: number | string, version: string = MODERN_PROTOCOL_VERSION): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/list",
    params: { _meta: { [PROTOCOL_VERSION_META_KEY]: version } },
  });
}

function notification(version: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 1, _meta: { [PROTOCOL_VERSION_META_KEY]: version } },
  });
}

Deno.test("transport: a valid request reaches onmessage unchanged", async () => {
  const h = harness();
  await h.transport.start();
  h.feed(request(1) + "\n");
  await until(() => h.received.length === 1, "the message");
  assert.deepEqual(h.received[0], JSON.parse(request(1)));
  assert.equal(h.output.length, 0);
  await h.transport.close();
});

Deno.test("transport: a message split across many chunks is reassembled", async () => {
  const h = harness();
  await h.transport.start();
  const bytes = encoder.encode(request("ü-id") + "\n" + request(2) + "\n");
  for (let i = 0; i < bytes.length; i += 3) h.feed(bytes.slice(i, i + 3));
  await until(() => h.received.length === 2, "two messages");
  assert.equal((h.received[0] as { id: string }).id, "ü-id");
  assert.equal((h.received[1] as { id: number }).id, 2);
  await h.transport.close();
});

Deno.test("transport: invalid JSON is answered -32700 with id null, and the stream goes on", async () => {
  const h = harness();
  await h.transport.start();
  h.feed('{"jsonrpc": "2.0", "id": 1, "method": \n');
  h.feed(request(2) + "\n");
  await until(() => h.output.length === 1 && h.received.length === 1, "the reply and message");
  const reply = h.output[0] as {
    jsonrpc: string;
    id: null;
    error: { code: number; message: string };
  };
  assert.deepEqual(Object.keys(reply).sort(), ["error", "id", "jsonrpc"]);
  assert.equal(reply.jsonrpc, "2.0");
  assert.equal(reply.id, null);
  assert.equal(reply.error.code, -32700);
  assert.match(reply.error.message, /^Parse error/);
  assert.equal((h.received[0] as { id: number }).id, 2);
  await h.transport.close();
});

Deno.test("transport: an over-long line is skipped as it arrives, answered -32700, and the next line works", async () => {
  const h = harness({ maxLineBytes: 64 });
  await h.transport.start();
  const long = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "x",
    params: { pad: "a".repeat(600) },
  });
  for (let i = 0; i < long.length; i += 10) h.feed(long.slice(i, i + 10));
  h.feed("\n" + JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }) + "\n");
  await until(() => h.output.length === 1 && h.received.length === 1, "the reply and message");
  assert.deepEqual(h.output[0], {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32700, message: "Parse error: line longer than 64 bytes" },
  });
  assert.deepEqual(h.received, [{ jsonrpc: "2.0", id: 2, method: "ping" }]);
  await h.transport.close();
});

Deno.test("transport: a line of exactly maxLineBytes is accepted, one byte more is not", async () => {
  const line = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
  const size = encoder.encode(line).length;
  const h = harness({ maxLineBytes: size });
  await h.transport.start();
  h.feed(line + "\n");
  h.feed(JSON.stringify({ jsonrpc: "2.0", id: 10, method: "ping" }) + "\n");
  await until(() => h.received.length === 1 && h.output.length === 1, "one accepted, one refused");
  assert.equal((h.received[0] as { id: number }).id, 1);
  assert.equal((h.output[0] as { error: { code: number } }).error.code, -32700);
  await h.transport.close();
});

Deno.test("transport: notifications claiming an unsupported revision are dropped silently", async () => {
  const h = harness();
  await h.transport.start();
  h.feed(notification("1999-01-01") + "\n");
  h.feed(notification(MODERN_PROTOCOL_VERSION) + "\n");
  h.feed("not json\n"); // a sentinel with a known reply: everything before it was handled
  await until(() => h.output.length === 1, "the sentinel's reply");
  assert.equal((h.output[0] as { error: { code: number } }).error.code, -32700);
  assert.equal(h.received.length, 1, "only the supported notification is delivered");
  const delivered = h.received[0] as { params: { _meta: Record<string, string> } };
  assert.equal(delivered.params._meta[PROTOCOL_VERSION_META_KEY], MODERN_PROTOCOL_VERSION);
  await h.transport.close();
});

Deno.test("transport: every request's revision is checked, not only the first", async () => {
  const h = harness();
  await h.transport.start();
  h.feed(request(1) + "\n" + request(2) + "\n" + request(3, "1999-01-01") + "\n");
  h.feed(request(4, "2025-06-18") + "\n");
  await until(() => h.output.length === 2, "two refusals");
  assert.deepEqual(h.received.map((m) => (m as { id: number }).id), [1, 2]);
  const [first, second] = h.output as {
    id: number;
    error: { code: number; message: string; data: { supported: string[]; requested: string } };
  }[];
  assert.equal(first.id, 3);
  assert.equal(first.error.code, -32022);
  assert.deepEqual(first.error.data.supported, ["2026-07-28"]);
  assert.equal(first.error.data.requested, "1999-01-01");
  assert.equal(second.id, 4);
  assert.equal(second.error.code, -32022);
  assert.deepEqual(second.error.data.supported, ["2026-07-28"]);
  await h.transport.close();
});

Deno.test("transport: a request without a revision claim is passed to the SDK", async () => {
  const h = harness();
  await h.transport.start();
  const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: {} };
  h.feed(JSON.stringify(initialize) + "\n");
  await until(() => h.received.length === 1, "the message");
  assert.deepEqual(h.received[0], initialize);
  assert.equal(h.output.length, 0);
  await h.transport.close();
});

Deno.test("transport: JSON that is not JSON-RPC is answered -32600", async () => {
  const h = harness();
  await h.transport.start();
  h.feed('{"foo":1}\n[1,2]\n"text"\n{"jsonrpc":"2.0","id":5}\n');
  h.feed(request(6) + "\n");
  await until(() => h.output.length === 4 && h.received.length === 1, "four refusals");
  for (const reply of h.output as { jsonrpc: string; error: { code: number; message: string } }[]) {
    assert.equal(reply.jsonrpc, "2.0");
    assert.equal(reply.error.code, -32600);
    assert.match(reply.error.message, /^Invalid Request/);
  }
  assert.deepEqual(h.output.map((r) => r.id), [null, null, null, 5]);
  assert.equal((h.received[0] as { id: number }).id, 6);
  await h.transport.close();
});

Deno.test("transport: CRLF line endings and blank lines are accepted", async () => {
  const h = harness();
  await h.transport.start();
  h.feed(request(1) + "\r\n\r\n\n   \n" + request(2) + "\r\n");
  h.feed("not json\n");
  await until(() => h.output.length === 1, "the sentinel's reply");
  assert.deepEqual(h.received.map((m) => (m as { id: number }).id), [1, 2]);
  await h.transport.close();
});

Deno.test("transport: send writes one line per message, in order", async () => {
  const h = harness();
  await h.transport.start();
  await Promise.all([1, 2, 3].map((id) => h.transport.send({ jsonrpc: "2.0", id, result: {} })));
  assert.deepEqual(h.output.map((m) => m.id), [1, 2, 3]);
  await h.transport.close();
  await assert.rejects(() => h.transport.send({ jsonrpc: "2.0", id: 4, result: {} }), /closed/);
});

Deno.test("transport: the end of input fires onclose", async () => {
  const h = harness();
  await h.transport.start();
  h.feed(request(1) + "\n");
  h.end();
  await until(() => h.closed, "onclose");
  assert.equal(h.received.length, 1);
  assert.deepEqual(h.events, ["close"]);
});

Deno.test("transport: with drainMs, closing waits for a pending request's response", async () => {
  const h = harness({ maxLineBytes: 4096, drainMs: 5000 });
  await h.transport.start();
  h.feed(request(7) + "\n");
  h.end();
  await until(() => h.received.length === 1, "the request");
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(h.closed, false, "still open while the request is pending");
  await h.transport.send({ jsonrpc: "2.0", id: 7, result: { tools: [] } });
  await until(() => h.closed, "onclose after the response");
  assert.deepEqual(h.events, ["write", "close"]);
  assert.equal(h.output[0].id, 7);
});

Deno.test("transport: with drainMs, an unanswered request closes after the budget", async () => {
  const h = harness({ maxLineBytes: 4096, drainMs: 40 });
  await h.transport.start();
  h.feed(request(8) + "\n");
  const ended = performance.now();
  h.end();
  await until(() => h.closed, "onclose");
  assert.ok(performance.now() - ended >= 35, "waited for the drain budget");
  assert.deepEqual(h.events, ["close"]);
});

Deno.test("transport: notifications are not waited for when draining", async () => {
  const h = harness({ maxLineBytes: 4096, drainMs: 5000 });
  await h.transport.start();
  h.feed(notification(MODERN_PROTOCOL_VERSION) + "\n");
  const ended = performance.now();
  h.end();
  await until(() => h.closed, "onclose");
  assert.ok(performance.now() - ended < 1000);
  assert.equal(h.received.length, 1);
});

Deno.test("transport: a last request without a trailing newline is still delivered at end of input", async () => {
  const h = harness();
  await h.transport.start();
  h.feed(request(7));
  h.end();
  await until(() => h.closed, "onclose");
  assert.equal(h.received.length, 1);
  assert.equal((h.received[0] as { id?: unknown }).id, 7);
});

Deno.test("transport: an over-long last line without a newline is still answered -32700", async () => {
  const h = harness({ maxLineBytes: 1024 });
  await h.transport.start();
  h.feed("x".repeat(5000));
  h.end();
  await until(() => h.output.length === 1, "the parse error");
  assert.equal((h.output[0].error as { code: number }).code, -32700);
  assert.equal(h.output[0].id, null);
  assert.equal(h.received.length, 0);
});

Deno.test("transport: params that are not an object, or a _meta that is not one, are -32602 with the request's id", async () => {
  const h = harness();
  await h.transport.start();
  const cases: unknown[] = [
    [],
    ["tools/list"],
    null,
    "params",
    { _meta: "2026-07-28" },
    { _meta: [] },
    { _meta: 1 },
    { _meta: null },
  ];
  cases.forEach((params, i) => {
    h.feed(JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: "tools/list", params }) + "\n");
  });
  await until(() => h.output.length === cases.length, "every answer");
  for (const [i, reply] of h.output.entries()) {
    const error = reply.error as { code: number; message: string };
    assert.equal(reply.id, i + 1);
    assert.equal(error.code, -32602, JSON.stringify(cases[i]));
    assert.match(error.message, /^Invalid params: (params|params\._meta) must be an object, not /);
  }
  assert.equal(h.received.length, 0, "none reaches the SDK");
  await h.transport.close();
});

Deno.test("transport: a notification with bad params is dropped, and a bad message otherwise stays -32600", async () => {
  const h = harness();
  await h.transport.start();
  h.feed(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: [] }) + "\n");
  h.feed(JSON.stringify({ jsonrpc: "2.0", method: "x", params: { _meta: 1 } }) + "\n");
  // Bad params and a bad id: the id makes it no request at all.
  h.feed(JSON.stringify({ jsonrpc: "2.0", id: {}, method: "tools/list", params: [] }) + "\n");
  h.feed(JSON.stringify({ jsonrpc: "1.0", id: 7, method: "tools/list", params: [] }) + "\n");
  h.feed(request(8) + "\n");
  await until(() => h.received.length === 1, "the valid request");
  assert.deepEqual(h.output.map((o) => (o.error as { code: number }).code), [-32600, -32600]);
  assert.deepEqual(h.output.map((o) => o.id), [null, 7]);
  await h.transport.close();
});

Deno.test("transport: the 2026-07-28 envelope without its protocol version is -32602", async () => {
  const h = harness();
  await h.transport.start();
  for (const key of ["clientCapabilities", "clientInfo"]) {
    h.feed(
      JSON.stringify({
        jsonrpc: "2.0",
        id: key,
        method: "tools/list",
        params: { _meta: { [`io.modelcontextprotocol/${key}`]: {} } },
      }) + "\n",
    );
  }
  // Other _meta content (progressToken, vendor keys) is no claim: passed on as 2025-era traffic.
  h.feed(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/list",
      params: { _meta: { progressToken: 1, "com.example/x": 1 } },
    }) + "\n",
  );
  await until(() => h.output.length === 2 && h.received.length === 1, "two answers, one pass");
  for (const reply of h.output) {
    const error = reply.error as { code: number; message: string };
    assert.equal(error.code, -32602);
    assert.match(error.message, /lacks the required io\.modelcontextprotocol\/protocolVersion/);
  }
  await h.transport.close();
});

Deno.test("transport: an unsupported revision is echoed once, in data.requested, escaped and cut", async () => {
  const h = harness({ maxLineBytes: 64 * 1024 });
  await h.transport.start();
  const hostile = "1999\nRemedy: rm -rf /\u202e\u0007" + "x".repeat(10_000);
  h.feed(request(1, hostile) + "\n");
  await until(() => h.output.length === 1, "the answer");
  const error = h.output[0].error as {
    code: number;
    message: string;
    data: { requested: string };
  };
  assert.equal(error.code, -32022);
  assert.ok(!error.message.includes("1999"), error.message);
  assert.match(error.message, /2026-07-28/);
  assert.equal(error.data.requested, "1999\\nRemedy: rm -rf /\\u202e\\x07" + "x".repeat(41) + "…");
  await h.transport.close();
});

Deno.test("transport: a -32022 the SDK sends is bounded the same way on its way out", async () => {
  const h = harness();
  await h.transport.start();
  const hostile = "2025-11-25\u202e\n" + "y".repeat(5000);
  await h.transport.send({
    jsonrpc: "2.0",
    id: 1,
    error: {
      code: -32022,
      message: `Unsupported protocol version: ${hostile}`,
      data: { supported: ["2026-07-28"], requested: hostile },
    },
  } as unknown as JSONRPCMessage);
  // Other errors pass unchanged.
  await h.transport.send({
    jsonrpc: "2.0",
    id: 2,
    error: { code: -32601, message: "Method not found" },
  } as unknown as JSONRPCMessage);
  await until(() => h.output.length === 2, "both lines");
  const error = h.output[0].error as { message: string; data: { requested: string } };
  assert.equal(error.message, "Unsupported protocol version; this server speaks 2026-07-28");
  assert.equal(error.data.requested, "2025-11-25\\u202e\\n" + "y".repeat(52) + "…");
  assert.deepEqual(h.output[1].error, { code: -32601, message: "Method not found" });
  await h.transport.close();
});
