/**
 * The check every test result goes through (`assertConformingResult`,
 * installed by `startServer`, `callDirect` and the end-to-end helpers) can
 * fail: fed results that break the contract, it names what is wrong.
 */

import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { REFUSAL_META_KEY } from "../../src/contract/envelope.ts";
import type { ToolDispatcher } from "../../src/protocol/dispatch.ts";
import { callDirect, checkEveryResult, directContext, makeWorkspace } from "../helpers/fixtures.ts";
import { assertConformingResult, resultProblems } from "../helpers/schema.ts";

const LIMITS = { maxResultChars: 50_000 };

/** A `read_file` success as the pipeline shapes it. */
function readFileSuccess(): CallToolResult {
  return {
    content: [{ type: "text", text: "read_file: lines 1-1 of 1.\n…" }],
    structuredContent: {
      path: "a.txt",
      content: "a\n",
      start_line: 1,
      end_line: 1,
      total_lines: 1,
      truncated: false,
      size_bytes: 2,
      replaced_invalid_utf8: 0,
      untrusted_content: true,
      redactions: [],
    },
  };
}

const REFUSAL: CallToolResult = {
  isError: true,
  content: [{ type: "text", text: "Refused (not_found): Nothing there.\nRemedy: Check it." }],
  _meta: { [REFUSAL_META_KEY]: { error: "not_found", remedy: "Check it." } },
};

Deno.test("result check: a conforming success and a conforming refusal pass", () => {
  assert.deepEqual(resultProblems("read_file", readFileSuccess(), LIMITS), []);
  assert.deepEqual(resultProblems("read_file", REFUSAL, LIMITS), []);
});

Deno.test("result check: structuredContent outside the published outputSchema fails", () => {
  const bad = readFileSuccess();
  const { path: _path, ...withoutPath } = bad.structuredContent as Record<string, unknown>;
  bad.structuredContent = { ...withoutPath, total_lines: -1 };
  const problems = resultProblems("read_file", bad, LIMITS);
  assert.ok(problems.some((p) => /must have required property 'path'/.test(p)), problems.join());
  assert.ok(problems.some((p) => /\/total_lines must be >= 0/.test(p)), problems.join());
  assert.throws(
    () => assertConformingResult("read_file", bad, LIMITS),
    /breaks the result contract/,
  );
});

Deno.test("result check: the refusal shape before ADR-013 fails (what SDK v1 rejected)", () => {
  // The shape of commit 36871c8: the refusal in structuredContent too.
  const old: CallToolResult = {
    isError: true,
    content: [{
      type: "text",
      text:
        "Refused (outside_workspace): The path climbs above the workspace.\nRemedy: Stay inside.",
    }],
    structuredContent: {
      error: "outside_workspace",
      message: "The path climbs above the workspace.",
      remedy: "Stay inside.",
    },
  };
  assert.deepEqual(resultProblems("read_file", old, LIMITS), [
    "a refusal carries structuredContent (ADR-013: it must not)",
    `_meta["${REFUSAL_META_KEY}"] does not say outside_workspace`,
  ]);
});

Deno.test("result check: a success without structuredContent, or a refusal in free text, fails", () => {
  assert.deepEqual(resultProblems("read_file", { content: [] }, LIMITS), [
    "a successful result has no structuredContent, but the tool has an outputSchema",
  ]);
  const freeText = { ...REFUSAL, content: [{ type: "text", text: "No." }] };
  const problems = resultProblems("read_file", freeText, LIMITS);
  assert.ok(problems.some((p) => p.startsWith("a refusal's text is not")), problems.join());
});

Deno.test("result check: a result over the response budget fails", () => {
  const big = readFileSuccess();
  (big.structuredContent as Record<string, unknown>).content = "x".repeat(LIMITS.maxResultChars);
  const problems = resultProblems("read_file", big, LIMITS);
  assert.equal(problems.length, 1, problems.join());
  assert.match(problems[0], /^the result holds \d+ characters, over the budget of 50000$/);
});

Deno.test("result check: a result for a tool nobody publishes fails", () => {
  assert.deepEqual(resultProblems("write_file", readFileSuccess(), LIMITS), [
    'no published tool is called "write_file"',
  ]);
});

Deno.test("result check: once installed on a dispatcher, a bad result fails the call", async () => {
  const bad = readFileSuccess();
  delete (bad.structuredContent as Record<string, unknown>).untrusted_content;
  const dispatcher = { call: () => Promise.resolve(bad) } as unknown as ToolDispatcher;
  checkEveryResult(dispatcher, LIMITS);
  await assert.rejects(
    dispatcher.call("read_file", { path: "a.txt" }),
    /must have required property 'untrusted_content'/,
  );
});

Deno.test("result check: callDirect's invalid_arguments is the dispatcher's one-line refusal", async () => {
  await using ws = await makeWorkspace({ "a.txt": "a\n" });
  const result = await callDirect(directContext(ws.root), "read_file", { path: 1, extra: 2 });
  assert.ok(!("invalidParams" in result));
  assert.deepEqual(resultProblems("read_file", result, LIMITS), []);
  const unknown = await callDirect(directContext(ws.root), "write_file", {});
  assert.ok("invalidParams" in unknown, "an unknown tool is a -32602");
  assert.match(String(unknown.invalidParams), /Unknown tool/);
});
