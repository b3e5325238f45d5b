/**
 * Tool snapshots (the pattern of github-mcp-server's `internal/toolsnaps`):
 * each published tool's definition — name, title, description, input and
 * output schemas, annotations — is kept in `tests/toolsnaps/<tool>.snap.json`,
 * so a change to what models and clients see is deliberate and reviewed in
 * the diff. A changed, added or removed tool fails here until the snapshots
 * are rewritten with `deno task toolsnaps` (which sets `UPDATE_TOOLSNAPS=1`).
 */

import assert from "node:assert/strict";
import { publishedTools } from "../../src/tools/registry.ts";

const SNAP_DIR = new URL("./", import.meta.url);
const SUFFIX = ".snap.json";
const UPDATE = Deno.env.get("UPDATE_TOOLSNAPS") === "1";
const HOW_TO_UPDATE =
  "If the change is intended, run `deno task toolsnaps` and commit the rewritten tests/toolsnaps/.";

/** What a snapshot holds of a published tool, in a fixed key order. */
function snapshotOf(tool: ReturnType<typeof publishedTools>[number]): string {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool;
  return JSON.stringify(
    { name, title, description, inputSchema, outputSchema, annotations },
    null,
    2,
  ) +
    "\n";
}

/** The tool names that have a snapshot file. */
function snapshotNames(): string[] {
  return [...Deno.readDirSync(SNAP_DIR)]
    .filter((entry) => entry.isFile && entry.name.endsWith(SUFFIX))
    .map((entry) => entry.name.slice(0, -SUFFIX.length))
    .sort();
}

const snapFile = (name: string) => new URL(`${name}${SUFFIX}`, SNAP_DIR);

Deno.test("toolsnaps: every published tool has a snapshot, and every snapshot a tool", () => {
  const published = publishedTools().map((tool) => tool.name);
  if (UPDATE) {
    for (const name of snapshotNames()) {
      if (!published.includes(name)) Deno.removeSync(snapFile(name));
    }
    for (const tool of publishedTools()) {
      Deno.writeTextFileSync(snapFile(tool.name), snapshotOf(tool));
    }
  }
  const snapped = snapshotNames();
  const added = published.filter((name) => !snapped.includes(name));
  const removed = snapped.filter((name) => !published.includes(name));
  assert.deepEqual(
    { added, removed },
    { added: [], removed: [] },
    `tools/list and tests/toolsnaps/ disagree: added tools have no snapshot, removed tools still have one. ${HOW_TO_UPDATE}`,
  );
});

for (const tool of publishedTools()) {
  Deno.test(`toolsnaps: ${tool.name} is published exactly as its snapshot`, () => {
    let snapshot: string;
    try {
      snapshot = Deno.readTextFileSync(snapFile(tool.name));
    } catch {
      assert.fail(`tests/toolsnaps/${tool.name}${SUFFIX} is missing. ${HOW_TO_UPDATE}`);
    }
    assert.equal(
      snapshotOf(tool),
      snapshot,
      `the published definition of ${tool.name} differs from its snapshot (actual + / snapshot -). ${HOW_TO_UPDATE}`,
    );
  });
}
