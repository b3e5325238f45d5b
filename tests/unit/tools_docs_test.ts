/**
 * docs/tools.md against what `tools/list` publishes: each tool has a
 * section, its argument table lists exactly the published input schema's
 * properties in order — each with its type, whether it is required, and its
 * bounds and default in the words the schema implies — and its refusal line
 * names exactly the codes the tool declares (`ToolDefinition.refusals`).
 * The prose around the tables is free; the facts in them are checked.
 */

import assert from "node:assert/strict";
import { publishedTools, TOOLS } from "../../src/tools/registry.ts";
import { measureToolDefinitions } from "../../scripts/measure_tools.ts";

type Schema = Record<string, unknown>;

const DOC = await Deno.readTextFile(new URL("../../docs/tools.md", import.meta.url));
/** zod's bounds for an unbounded integer: not a documented limit. */
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/** The lines of the `## \`name\`` section of docs/tools.md. */
function section(name: string): string[] {
  const lines = DOC.split("\n");
  const start = lines.indexOf(`## \`${name}\``);
  assert.ok(start >= 0, `docs/tools.md has no "## \`${name}\`" section`);
  const end = lines.findIndex((line, i) => i > start && line.startsWith("## "));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The rows (cells, trimmed) of the first table after the `### heading` of `lines`. */
function tableAfter(lines: string[], heading: string): string[][] {
  const at = lines.indexOf(`### ${heading}`);
  assert.ok(at >= 0, `no "### ${heading}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(at + 1)) {
    if (line.startsWith("|")) rows.push(line.split("|").slice(1, -1).map((cell) => cell.trim()));
    else if (rows.length > 0) break;
  }
  assert.ok(rows.length >= 2, `no table under "### ${heading}"`);
  return rows.slice(2); // header and separator
}

/** The type as the tables write it. */
function typeOf(schema: Schema): string {
  if (Array.isArray(schema.type)) return schema.type.join(" or ");
  if (schema.type === "array" && schema.items && typeof schema.items === "object") {
    return `array of ${typeOf(schema.items as Schema)}`;
  }
  if (typeof schema.type === "string") return schema.type;
  if (Array.isArray(schema.enum)) {
    return [...new Set(schema.enum.map((v) => typeof v))].join(" or ");
  }
  return "any";
}

/** The phrases a row's meaning must contain for the bounds and default `schema` states. */
function boundPhrases(schema: Schema): string[] {
  const phrases: string[] = [];
  for (
    const [minKey, maxKey] of [["minLength", "maxLength"], ["minimum", "maximum"], [
      "minItems",
      "maxItems",
    ]]
  ) {
    const min = schema[minKey] as number | undefined;
    const max = schema[maxKey] as number | undefined;
    const hasMin = min !== undefined && min !== -SAFE_INTEGER &&
      !(minKey === "minLength" && min === 0);
    const hasMax = max !== undefined && max !== SAFE_INTEGER;
    if (hasMin && hasMax) phrases.push(`${min} to ${max}`);
    else if (hasMax) phrases.push(`at most ${max}`);
    else if (hasMin) phrases.push(`at least ${min}`);
  }
  if ("default" in schema) phrases.push(`Default ${JSON.stringify(schema.default)}`);
  if (Array.isArray(schema.enum)) phrases.push(...schema.enum.map((v) => `\`${v}\``));
  return phrases;
}

for (const tool of publishedTools()) {
  Deno.test(`docs: tools.md documents ${tool.name}'s arguments as its input schema publishes them`, () => {
    const input = tool.inputSchema as Schema & { properties: Record<string, Schema> };
    const required = (input.required ?? []) as string[];
    const rows = tableAfter(section(tool.name), "Arguments");
    assert.deepEqual(
      rows.map((row) => row[0]),
      Object.keys(input.properties).map((name) => `\`${name}\``),
      `${tool.name}: the argument table lists the schema's properties, in order`,
    );
    for (const [name, schema] of Object.entries(input.properties)) {
      const [, type, isRequired, meaning] = rows.find((row) => row[0] === `\`${name}\``)!;
      assert.equal(type, typeOf(schema), `${tool.name}.${name}: type`);
      assert.equal(
        isRequired,
        required.includes(name) ? "yes" : "no",
        `${tool.name}.${name}: required`,
      );
      for (const phrase of boundPhrases(schema)) {
        assert.ok(
          meaning.includes(phrase),
          `${tool.name}.${name}: "${meaning}" does not say "${phrase}"`,
        );
      }
    }
  });
}

for (const tool of TOOLS) {
  Deno.test(`docs: tools.md lists exactly the refusals ${tool.name} declares`, () => {
    const lines = section(tool.name);
    const start = lines.findIndex((l) => l.startsWith("Refusals it can answer:"));
    assert.ok(start >= 0, `${tool.name}: no "Refusals it can answer:" paragraph in its section`);
    const end = lines.findIndex((l, i) => i > start && l.trim() === "");
    const line = lines.slice(start, end < 0 ? undefined : end).join(" ");
    const listed = [...line.split("universal")[0].matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    assert.deepEqual(
      [...listed].sort(),
      [...tool.refusals].sort(),
      `${tool.name}: docs list ${listed.join(", ")}`,
    );
  });
}

Deno.test("docs: the bound phrases are what the check looks for", () => {
  assert.deepEqual(boundPhrases({ type: "string", minLength: 1, maxLength: 10 }), ["1 to 10"]);
  assert.deepEqual(boundPhrases({ type: "string", maxLength: 10 }), ["at most 10"]);
  assert.deepEqual(boundPhrases({ type: "integer", minimum: 0, maximum: SAFE_INTEGER }), [
    "at least 0",
  ]);
  assert.deepEqual(boundPhrases({ type: "boolean", default: false }), ["Default false"]);
  assert.deepEqual(typeOf({ enum: ["a", "b"] }), "string");
});

Deno.test("docs: tools.md states what the tool definitions cost, as measure:tools measures it", () => {
  const sizes = measureToolDefinitions();
  const paragraph = DOC.split("\n## ").find((part) => part.startsWith("What the definitions cost"));
  assert.ok(paragraph, 'docs/tools.md has no "## What the definitions cost" section');
  const text = paragraph.replace(/\s+/g, " ");
  const perTool = sizes.tools.map((t) => `\`${t.name}\` ${t.modelBytes}`).join(", ");
  const stale = "run `deno task measure:tools` and update docs/tools.md";
  assert.ok(
    text.includes(`**${sizes.modelBytes} bytes** for all tools together: ${perTool}`),
    stale,
  );
  assert.ok(text.includes(`is ${sizes.listedBytes} bytes`), stale);
});
