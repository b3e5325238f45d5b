/**
 * The check every test result goes through (`assertConformingResult`,
 * installed by `startServer`, `callDirect` and the end-to-end helpers) can
 * fail: fed results that break the contract, it names what is wrong.
 */

import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { REFUSAL_META_KEY } from "../../src/contract/envelope.ts";
import type { ToolDispatcher } from "../../src/protocol/dispatch.ts";
import { publishedTools } from "../../src/tools/registry.ts";
import { callDirect, checkEveryResult, directContext, makeWorkspace } from "../helpers/fixtures.ts";
import { assertConformingResult, resultProblems } from "../helpers/schema.ts";

const LIMITS = { maxResultChars: 50_000 };

/**
 * A real `read_file` success (made once), so these checks follow the output
 * schema as it changes instead of a copy of it.
 */
const SUCCESS: CallToolResult = await (async () => {
  await using ws = await makeWorkspace({ "a.txt": "a\n" });
  const result = await callDirect(directContext(ws.root), "read_file", { path: "a.txt" });
  if ("invalidParams" in result || result.isError) throw new Error("read_file did not succeed");
  return result;
})();

/** A copy of the real success whose structuredContent `edit` may change. */
function readFileSuccess(): CallToolResult {
  return structuredClone(SUCCESS);
}

/** The fields read_file's published outputSchema requires. */
const REQUIRED = (publishedTools().find((t) => t.name === "read_file")!.outputSchema!
  .required ?? []) as string[];

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
  const structured = bad.structuredContent as Record<string, unknown>;
  assert.ok(REQUIRED.length > 0, "read_file's outputSchema requires fields");
  delete structured[REQUIRED[0]];
  structured.not_in_the_schema = 1;
  const problems = resultProblems("read_file", bad, LIMITS);
  assert.ok(
    problems.some((p) => p.includes(`must have required property '${REQUIRED[0]}'`)),
    problems.join(),
  );
  assert.ok(problems.some((p) => /must NOT have additional properties/.test(p)), problems.join());
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
  big.content = [{ type: "text", text: "x".repeat(LIMITS.maxResultChars) }];
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
  delete (bad.structuredContent as Record<string, unknown>)[REQUIRED.at(-1)!];
  const dispatcher = { call: () => Promise.resolve(bad) } as unknown as ToolDispatcher;
  checkEveryResult(dispatcher, LIMITS);
  await assert.rejects(
    dispatcher.call("read_file", { path: "a.txt" }),
    new RegExp(`must have required property '${REQUIRED.at(-1)}'`),
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
