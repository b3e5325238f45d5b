/**
 * The rest of docs/tools.md against the code (its argument tables and
 * refusal lines are checked in tools_docs_test.ts): each tool's
 * `structuredContent` table lists exactly the fields its published output
 * schema has, the optional ones said to be present only sometimes; the
 * Limits table gives each setting the default and range of the settings
 * catalogue; and the fixed limits in the prose are the constants the code
 * uses.
 */

import assert from "node:assert/strict";
import { TOOL_QUEUE_LIMIT, TOOL_WORKER_POOL_SIZE } from "../../src/app.ts";
import { GIT_OUTPUT_CAP_BYTES } from "../../src/access/git.ts";
import { PATH_LIMITS } from "../../src/access/resolve.ts";
import { BINARY_SNIFF_BYTES } from "../../src/access/workspace.ts";
import { SETTINGS } from "../../src/config/schema.ts";
import { CONTENT_ENVELOPE_SHAPE } from "../../src/contract/envelope.ts";
import { publishedTools } from "../../src/tools/registry.ts";
import { GIT_LOG_MAX_LIMIT } from "../../src/tools/git_log.ts";

/** The fields the result pipeline adds to every success (`src/contract/envelope.ts`). */
const ENVELOPE = Object.keys(CONTENT_ENVELOPE_SHAPE);
const DOC = await Deno.readTextFile(new URL("../../docs/tools.md", import.meta.url));

function section(name: string): string[] {
  const lines = DOC.split("\n");
  const start = lines.indexOf(`## ${name}`);
  assert.ok(start >= 0, `docs/tools.md has no "## ${name}" section`);
  const end = lines.findIndex((line, i) => i > start && line.startsWith("## "));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The rows of the first table after `### heading` in `lines`, or undefined when there is none. */
function tableAfter(lines: string[], heading: string): string[][] | undefined {
  const at = lines.indexOf(`### ${heading}`);
  if (at < 0) return undefined;
  const rows: string[][] = [];
  for (const line of lines.slice(at + 1)) {
    if (line.startsWith("### ")) break;
    if (line.startsWith("|")) rows.push(line.split("|").slice(1, -1).map((cell) => cell.trim()));
    else if (rows.length > 0) break;
  }
  return rows.slice(2);
}

for (const tool of publishedTools()) {
  Deno.test(`docs: tools.md documents every field of ${tool.name}'s structuredContent`, () => {
    const output = tool.outputSchema as {
      properties: Record<string, unknown>;
      required?: string[];
    };
    const fields = Object.keys(output.properties);
    const lines = section(`\`${tool.name}\``);
    const rows = tableAfter(lines, "`structuredContent`");
    if (rows === undefined) {
      // A tool documented in prose (project_overview): each field is named there.
      const text = lines.join("\n");
      for (const field of fields.filter((f) => !ENVELOPE.includes(f))) {
        assert.ok(text.includes(`\`${field}\``), `${tool.name}: the prose never names ${field}`);
      }
      return;
    }
    // A row may document several fields ("`truncated`, `timed_out`").
    const documented = rows.flatMap(([name, , meaning]) =>
      [...name.matchAll(/`([a-z0-9_]+)`/g)].map((m) => ({ field: m[1], meaning }))
    );
    const names = documented.map((d) => d.field);
    // The envelope the pipeline adds is documented once, under "Fences and untrusted_content";
    // a table may repeat it, but then by its right names.
    const own = fields.filter((field) => !ENVELOPE.includes(field));
    assert.deepEqual(
      names.filter((name) => !ENVELOPE.includes(name)).sort(),
      own.sort(),
      `${tool.name}: the structuredContent table lists the output schema's own fields`,
    );
    for (const name of names) {
      assert.ok(
        fields.includes(name),
        `${tool.name}: the table documents ${name}, not in the schema`,
      );
    }
    const required = new Set(output.required ?? []);
    for (const { field, meaning } of documented) {
      if (!required.has(field)) {
        assert.match(
          meaning,
          /\b(present|absent|omitted|only)\b/i,
          `${tool.name}.${field} is optional: its row should say when it is present`,
        );
      }
    }
  });
}

Deno.test("docs: tools.md documents the envelope every success carries, once for all tools", () => {
  const text = section("Fences and `untrusted_content`").join("\n");
  for (const field of ENVELOPE) assert.ok(text.includes(`\`${field}\``), field);
  for (const tool of publishedTools()) {
    const output = tool.outputSchema as { properties: Record<string, unknown> };
    for (const field of ENVELOPE) assert.ok(field in output.properties, `${tool.name}: ${field}`);
  }
});

Deno.test("docs: tools.md's Limits table gives each setting its catalogue default and range", () => {
  const rows = tableAfter(["### Limits", ...section("Limits")], "Limits");
  assert.ok(rows && rows.length >= 8, "no Limits table");
  for (const [what, defaultCell, range, setWith] of rows) {
    const env = setWith.match(/^`(MCP_[A-Z_]+)`$/)?.[1];
    assert.ok(env, `${what}: "Set with" names no setting`);
    const spec = SETTINGS.find((s) => s.env === env);
    assert.ok(spec, `${what}: ${env} is not a setting`);
    assert.equal(defaultCell, spec.defaultText, `${env}: default`);
    assert.equal(spec.kind.type, "integer", `${env} is not an integer setting`);
    if (spec.kind.type === "integer") {
      assert.equal(range, `${spec.kind.min}–${spec.kind.max}`, `${env}: range`);
    }
  }
});

Deno.test("docs: tools.md's fixed limits are the constants the code uses", () => {
  const text = section("Limits").join(" ").replace(/\s+/g, " ");
  const expected = [
    `paths at most ${PATH_LIMITS.maxLength} characters and ${PATH_LIMITS.maxComponentBytes} bytes per component`,
    `git output kept per call at most ${GIT_OUTPUT_CAP_BYTES / 1024} KiB`,
    `\`git_log\` at most ${GIT_LOG_MAX_LIMIT} commits a call`,
    `binary detection looks at the first ${BINARY_SNIFF_BYTES} bytes`,
    `${TOOL_WORKER_POOL_SIZE} tool workers run calls at once and at most ${TOOL_QUEUE_LIMIT} more calls wait`,
  ];
  for (const phrase of expected) assert.ok(text.includes(phrase), `docs/tools.md: "${phrase}"`);
});
