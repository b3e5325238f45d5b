/**
 * Every registered tool's results against what it publishes, with a real
 * JSON Schema 2020-12 validator (ajv, as both SDKs): a success validates
 * against the published `outputSchema`, and every refusal the tool can
 * answer is produced (for real wherever a fixture can) and keeps ADR-013's
 * shape. Driven by the registry and tests/helpers/tool_cases.ts: a tool or
 * a declared refusal code without a case fails here.
 */

import assert from "node:assert/strict";
import { UNIVERSAL_REFUSALS } from "../../src/contract/refusal.ts";
import { publishedTools, TOOLS } from "../../src/tools/registry.ts";
import type { ToolDefinition } from "../../src/tools/types.ts";
import { callDirect, directContext, type TempWorkspace } from "../helpers/fixtures.ts";
import { readRefusal } from "../helpers/results.ts";
import { compileSchema, newValidator, schemaErrors } from "../helpers/schema.ts";
import {
  answerableCodes,
  casesFor,
  makeCaseWorkspace,
  type RefusalCase,
  tableProblems,
  TOOL_CASES,
} from "../helpers/tool_cases.ts";

/** The published definition of `tool`. */
function published(tool: ToolDefinition) {
  const found = publishedTools().find((t) => t.name === tool.name);
  assert.ok(found, `${tool.name} is not published`);
  return found;
}

async function produce(ws: TempWorkspace, tool: string, c: RefusalCase) {
  if ("produce" in c) return await c.produce();
  const result = await callDirect(directContext(ws.root, c.env ?? {}), tool, c.args);
  assert.ok(!("invalidParams" in result), `${tool} ${JSON.stringify(c.args)}: -32602`);
  return result;
}

Deno.test("contract: every registered tool and every code it can answer has a case", () => {
  assert.deepEqual(tableProblems(TOOLS), []);
});

Deno.test("contract: the table check fails on a missing tool, a missing code, a stray entry", () => {
  const fake: ToolDefinition = { ...TOOLS[0], name: "new_tool" };
  assert.deepEqual(tableProblems([fake]), [
    "tool new_tool has no entry in TOOL_CASES (tests/helpers/tool_cases.ts)",
    ...Object.keys(TOOL_CASES).map((name) =>
      `TOOL_CASES has an entry for ${name}, which is not a registered tool`
    ),
  ]);
  const [first] = TOOLS;
  const { busy: _busy, ...withoutBusy } = TOOL_CASES[first.name].refusals;
  const table = { [first.name]: { ...TOOL_CASES[first.name], refusals: withoutBusy } };
  assert.deepEqual(tableProblems([first], table), [
    `tool ${first.name} can answer busy but TOOL_CASES has no case for it`,
  ]);
  const narrower: ToolDefinition = { ...first, refusals: [] };
  const problems = tableProblems([narrower]);
  assert.ok(problems.some((p) => p.includes("which the tool does not declare")), problems.join());
});

Deno.test("contract: every published schema compiles under JSON Schema 2020-12", () => {
  const ajv = newValidator();
  for (const tool of publishedTools()) {
    assert.equal(tool.inputSchema.type, "object", tool.name);
    assert.ok(tool.outputSchema, `${tool.name} publishes an outputSchema`);
    assert.equal(tool.outputSchema.type, "object", tool.name);
    assert.doesNotThrow(() => compileSchema(tool.inputSchema, ajv), `${tool.name} inputSchema`);
    assert.doesNotThrow(() => compileSchema(tool.outputSchema!, ajv), `${tool.name} outputSchema`);
  }
  // Strict mode is what makes this a check: an unknown keyword does not compile.
  assert.throws(() => compileSchema({ type: "object", propertiez: {} }), /unknown keyword/);
});

Deno.test("contract: the published input schema agrees with the zod one on the table's arguments", () => {
  for (const tool of TOOLS) {
    const cases = TOOL_CASES[tool.name];
    const validate = compileSchema(published(tool).inputSchema);
    assert.ok(validate(cases.benign), `${tool.name} benign: ${schemaErrors(validate)}`);
    assert.ok(tool.input.safeParse(cases.benign).success, `${tool.name} benign (zod)`);
    for (const c of casesFor(cases, "invalid_arguments")) {
      if (!("args" in c)) continue;
      assert.equal(
        validate(c.args),
        tool.input.safeParse(c.args).success,
        `${tool.name} ${JSON.stringify(c.args)}: JSON Schema and zod disagree`,
      );
    }
  }
});

for (const tool of TOOLS) {
  Deno.test(`contract: ${tool.name}: a success validates against its published outputSchema`, async () => {
    await using ws = await makeCaseWorkspace();
    const validate = compileSchema(published(tool).outputSchema!);
    const cases = TOOL_CASES[tool.name];
    assert.ok(cases, `no TOOL_CASES entry for ${tool.name}`);
    const result = await produce(ws, tool.name, { args: cases.benign });
    assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 500));
    assert.ok(result.structuredContent, "a success carries structuredContent");
    assert.ok(validate(result.structuredContent), schemaErrors(validate).join("\n"));
    // The validator is real: the same result with a field the schema does not admit fails.
    assert.equal(validate({ ...result.structuredContent, unexpected_field: 1 }), false);
  });

  Deno.test(`contract: ${tool.name}: every refusal it can answer is shaped per ADR-013`, async () => {
    await using ws = await makeCaseWorkspace();
    const cases = TOOL_CASES[tool.name];
    assert.ok(cases, `no TOOL_CASES entry for ${tool.name}`);
    const produced = new Set<string>();
    for (const code of answerableCodes(tool)) {
      const list = casesFor(cases, code);
      assert.ok(list.length > 0, `${tool.name}: no case for ${code}`);
      for (const c of list) {
        const result = await produce(ws, tool.name, c);
        const what = "args" in c ? JSON.stringify(c.args) : c.how;
        const read = readRefusal(result, code);
        assert.ok(read.message.length > 0, `${tool.name} ${code} (${what}) has a message`);
        assert.ok(read.remedy.length > 0, `${tool.name} ${code} (${what}) has a remedy`);
        assert.ok(!JSON.stringify(result).includes(ws.root), `${code} names a resolved path`);
        produced.add(code);
      }
    }
    for (const code of [...tool.refusals, ...UNIVERSAL_REFUSALS]) {
      assert.ok(produced.has(code), `${tool.name}: ${code} was never produced`);
    }
  });
}
