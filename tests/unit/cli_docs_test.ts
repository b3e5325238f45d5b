/**
 * docs/cli.md against the command table (`src/cli/commands.ts`), which the
 * parser, the help and `main` all read: the Commands table lists every
 * command with its synopsis, in help order; the Options table says, for
 * each command-specific option, exactly which commands take it; and the
 * sentence on commands that need nothing names exactly the commands that
 * drop every permission first.
 */

import assert from "node:assert/strict";
import { COMMAND_TABLE } from "../../src/cli/commands.ts";

const DOC = await Deno.readTextFile(new URL("../../docs/cli.md", import.meta.url));

/** The rows (cells, trimmed) of the first table after `## heading`. */
function table(heading: string): string[][] {
  const lines = DOC.split("\n");
  const at = lines.indexOf(`## ${heading}`);
  assert.ok(at >= 0, `docs/cli.md has no "## ${heading}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(at + 1)) {
    if (line.startsWith("|")) rows.push(line.split("|").slice(1, -1).map((c) => c.trim()));
    else if (rows.length > 0) break;
  }
  return rows.slice(2);
}

/** The backticked words of a cell. */
const codes = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

Deno.test("docs: cli.md's Commands table lists every command with its synopsis, in order", () => {
  const listed = table("Commands").map((row) => codes(row[0])[0]);
  const expected = COMMAND_TABLE.map((c) => c.synopsis ? `${c.name} ${c.synopsis}` : c.name);
  assert.deepEqual(listed, expected);
});

Deno.test("docs: cli.md's Options table names the commands each option applies to", () => {
  const rows = table("Options");
  const optionNames = new Set(COMMAND_TABLE.flatMap((c) => c.options));
  assert.ok(optionNames.size >= 5);
  for (const option of optionNames) {
    const matching = rows.filter((row) => codes(row[0]).some((o) => o.startsWith(`--${option}`)));
    assert.ok(matching.length > 0, `docs/cli.md has no row for --${option}`);
    const takers = COMMAND_TABLE.filter((c) => c.options.includes(option)).map((c) => c.name);
    for (const row of matching) {
      assert.deepEqual(codes(row[1]).sort(), [...takers].sort(), `--${option}: ${row[1]}`);
    }
  }
});

Deno.test("docs: cli.md names exactly the commands that drop every permission first", () => {
  const none = COMMAND_TABLE.filter((c) => c.permissions === "none").map((c) => c.name);
  const paragraph = DOC.split("\n\n").find((p) => p.includes("need nothing from the machine"));
  assert.ok(paragraph, "docs/cli.md lost the paragraph on commands that need nothing");
  const named = codes(paragraph.split("need nothing")[0]).filter((w) => !w.startsWith("-"));
  assert.deepEqual(named.sort(), [...none].sort());
});
