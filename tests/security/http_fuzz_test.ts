/**
 * 10,000 malformed bodies against the HTTP handler in-process (the real
 * server behind it): byte-mutated and truncated JSON-RPC messages, valid
 * JSON of the wrong shape or types, nesting 100,000 deep, invalid UTF-8 and
 * random bytes. Each must be answered — never a crash, never a hang — with a
 * JSON-RPC error (a body that is not JSON with -32700), and no answer may
 * carry a stack trace, a module path or the workspace path. The server must
 * serve a real call afterwards. The generator is seeded: a failure names the
 * case that produced it.
 */

import assert from "node:assert/strict";
import { createDevServer } from "../../src/app.ts";
import { createHttpHandler } from "../../src/transport/http.ts";
import { configFor, makeWorkspace } from "../helpers/fixtures.ts";
import { ENVELOPE, modernHeaders, toolCall } from "../helpers/http.ts";
import { mulberry32 } from "../helpers/random.ts";

const CASES = 10_000;
const URL_MCP = "http://localhost/mcp";

const encoder = new TextEncoder();

const VALID = [
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: ENVELOPE } },
  {
    jsonrpc: "2.0",
    id: "x",
    method: "tools/call",
    params: { name: "no_such_tool", arguments: { path: "a.txt" }, _meta: ENVELOPE },
  },
  { jsonrpc: "2.0", id: 2, method: "server/discover", params: { _meta: ENVELOPE } },
];

/** Shapes that are JSON but not a valid request. */
const WRONG_SHAPES: unknown[] = [
  42,
  "tools/list",
  null,
  true,
  {},
  { jsonrpc: "1.0", id: 1, method: "tools/list" },
  { jsonrpc: "2.0", id: { nested: 1 }, method: "tools/list", params: { _meta: ENVELOPE } },
  { jsonrpc: "2.0", id: [1], method: "tools/list", params: { _meta: ENVELOPE } },
  { jsonrpc: "2.0", id: 1, method: 7, params: { _meta: ENVELOPE } },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: "not an object" },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: "not an object" } },
  {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": 2026 } },
  },
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 5, _meta: ENVELOPE } },
  {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "read_file", arguments: "x", _meta: ENVELOPE },
  },
  { jsonrpc: "2.0", id: 1, result: {} },
  { jsonrpc: "2.0", id: 1, error: { code: 1, message: "x" } },
];

type Case = { kind: string; bytes: Uint8Array; json: boolean };

function makeCase(i: number, random: () => number): Case {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const kind = i % 5;
  if (kind === 0) {
    // A valid message, bytes mutated.
    const bytes = encoder.encode(JSON.stringify(pick(VALID)));
    const edits = 1 + Math.floor(random() * 4);
    let out = Array.from(bytes);
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(random() * out.length);
      const op = random();
      if (op < 0.4) out[at] = Math.floor(random() * 256);
      else if (op < 0.7) out.splice(at, 1);
      else out.splice(at, 0, pick([0x7b, 0x7d, 0x5b, 0x5d, 0x22, 0x2c, 0x3a, 0x5c, 0x00]));
    }
    if (random() < 0.3) out = out.slice(0, Math.floor(random() * out.length));
    const result = new Uint8Array(out);
    return { kind: "mutated", bytes: result, json: parses(result) };
  }
  if (kind === 1) {
    return {
      kind: "wrong-shape",
      bytes: encoder.encode(JSON.stringify(pick(WRONG_SHAPES))),
      json: true,
    };
  }
  if (kind === 2) {
    // Mostly moderate; every 500th case 10,000 deep, every 2,000th 100,000 deep (the deep ones
    // cost a parse of megabytes each, so a few prove the point).
    const depth = i % 2000 === 2 ? 100_000 : i % 500 === 2 ? 10_000 : pick([50, 500, 2000]);
    const open = pick(["[", '{"a":']);
    const close = open === "[" ? "]" : "}";
    const text = random() < 0.5
      ? open.repeat(depth) + "1" + close.repeat(depth)
      : `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":${'{"a":'.repeat(depth)}1${
        "}".repeat(depth)
      }}}`;
    const bytes = encoder.encode(text);
    return { kind: "nesting", bytes, json: parses(bytes) };
  }
  if (kind === 3) {
    // Invalid UTF-8 inside an otherwise valid message.
    const text = JSON.stringify(pick(VALID));
    const at = Math.floor(random() * text.length);
    const bad = pick([[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [
      0xe2,
      0x82,
    ]]);
    const bytes = new Uint8Array([
      ...encoder.encode(text.slice(0, at)),
      ...bad,
      ...encoder.encode(text.slice(at)),
    ]);
    return { kind: "utf8", bytes, json: false };
  }
  const bytes = new Uint8Array(Math.floor(random() * 512));
  for (let b = 0; b < bytes.length; b++) bytes[b] = Math.floor(random() * 256);
  return { kind: "random", bytes, json: parses(bytes) };
}

function parses(bytes: Uint8Array): boolean {
  try {
    JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    return true;
  } catch {
    return false;
  }
}

Deno.test("attack: 10,000 malformed bodies — each a JSON-RPC error, no crash, no internals leaked", async () => {
  await using ws = await makeWorkspace({ "a.txt": "alpha\n" });
  const server = createDevServer(configFor(ws.root));
  const handler = createHttpHandler({
    hostname: "127.0.0.1",
    port: 0,
    factory: server.factory,
    legacy: "stateless",
    policy: { allowedHosts: [], allowedOrigins: [] },
    maxBodyBytes: 1024 * 1024,
    requestTimeoutMs: 5000,
    maxConcurrentCalls: 64,
    readiness: () => Promise.resolve({ ready: true, checks: {} }),
  });
  const random = mulberry32(11);
  const kinds = new Map<string, number>();
  try {
    for (let start = 0; start < CASES; start += 100) {
      const batch = Array.from({ length: 100 }, (_, j) => makeCase(start + j, random));
      await Promise.all(batch.map(async (c, j) => {
        const label = `case ${start + j} (${c.kind})`;
        kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
        const response = await handler.fetch(
          new Request(URL_MCP, {
            method: "POST",
            headers: { ...modernHeaders("tools/list"), Host: "localhost" },
            body: c.bytes as Uint8Array<ArrayBuffer>,
          }),
        );
        const text = await response.text();
        assert.doesNotMatch(text, /\n\s+at |file:\/\/|node_modules|\/src\//, label);
        assert.ok(!text.includes(ws.root), `${label}: the workspace path leaked`);
        if (response.status === 202) {
          // A mutation that left a notification: accepted, never answered.
          assert.equal(text, "", label);
          return;
        }
        const body = JSON.parse(text);
        assert.equal(body.jsonrpc, "2.0", label);
        if (!c.json) {
          assert.equal(response.status, 400, `${label}: ${text.slice(0, 200)}`);
          assert.equal(body.error?.code, -32700, `${label}: ${text.slice(0, 200)}`);
          return;
        }
        if (c.kind === "wrong-shape" || c.kind === "nesting") {
          assert.ok(
            response.status >= 400 && response.status < 500,
            `${label}: ${response.status}`,
          );
        }
        if (body.error !== undefined) {
          assert.ok(Number.isInteger(body.error.code), label);
          assert.equal(typeof body.error.message, "string", label);
        } else {
          // A mutation that is still a valid request (a changed id or letter) is answered.
          assert.ok(body.result !== undefined && response.status === 200, label);
        }
      }));
    }
    assert.equal([...kinds.values()].reduce((a, b) => a + b, 0), CASES);
    // Still serving.
    const ok = await handler.fetch(
      toolCall(URL_MCP, 1, "read_file", { path: "a.txt" }, { headers: { Host: "localhost" } }),
    );
    assert.equal((await ok.json()).result.structuredContent.content, "alpha\n");
    assert.equal(handler.inFlight, 0);
  } finally {
    await handler.close();
    server.close();
  }
});
