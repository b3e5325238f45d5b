import assert from "node:assert/strict";
import { ProtocolError } from "@modelcontextprotocol/server";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { ReadFileOutput } from "../../src/tools/read_file.ts";
import { makeWorkspace, startServer, textOf } from "../helpers/fixtures.ts";
import { readRefusal } from "../helpers/results.ts";
import type { RefusalCode } from "../../src/contract/refusal.ts";

// One in-process server (real sandbox workers) serves every step: starting one costs far
// more than all the calls together. The caps are small so the limits are reachable.
const MAX_LINES = 3;
const MAX_FILE_BYTES = 16384;

const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

type Structured = {
  path: string;
  content: string;
  start_line: number;
  end_line: number;
  total_lines: number;
  truncated: boolean;
  size_bytes: number;
  replaced_invalid_utf8: number;
  hard_links?: number;
  untrusted_content: true;
  redaction: { applied: boolean; count: number; rules: { rule: string; count: number }[] };
};

/** The structured half of a successful read, checked against the published output schema. */
function ok(result: CallToolResult): Structured {
  assert.equal(result.isError, undefined, textOf(result));
  const parsed = ReadFileOutput.safeParse(result.structuredContent);
  assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
  return result.structuredContent as Structured;
}

/** Asserts an isError refusal with `code`; returns its message. */
function refused(result: CallToolResult, code: string): string {
  return readRefusal(result, code as RefusalCode).message;
}

/** The text between the fence markers. */
function fenced(result: CallToolResult): string {
  const m = textOf(result).match(
    /<untrusted-file-content id=([0-9a-f]{32})>\n([\s\S]*?)<\/untrusted-file-content id=\1>/,
  );
  assert.ok(m, textOf(result));
  return m[2];
}

Deno.test("read_file through the in-process server", async (t) => {
  await using ws = await makeWorkspace({
    "three.txt": "alpha\nbeta\ngamma\n",
    "ten.txt": TEN,
    "no-final-newline.txt": "a\nb",
    "empty.txt": "",
    "bad-utf8.txt": new Uint8Array([0x61, 0xff, 0x62, 0x0a, 0xc3, 0x0a]),
    "literal-fffd.txt": "x\uFFFDy\n",
    "mixed.txt": new Uint8Array([...new TextEncoder().encode("ok \uFFFD "), 0x80, 0x0a]),
    "exact.txt": "x".repeat(MAX_FILE_BYTES - 1) + "\n",
    "big.txt": "x".repeat(MAX_FILE_BYTES) + "\n",
    "nul.txt": "text\0more\n",
    "late-nul.txt": "a".repeat(8192) + "\0\n",
    "dir/inner.txt": "inner\n",
    "sub/file.txt": "nested\n",
  });
  using server = startServer(ws.root, {
    MCP_SANDBOX__MAX_LINES: String(MAX_LINES),
    MCP_SANDBOX__MAX_FILE_BYTES: String(MAX_FILE_BYTES),
  });
  const read = (args: unknown) => server.dispatcher.call("read_file", args);

  await t.step("returns numbered lines inside the fence, and the lines in structured", async () => {
    const result = await read({ path: "three.txt" });
    const s = ok(result);
    assert.equal(fenced(result), "1\talpha\n2\tbeta\n3\tgamma\n");
    assert.match(textOf(result), /^read_file: lines 1-3 of 3\.\n/);
    assert.deepEqual(
      { ...s, redaction: undefined, content_assessment: undefined },
      {
        path: "three.txt",
        content: "alpha\nbeta\ngamma\n",
        start_line: 1,
        end_line: 3,
        total_lines: 3,
        truncated: false,
        size_bytes: 17,
        replaced_invalid_utf8: 0,
        untrusted_content: true,
        redaction: undefined,
        content_assessment: undefined,
      },
    );
    assert.deepEqual(s.redaction, { applied: false, count: 0, rules: [] });
  });

  await t.step("accepts nested and absolute paths inside the workspace", async () => {
    assert.equal(ok(await read({ path: "sub/file.txt" })).content, "nested\n");
    assert.equal(ok(await read({ path: ws.path("sub", "file.txt") })).path, "sub/file.txt");
  });

  await t.step("returns a range, numbers padded to the widest", async () => {
    const result = await read({ path: "ten.txt", start_line: 8, end_line: 10 });
    const s = ok(result);
    assert.equal(fenced(result), " 8\tline 8\n 9\tline 9\n10\tline 10\n");
    assert.equal(s.content, "line 8\nline 9\nline 10\n");
    assert.equal(s.start_line, 8);
    assert.equal(s.end_line, 10);
    assert.equal(s.total_lines, 10);
    assert.equal(s.truncated, false);
  });

  await t.step("a sub-range ending before the file's end keeps its newline", async () => {
    const s = ok(await read({ path: "ten.txt", start_line: 2, end_line: 3 }));
    assert.equal(s.content, "line 2\nline 3\n");
    assert.equal(s.truncated, false, "an explicit sub-range is not truncation");
  });

  await t.step("end_line past the end is clamped to the last line", async () => {
    const s = ok(await read({ path: "three.txt", start_line: 2, end_line: 99 }));
    assert.equal(s.content, "beta\ngamma\n");
    assert.equal(s.end_line, 3);
    assert.equal(s.truncated, false);
  });

  await t.step("a file without a final newline is returned exactly", async () => {
    const s = ok(await read({ path: "no-final-newline.txt" }));
    assert.equal(s.content, "a\nb");
    assert.equal(s.total_lines, 2);
  });

  await t.step("the line cap cuts an open range and marks it truncated", async () => {
    const result = await read({ path: "ten.txt" });
    const s = ok(result);
    assert.equal(s.start_line, 1);
    assert.equal(s.end_line, MAX_LINES);
    assert.equal(s.truncated, true);
    assert.equal(s.content, "line 1\nline 2\nline 3\n");
    assert.match(textOf(result), /truncated at the 3-line cap; ask for start_line 4 to continue/);
  });

  await t.step("the line cap cuts an explicit range that is longer than the cap", async () => {
    const s = ok(await read({ path: "ten.txt", start_line: 4, end_line: 10 }));
    assert.equal(s.start_line, 4);
    assert.equal(s.end_line, 6);
    assert.equal(s.truncated, true);
  });

  await t.step("a range exactly the cap long is not truncated", async () => {
    const s = ok(await read({ path: "ten.txt", start_line: 8 }));
    assert.equal(s.end_line, 10);
    assert.equal(s.truncated, false);
  });

  await t.step("a file with several hard links says so", async () => {
    await Deno.link(ws.path("three.txt"), ws.path("three-again.txt"));
    try {
      const result = await read({ path: "three.txt" });
      assert.equal(ok(result).hard_links, 2);
      assert.match(textOf(result), /This file has 2 hard links\./);
    } finally {
      await Deno.remove(ws.path("three-again.txt"));
    }
    assert.equal(ok(await read({ path: "three.txt" })).hard_links, undefined);
  });

  await t.step("start_line past the end is refused invalid_arguments", async () => {
    const message = refused(await read({ path: "three.txt", start_line: 4 }), "invalid_arguments");
    assert.match(message, /start_line is past the end: the file has 3 lines/);
  });

  await t.step("end_line before start_line is refused invalid_arguments", async () => {
    const message = refused(
      await read({ path: "ten.txt", start_line: 5, end_line: 4 }),
      "invalid_arguments",
    );
    assert.match(message, /end_line is before start_line/);
  });

  await t.step("an empty file reads as zero lines", async () => {
    const result = await read({ path: "empty.txt" });
    const s = ok(result);
    assert.equal(s.total_lines, 0);
    assert.equal(s.start_line, 0);
    assert.equal(s.end_line, 0);
    assert.equal(s.content, "");
    assert.equal(s.size_bytes, 0);
    assert.equal(s.truncated, false);
    assert.match(textOf(result), /empty range \(the file has 0 lines\)/);
  });

  await t.step(
    "start_line past the end of an empty file is refused invalid_arguments",
    async () => {
      const result = await read({ path: "empty.txt", start_line: 5 });
      readRefusal(result, "invalid_arguments");
      assert.match(textOf(result), /the file has 0 lines/);
    },
  );

  await t.step(
    "start_line past the end of an empty file is refused invalid_arguments",
    async () => {
      const result = await read({ path: "empty.txt", start_line: 5 });
      readRefusal(result, "invalid_arguments");
      assert.match(textOf(result), /the file has 0 lines/);
    },
  );

  await t.step("invalid UTF-8 is replaced with U+FFFD and counted", async () => {
    const result = await read({ path: "bad-utf8.txt" });
    const s = ok(result);
    assert.equal(s.content, "a\uFFFDb\n\uFFFD\n");
    assert.equal(s.replaced_invalid_utf8, 2);
    assert.match(textOf(result), /2 invalid UTF-8 sequences were replaced with U\+FFFD\./);
  });

  await t.step("a literal U+FFFD in the file is not counted as a replacement", async () => {
    const literal = ok(await read({ path: "literal-fffd.txt" }));
    assert.equal(literal.content, "x\uFFFDy\n");
    assert.equal(literal.replaced_invalid_utf8, 0);
    const mixed = ok(await read({ path: "mixed.txt" }));
    assert.equal(mixed.content, "ok \uFFFD \uFFFD\n");
    assert.equal(mixed.replaced_invalid_utf8, 1);
  });

  await t.step("a file of exactly MCP_SANDBOX__MAX_FILE_BYTES is read", async () => {
    const s = ok(await read({ path: "exact.txt" }));
    assert.equal(s.size_bytes, MAX_FILE_BYTES);
  });

  await t.step("a file over MCP_SANDBOX__MAX_FILE_BYTES is refused too_large", async () => {
    refused(await read({ path: "big.txt" }), "too_large");
  });

  await t.step("a NUL in the first 8 KiB is refused binary_file", async () => {
    refused(await read({ path: "nul.txt" }), "binary_file");
  });

  await t.step("a NUL after the first 8 KiB does not make the file binary", async () => {
    const s = ok(await read({ path: "late-nul.txt" }));
    assert.equal(s.total_lines, 1);
    assert.ok(s.content.endsWith("\0\n"));
  });

  await t.step("a directory is refused not_a_file", async () => {
    refused(await read({ path: "dir" }), "not_a_file");
  });

  await t.step("a missing file is refused not_found without naming the path", async () => {
    const message = refused(await read({ path: "nope/missing.txt" }), "not_found");
    assert.ok(!message.includes(ws.root), message);
    assert.ok(!message.includes("missing.txt"), message);
  });

  await t.step("an unknown field is refused invalid_arguments naming the field", async () => {
    const message = refused(await read({ path: "three.txt", bogus: 1 }), "invalid_arguments");
    assert.match(message, /unknown field\(s\) "bogus"/);
  });

  await t.step("a wrong type is refused invalid_arguments naming the field", async () => {
    assert.match(
      refused(await read({ path: 5 }), "invalid_arguments"),
      /^Invalid arguments: path: /,
    );
    assert.match(
      refused(await read({ path: "three.txt", start_line: "2" }), "invalid_arguments"),
      /start_line: /,
    );
    assert.match(
      refused(await read({ path: "three.txt", end_line: 0 }), "invalid_arguments"),
      /end_line: /,
    );
    assert.match(refused(await read({}), "invalid_arguments"), /path: /);
    assert.match(refused(await read({ path: "" }), "invalid_arguments"), /path: /);
  });

  await t.step("argument values are never echoed in the refusal", async () => {
    const message = refused(await read({ path: ["SECRET-VALUE"] }), "invalid_arguments");
    assert.ok(!message.includes("SECRET-VALUE"), message);
  });

  await t.step("an unknown tool throws ProtocolError -32602", async () => {
    await assert.rejects(
      () => server.dispatcher.call("write_file", { path: "x" }),
      (error: unknown) => {
        assert.ok(error instanceof ProtocolError);
        assert.equal(error.code, -32602);
        assert.match(error.message, /Unknown tool: "write_file"/);
        return true;
      },
    );
  });
});
