import assert from "node:assert/strict";
import { findTool, publishedTools, TOOLS } from "../../src/tools/registry.ts";

const JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema";

type Schema = Record<string, unknown>;

/** Every (path, schema) pair of string type reachable from `schema`. */
function stringSchemas(schema: unknown, path = "$"): [string, Schema][] {
  if (schema === null || typeof schema !== "object") return [];
  const out: [string, Schema][] = [];
  const s = schema as Schema;
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes("string")) out.push([path, s]);
  for (const [key, value] of Object.entries(s)) {
    if (key === "properties" && value && typeof value === "object") {
      for (const [name, sub] of Object.entries(value)) {
        out.push(...stringSchemas(sub, `${path}.${name}`));
      }
    } else if (Array.isArray(value)) {
      value.forEach((sub, i) => out.push(...stringSchemas(sub, `${path}.${key}[${i}]`)));
    } else if (typeof value === "object") {
      out.push(...stringSchemas(value, `${path}.${key}`));
    }
  }
  return out;
}

Deno.test("registry: tools are published in a stable order", () => {
  assert.deepEqual(TOOLS.map((t) => t.name), [
    "read_file",
    "list_directory",
    "search_code",
    "find_symbol",
    "project_overview",
    "git_log",
    "git_diff",
  ]);
  assert.deepEqual(publishedTools().map((t) => t.name), TOOLS.map((t) => t.name));
  assert.deepEqual(publishedTools(), publishedTools());
});

Deno.test("registry: findTool finds each tool by exact name only", () => {
  for (const tool of TOOLS) assert.equal(findTool(tool.name), tool);
  assert.equal(findTool("READ_FILE"), undefined);
  assert.equal(findTool("write_file"), undefined);
  assert.equal(findTool("__proto__"), undefined);
});

Deno.test("registry: every tool has a title, a description and read-only annotations", () => {
  for (const tool of publishedTools()) {
    assert.ok(typeof tool.title === "string" && tool.title.length > 0, tool.name);
    assert.ok(typeof tool.description === "string" && tool.description.length > 20, tool.name);
    assert.deepEqual(tool.annotations, {
      title: tool.title,
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  }
});

Deno.test("registry: input and output schemas are JSON Schema 2020-12 objects", () => {
  for (const tool of publishedTools()) {
    for (const schema of [tool.inputSchema, tool.outputSchema] as Schema[]) {
      assert.equal(schema.$schema, JSON_SCHEMA_2020_12, tool.name);
      assert.equal(schema.type, "object", tool.name);
      assert.ok(schema.properties && typeof schema.properties === "object", tool.name);
    }
  }
});

Deno.test("registry: input schemas reject unknown properties", () => {
  for (const tool of publishedTools()) {
    assert.equal((tool.inputSchema as Schema).additionalProperties, false, tool.name);
  }
});

Deno.test("registry: every string in an input schema has a maxLength", () => {
  for (const tool of publishedTools()) {
    const strings = stringSchemas(tool.inputSchema);
    const properties = Object.keys((tool.inputSchema as Schema).properties ?? {});
    if (properties.length > 0) assert.ok(strings.length > 0, `${tool.name} has string inputs`);
    for (const [path, schema] of strings) {
      // A choice among fixed values is bounded by its values.
      if (Array.isArray((schema as { enum?: unknown }).enum)) continue;
      assert.equal(typeof schema.maxLength, "number", `${tool.name} ${path} has no maxLength`);
    }
  }
});

Deno.test("registry: output schemas carry the untrusted-content envelope", () => {
  for (const tool of publishedTools()) {
    const schema = tool.outputSchema as Schema & { properties: Record<string, Schema> };
    assert.equal(schema.properties.untrusted_content.const, true, tool.name);
    assert.equal(schema.properties.redaction.type, "object", tool.name);
    assert.ok((schema.required as string[]).includes("untrusted_content"), tool.name);
    assert.equal(schema.additionalProperties, false, tool.name);
  }
});

Deno.test("registry: the zod input schema agrees with the published one on unknown fields", () => {
  for (const tool of TOOLS) {
    assert.equal(tool.input.safeParse({ path: "a", unexpected: 1 }).success, false, tool.name);
  }
});
