/**
 * The protocol layer's error contract, in-process: the SDK's serveStdio over
 * our LineTransport, with a dispatcher that fails in chosen ways.
 */
import assert from "node:assert/strict";
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { ToolDispatcher } from "../../src/protocol/dispatch.ts";
import { createServerFactory, SERVER_INSTRUCTIONS } from "../../src/protocol/server.ts";
import { LineTransport } from "../../src/transport/stdio.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A running in-process server whose dispatcher is `call`; send lines, read replies by id. */
function connect(call: ToolDispatcher["call"]) {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const replies: Record<string, unknown>[] = [];
  const arrived: Array<() => void> = [];
  let buffered = "";
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      buffered += new TextDecoder().decode(chunk);
      let nl;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        replies.push(JSON.parse(buffered.slice(0, nl)));
        buffered = buffered.slice(nl + 1);
        arrived.splice(0).forEach((wake) => wake());
      }
    },
  });
  const transport = new LineTransport(input.readable, output, { maxLineBytes: 1 << 20 });
  const dispatcher = { call } as unknown as ToolDispatcher;
  const handle = serveStdio(createServerFactory(dispatcher), { transport });
  const writer = input.writable.getWriter();
  return {
    async request(id: number, method: string, params: Record<string, unknown> = {}) {
      const line = JSON.stringify({
        jsonrpc: "2.0",
        id,
        method,
        params: { ...params, _meta: META },
      });
      await writer.write(new TextEncoder().encode(line + "\n"));
      while (!replies.some((r) => r.id === id)) {
        await new Promise<void>((resolve) => arrived.push(resolve));
      }
      return replies.find((r) => r.id === id) as {
        result?: Record<string, unknown>;
        error?: { code: number; message: string };
      };
    },
    async close() {
      await writer.close();
      await handle.close();
    },
  };
}

Deno.test("an unexpected exception in a tool call is -32603 with no internal detail", async () => {
  const server = connect(() => {
    throw new Error("boom at /home/alice/secret/path.ts:12");
  });
  try {
    const reply = await server.request(1, "tools/call", { name: "read_file", arguments: {} });
    assert.equal(reply.error?.code, -32603);
    assert.equal(reply.error?.message, "Internal error");
    assert.ok(!JSON.stringify(reply).includes("alice"));
    assert.ok(!JSON.stringify(reply).includes("boom"));
  } finally {
    await server.close();
  }
});

Deno.test("a ProtocolError from dispatch keeps its code and message (-32602)", async () => {
  const server = connect(() => {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid cursor: forged.");
  });
  try {
    const reply = await server.request(1, "tools/call", { name: "list_directory", arguments: {} });
    assert.equal(reply.error?.code, -32602);
    assert.equal(reply.error?.message, "Invalid cursor: forged.");
  } finally {
    await server.close();
  }
});

Deno.test("discover carries the untrusted-content instructions and tools.listChanged false", async () => {
  const server = connect(() => Promise.resolve({ content: [] }));
  try {
    const reply = await server.request(1, "server/discover");
    const result = reply.result as {
      instructions?: string;
      capabilities?: { tools?: { listChanged?: boolean } };
      supportedVersions?: string[];
      resultType?: string;
    };
    assert.equal(result.instructions, SERVER_INSTRUCTIONS);
    assert.match(result.instructions ?? "", /never an instruction/);
    assert.equal(result.capabilities?.tools?.listChanged, false);
    assert.deepEqual(result.supportedVersions, ["2026-07-28"]);
    assert.equal(result.resultType, "complete");
  } finally {
    await server.close();
  }
});

Deno.test("tools/list is stable across calls and every tool is read-only", async () => {
  const server = connect(() => Promise.resolve({ content: [] }));
  try {
    const first = (await server.request(1, "tools/list")).result as {
      tools: { name: string; annotations: Record<string, boolean> }[];
    };
    const second = (await server.request(2, "tools/list")).result as typeof first;
    assert.deepEqual(first.tools.map((t) => t.name), [
      "read_file",
      "list_directory",
      "search_code",
      "find_symbol",
      "project_overview",
      "git_log",
      "git_diff",
    ]);
    assert.deepEqual(second.tools, first.tools);
    for (const tool of first.tools) {
      assert.equal(tool.annotations.readOnlyHint, true);
      assert.equal(tool.annotations.destructiveHint, false);
    }
  } finally {
    await server.close();
  }
});
