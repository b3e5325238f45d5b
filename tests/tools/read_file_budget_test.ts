/**
 * read_file within the response budget, run directly against a workspace
 * (no workers): every result fits `MCP_SERVER__MAX_RESULT_CHARS`, both
 * halves counted, and the continuation it names reads the rest exactly.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { shapedResultChars } from "../../src/contract/budget.ts";
import { cutBeforeSecrets, pickWithinBudget } from "../../src/tools/read_file.ts";
import { callDirect, directContext, makeWorkspace, textOf } from "../helpers/fixtures.ts";

interface Read {
  content: string;
  start_line: number;
  end_line: number;
  total_lines: number;
  truncated: boolean;
  next_start_line?: number;
  cut_line?: number;
}

function ok(result: CallToolResult | { invalidParams: string }): CallToolResult & {
  structuredContent: Read;
} {
  assert.ok(!("invalidParams" in result));
  assert.equal(result.isError, undefined, textOf(result));
  return result as CallToolResult & { structuredContent: Read };
}

Deno.test("read_file budget: a 4,000-line file is read in budget-sized pieces that rejoin exactly", async () => {
  const line = (n: number) => `const value${n} = compute(${n}, "some string literal", [1, 2, 3]);`;
  const text = Array.from({ length: 4000 }, (_, i) => line(i + 1)).join("\n") + "\n";
  await using ws = await makeWorkspace({ "big.ts": text });
  const ctx = directContext(ws.root);
  let next: number | undefined = 1;
  let rejoined = "";
  let calls = 0;
  while (next !== undefined) {
    const result = ok(await callDirect(ctx, "read_file", { path: "big.ts", start_line: next }));
    calls++;
    assert.ok(shapedResultChars(result) <= 50_000, `result of ${shapedResultChars(result)} chars`);
    const s = result.structuredContent;
    assert.equal(s.start_line, next);
    rejoined += s.content;
    if (s.next_start_line !== undefined) {
      assert.equal(s.truncated, true);
      assert.equal(s.next_start_line, s.end_line + 1);
      assert.match(
        textOf(result),
        new RegExp(`cut at the response budget; ask for start_line ${s.next_start_line}`),
      );
    }
    next = s.next_start_line;
  }
  assert.equal(rejoined, text, "the pieces rejoin to the whole file, nothing lost or repeated");
  assert.ok(calls >= 6, `a 4,000-line file of ~270 KB takes several calls (took ${calls})`);
});

Deno.test("read_file budget: a line longer than the budget is cut, marked, and the call still answers", async () => {
  await using ws = await makeWorkspace({ "min.js": "x".repeat(20_000) + "\nsecond\n" });
  const ctx = directContext(ws.root, { MCP_SERVER__MAX_RESULT_CHARS: "10000" });
  const result = ok(await callDirect(ctx, "read_file", { path: "min.js" }));
  const s = result.structuredContent;
  assert.ok(shapedResultChars(result) <= 10_000, `${shapedResultChars(result)} chars`);
  assert.equal(s.cut_line, 1);
  assert.equal(s.truncated, true);
  assert.equal(s.next_start_line, 2);
  assert.ok(s.content.length > 100 && s.content.length < 20_000);
  assert.match(textOf(result), /Line 1 is longer than the response budget and was cut/);
  const rest = ok(await callDirect(ctx, "read_file", { path: "min.js", start_line: 2 }));
  assert.equal(rest.structuredContent.content, "second\n");
  assert.equal(rest.structuredContent.truncated, false);
});

Deno.test("read_file budget: text that JSON escapes to six times its size still fits", async () => {
  const hostile = ("\u0001".repeat(200) + "\n").repeat(400);
  await using ws = await makeWorkspace({ "ctl.txt": hostile });
  const ctx = directContext(ws.root, { MCP_SERVER__MAX_RESULT_CHARS: "12000" });
  const result = ok(await callDirect(ctx, "read_file", { path: "ctl.txt" }));
  assert.ok(shapedResultChars(result) <= 12_000, `${shapedResultChars(result)} chars`);
  assert.equal(result.structuredContent.truncated, true);
});

Deno.test("read_file budget: pickWithinBudget counts both halves and always makes progress", () => {
  const lines = ["aaaa", "bbbb", "cccc"];
  // Each line costs width 1 + 4 + 2 + JSON 6 = 13.
  assert.deepEqual(pickWithinBudget(lines, 1, 3, 1, 26), { lines: ["aaaa", "bbbb"] });
  assert.deepEqual(pickWithinBudget(lines, 1, 3, 1, 39), { lines: lines });
  assert.deepEqual(pickWithinBudget(lines, 2, 3, 1, 13), { lines: ["bbbb"] });
  const cut = pickWithinBudget(["y".repeat(100)], 1, 1, 1, 30);
  assert.equal(cut.cutLine, 1);
  assert.ok(cut.lines[0].length >= 1 && cut.lines[0].length <= 13);
});

Deno.test("attack: a line cut to fit the budget never ends inside a secret, so no piece of it is returned", () => {
  const token = "ghp_" + "a1B2c3D4e5".repeat(4);
  const line = "x".repeat(99) + " " + token + " " + "y".repeat(100);
  const text = "first line\n" + line + "\n";
  const lineStart = "first line\n".length;
  // A budget cut that falls in the middle of the token.
  const cut = cutBeforeSecrets(text, lineStart, line.slice(0, 110));
  assert.equal(cut, "x".repeat(99) + " ", "the cut moves back to where the secret starts");
  // A cut after the whole token leaves it for the pipeline to redact whole.
  assert.equal(cutBeforeSecrets(text, lineStart, line.slice(0, 150)), line.slice(0, 150));
});
