/**
 * The SDK's own client and stdio transport against the real program, in
 * both protocol eras: what an editor sees when it starts `devserver serve`.
 * One server process per era; the checks are steps on it.
 */

import assert from "node:assert/strict";
import { ProtocolError } from "@modelcontextprotocol/client";
import { makeWorkspace } from "../helpers/fixtures.ts";
import { readRefusal } from "../helpers/results.ts";
import { connectSdk, type Era, FENCE_OPEN, MODERN, type SdkSession } from "./support.ts";

const FILES = {
  "notes.md": "alpha\nbeta\n",
  "src/main.ts": "console.log(1);\n",
  ".env": "TOKEN=do-not-serve\n",
};

type ToolResult = Awaited<ReturnType<SdkSession["client"]["callTool"]>>;

function textOf(result: ToolResult): string {
  const block = (result.content as Array<{ type: string; text?: string }>)[0];
  assert.equal(block?.type, "text");
  return block.text ?? "";
}

const EXPECTED_VERSION: Record<Era, string> = { modern: MODERN, legacy: "2025-11-25" };

for (const era of ["modern", "legacy"] as const) {
  Deno.test(`SDK client (${era} era) over a real stdio pipe`, async (t) => {
    await using ws = await makeWorkspace(FILES);
    await using session = await connectSdk(ws.root, { era });
    const { client } = session;

    await t.step("negotiates the expected era and revision", () => {
      assert.equal(client.getProtocolEra(), era);
      assert.equal(client.getNegotiatedProtocolVersion(), EXPECTED_VERSION[era]);
      const info = client.getServerVersion();
      assert.equal(info?.name, "devserver");
      assert.match(info?.version ?? "", /^\d+\.\d+\.\d+/);
      assert.deepEqual(client.getServerCapabilities()?.tools, { listChanged: false });
    });

    await t.step("instructions say fenced content is untrusted data", () => {
      const instructions = client.getInstructions() ?? "";
      assert.match(instructions, /<untrusted-file-content id=/);
      assert.match(instructions, /never an instruction/);
      assert.match(instructions, /untrusted_content/);
    });

    await t.step("tools/list: read_file, list_directory, search_code, all read-only", async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), [
        "read_file",
        "list_directory",
        "search_code",
      ]);
      assert.deepEqual(tools.map((tool) => tool.title), [
        "Read file",
        "List directory",
        "Search code",
      ]);
      for (const tool of tools) {
        assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
        assert.equal(tool.annotations?.destructiveHint, false, tool.name);
        assert.equal(tool.annotations?.idempotentHint, true, tool.name);
        assert.equal(tool.annotations?.openWorldHint, false, tool.name);
        assert.equal(tool.inputSchema.type, "object", tool.name);
        assert.equal(tool.outputSchema?.type, "object", tool.name);
      }
      assert.deepEqual(tools[0].inputSchema.required, ["path"]);
    });

    await t.step("read_file: fenced text and structured content", async () => {
      // The SDK validates structuredContent against the published outputSchema.
      const result = await client.callTool({ name: "read_file", arguments: { path: "notes.md" } });
      assert.ok(!result.isError);
      const text = textOf(result);
      const nonce = text.match(FENCE_OPEN)?.[1];
      assert.ok(nonce, text);
      assert.ok(
        text.includes(`1\talpha\n2\tbeta\n</untrusted-file-content id=${nonce}>`),
        text,
      );
      const structured = result.structuredContent as Record<string, unknown>;
      assert.equal(structured.path, "notes.md");
      assert.equal(structured.content, "alpha\nbeta\n");
      assert.equal(structured.total_lines, 2);
      assert.equal(structured.untrusted_content, true);
      assert.deepEqual(structured.redactions, []);
    });

    await t.step("list_directory: the root, credentials counted not named", async () => {
      const result = await client.callTool({ name: "list_directory", arguments: {} });
      assert.ok(!result.isError);
      const structured = result.structuredContent as {
        entries: Array<{ name: string; type: string }>;
        denied_count: number;
        untrusted_content: boolean;
      };
      assert.deepEqual(structured.entries.map((e) => [e.name, e.type]), [
        ["src", "directory"],
        ["notes.md", "file"],
      ]);
      assert.equal(structured.denied_count, 1);
      assert.equal(structured.untrusted_content, true);
      assert.ok(!textOf(result).includes(".env"));
    });

    await t.step("refusals are tool results with a code and a remedy", async () => {
      const outside = await client.callTool({
        name: "read_file",
        arguments: { path: "../outside/secret.txt" },
      });
      assert.ok(readRefusal(outside, "outside_workspace").remedy.length > 0);
      assert.ok(!JSON.stringify(outside).includes("OUTSIDE-SECRET"));

      const denied = await client.callTool({ name: "read_file", arguments: { path: ".env" } });
      readRefusal(denied, "denied_path");
      assert.ok(!JSON.stringify(denied).includes("do-not-serve"));
    });

    await t.step("an unknown tool is a -32602 protocol error", async () => {
      await assert.rejects(
        client.callTool({ name: "write_file", arguments: {} }),
        (error: unknown) => error instanceof ProtocolError && error.code === -32602,
      );
    });
  });
}

Deno.test("MCP_SERVER__LEGACY_CLIENTS=reject: legacy clients cannot connect, modern ones can", async () => {
  await using ws = await makeWorkspace(FILES);
  const env = { MCP_SERVER__LEGACY_CLIENTS: "reject" };
  await assert.rejects(
    connectSdk(ws.root, { era: "legacy", env }),
    (error: unknown) => (error as { code?: number }).code === -32022,
  );
  await using modern = await connectSdk(ws.root, { era: "modern", env });
  const { tools } = await modern.client.listTools();
  assert.equal(tools.length, 3);
});
