/**
 * The clients people run, against the real program over real pipes: the
 * SDK v1 client (`@modelcontextprotocol/sdk`, 2025 era: what most editors
 * embed), the SDK v2 client in both eras, and the MCP Inspector CLI. Each
 * lists the tools, then calls every tool `tools/list` publishes once
 * benignly and once with an argument that is refused, using the arguments
 * of tests/helpers/tool_cases.ts; a new tool is covered as soon as it is
 * published (and fails here until it has a case).
 *
 * The v1 client and the Inspector validate `structuredContent` against the
 * published `outputSchema` even on `isError` results: before ADR-013 they
 * threw on every refusal, so a resolved call is itself part of the check.
 * Every result also passes `assertConformingResult` (ADR-020) in the helpers.
 */

import assert from "node:assert/strict";
import { DEFAULT_REMEDIES } from "../../src/contract/refusal.ts";
import { publishedTools } from "../../src/tools/registry.ts";
import { readRefusal, resultText } from "../helpers/results.ts";
import { makeCaseWorkspace, TOOL_CASES, type ToolCases } from "../helpers/tool_cases.ts";
import { connectSdk, connectSdkV1, runInspector } from "./support.ts";

/** The tools a client saw in `tools/list`, each with its cases (failing on a tool without). */
function casesOf(names: string[]): Array<[string, ToolCases]> {
  assert.deepEqual(names, publishedTools().map((t) => t.name), "tools/list is the registry");
  return names.map((name) => {
    const cases = TOOL_CASES[name];
    assert.ok(cases, `${name} is published but has no entry in TOOL_CASES`);
    return [name, cases];
  });
}

/** What the model sees of a refusal: the code and the remedy, in the text. */
function assertModelSeesRefusal(result: Parameters<typeof readRefusal>[0], code: string): void {
  const text = resultText(result);
  assert.ok(text.includes(`Refused (${code})`), text);
  const read = readRefusal(result, code as keyof typeof DEFAULT_REMEDIES);
  assert.ok(text.includes(`Remedy: ${read.remedy}`), text);
}

type CallingClient = {
  listTools(): Promise<{ tools: Array<{ name: string; outputSchema?: unknown }> }>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
  ): Promise<Parameters<typeof readRefusal>[0]>;
};

/** Lists the tools, then calls each benignly and refused; every call must resolve. */
async function exercise(client: CallingClient, t: Deno.TestContext): Promise<void> {
  // tools/list first: the v1 client validates later results only against schemas it listed.
  const { tools } = await client.listTools();
  for (const tool of tools) assert.ok(tool.outputSchema, `${tool.name} lists an outputSchema`);
  for (const [name, cases] of casesOf(tools.map((tool) => tool.name))) {
    await t.step(`${name}: a benign call succeeds with structured content`, async () => {
      const result = await client.callTool({ name, arguments: cases.benign });
      assert.notEqual(result.isError, true, resultText(result));
      assert.ok(result.structuredContent, "structuredContent is present");
    });
    await t.step(`${name}: a refused call is a result the model can read`, async () => {
      const result = await client.callTool({ name, arguments: cases.refused.args });
      assertModelSeesRefusal(result, cases.refused.code);
    });
  }
}

Deno.test("SDK v1 client (2025 era) sees every tool's result and refusal", async (t) => {
  await using ws = await makeCaseWorkspace();
  await using session = await connectSdkV1(ws.root);
  assert.equal(session.client.getServerVersion()?.name, "devserver");
  await exercise(session.client as unknown as CallingClient, t);
});

for (const era of ["modern", "legacy"] as const) {
  Deno.test(`SDK v2 client (${era} era) sees every tool's result and refusal`, async (t) => {
    await using ws = await makeCaseWorkspace();
    await using session = await connectSdk(ws.root, { era });
    assert.equal(session.client.getProtocolEra(), era);
    await exercise(session.client as unknown as CallingClient, t);
  });
}

Deno.test("Inspector CLI sees every tool's result and refusal", async (t) => {
  await using ws = await makeCaseWorkspace();
  const listed = await runInspector(ws.root, ["--method", "tools/list"]);
  assert.equal(listed.code, 0, listed.stdout + listed.stderr);
  const tools = (listed.answers[0]?.result?.tools ?? []) as Array<{ name: string }>;
  for (const [name, cases] of casesOf(tools.map((tool) => tool.name))) {
    const call = (args: Record<string, unknown>) =>
      runInspector(ws.root, [
        "--method",
        "tools/call",
        "--tool-name",
        name,
        ...(Object.keys(args).length > 0 ? ["--tool-args-json", JSON.stringify(args)] : []),
      ]);
    await t.step(`${name}: a benign call succeeds with structured content`, async () => {
      const run = await call(cases.benign);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.equal(run.answers.length, 1, run.stdout);
      assert.ok(run.answers[0].result?.structuredContent, run.stdout);
    });
    await t.step(`${name}: a refused call is a result, not a client error`, async () => {
      const run = await call(cases.refused.args);
      const [answer] = run.answers;
      assert.ok(answer?.result, `the Inspector reported no result: ${run.stdout}${run.stderr}`);
      assertModelSeesRefusal(answer.result, cases.refused.code);
      // The Inspector's only complaint is that the tool said isError (its exit code 5),
      // not a schema validation failure of its own.
      assert.deepEqual(run.errors.map((e) => e.error?.code), ["tool_is_error"], run.stderr);
      assert.equal(run.code, 5, run.stdout + run.stderr);
    });
  }
});
