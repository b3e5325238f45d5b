/**
 * find_symbol and project_overview at the time budget, through the real
 * program and real SDK clients over stdio: with a short
 * `MCP_SANDBOX__TOOL_TIMEOUT_MS`, a call on a tree too large to finish in
 * it returns what it has — a success marked `timed_out`, not the
 * `timed_out` refusal of an abandoned worker — because the tools check the
 * cooperative stop flag (ADR-016) between files and inside every parse and
 * query. A client that sends a progressToken gets `notifications/progress`
 * while the call runs (SDK v2 `@modelcontextprotocol/client`, both eras, and
 * the SDK v1 client most editors embed).
 *
 * The large trees are one big file hard-linked many times: each link is a
 * file to the walker, so the tree is large to walk and small on disk.
 *
 * @module
 */

import assert from "node:assert/strict";
import { makeWorkspace } from "../helpers/fixtures.ts";
import { connectSdk, connectSdkV1 } from "./support.ts";

/**
 * Short enough that no machine gets through the trees within it (each is minutes of work on an
 * idle core), long enough for a cold worker's first grammar load while the full suite runs at load
 * average 30–40 (4 s was not, once); the grace is 1 s on top.
 */
const BUDGET_MS = "8000";
/** find_symbol's tree: links of a ~1.9 MiB Python file (about 0.3 s of parsing each, idle). */
const LINKS = 200;
/** project_overview's tree: links of a 4 MiB file (a few ms each to read and count, idle). */
const OVERVIEW_LINKS = 2000;

interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** A workspace: `a/small.py` defines `target`, `b/` holds LINKS links of a ~1.9 MiB Python file. */
async function symbolTree() {
  const ws = await makeWorkspace({ "a/small.py": "def target():\n    return 1\n" });
  const lines: string[] = [];
  for (let i = 0; lines.length < 60_000; i++) {
    lines.push(i % 1000 === 0 ? "def target():" : `def other_${i}(x):`, "    return x");
  }
  const big = lines.join("\n") + "\n";
  assert.ok(big.length < 2 * 1024 * 1024, "the file must stay under find_symbol's 2 MiB cap");
  await Deno.mkdir(ws.path("b"));
  await Deno.writeTextFile(ws.path("b/f0.py"), big);
  for (let i = 1; i < LINKS; i++) await Deno.link(ws.path("b/f0.py"), ws.path(`b/f${i}.py`));
  return ws;
}

/** Adds `dir/f0.txt`…: OVERVIEW_LINKS links of one file of 4 MiB − 1 newlines (each one counted). */
async function addManyLines(ws: { path(p: string): string }, dir: string): Promise<void> {
  await Deno.mkdir(ws.path(dir));
  await Deno.writeTextFile(ws.path(`${dir}/f0.txt`), "\n".repeat(4 * 1024 * 1024 - 1));
  for (let i = 1; i < OVERVIEW_LINKS; i++) {
    await Deno.link(ws.path(`${dir}/f0.txt`), ws.path(`${dir}/f${i}.txt`));
  }
}

function assertIncreasing(progress: Progress[], what: string): void {
  assert.ok(progress.length >= 1, `${what}: no notifications/progress reached the client`);
  for (let i = 1; i < progress.length; i++) {
    assert.ok(progress[i].progress > progress[i - 1].progress, `${what}: progress went back`);
  }
}

interface SymbolOut {
  timed_out: boolean;
  files_searched: number;
  results: { path: string; method: string }[];
  unparseable_files: { path: string; reason: string }[];
}

function assertPartialSymbols(result: { isError?: boolean; structuredContent?: unknown }): void {
  assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 500));
  const out = result.structuredContent as SymbolOut;
  assert.equal(out.timed_out, true, "the call finished: the tree is too small for the test");
  assert.ok(out.files_searched < LINKS + 1, `${out.files_searched} files searched`);
  // What was found before the budget is returned: the small file's parsed definition.
  assert.ok(
    out.results.some((r) => r.path === "a/small.py" && r.method === "parsed"),
    JSON.stringify(out.results.slice(0, 5)),
  );
}

for (const era of ["modern", "legacy"] as const) {
  Deno.test(`find_symbol at a short time budget returns a partial success marked timed_out, with progress, to the SDK v2 client (${era})`, async () => {
    await using ws = await symbolTree();
    await using session = await connectSdk(ws.root, {
      era,
      env: { MCP_SANDBOX__TOOL_TIMEOUT_MS: BUDGET_MS },
    });
    const progress: Progress[] = [];
    const result = await session.client.callTool(
      { name: "find_symbol", arguments: { symbol: "target" } },
      { onprogress: (p: Progress) => progress.push(p) },
    );
    assertPartialSymbols(result);
    assertIncreasing(progress, "find_symbol");
    assert.match(progress[0].message ?? "", /^\d+ files searched$/);
    assert.doesNotMatch(session.stderr(), /abandoned/, "the worker had to be abandoned");
  });
}

Deno.test("find_symbol and project_overview at a short time budget answer the SDK v1 client with partial successes and progress", async () => {
  await using ws = await symbolTree();
  await addManyLines(ws, "data"); // for the overview on the same server
  await using session = await connectSdkV1(ws.root, {
    env: { MCP_SANDBOX__TOOL_TIMEOUT_MS: BUDGET_MS },
  });
  const progress: Progress[] = [];
  const found = await session.client.callTool(
    { name: "find_symbol", arguments: { symbol: "target", path: "." } },
    undefined,
    { onprogress: (p: Progress) => progress.push(p) },
  );
  assertPartialSymbols(found as { isError?: boolean; structuredContent?: unknown });
  assertIncreasing(progress, "find_symbol (v1)");
  const overviewProgress: Progress[] = [];
  const overview = await session.client.callTool(
    { name: "project_overview", arguments: {} },
    undefined,
    { onprogress: (p: Progress) => overviewProgress.push(p) },
  );
  assert.notEqual(overview.isError, true, JSON.stringify(overview).slice(0, 500));
  const out = overview.structuredContent as { timed_out: boolean; files: number };
  assert.equal(out.timed_out, true);
  assert.ok(out.files < LINKS + OVERVIEW_LINKS + 1, `${out.files} files`);
  assertIncreasing(overviewProgress, "project_overview (v1)");
  assert.doesNotMatch(session.stderr(), /abandoned/, "the worker had to be abandoned");
});

Deno.test("project_overview at a short time budget returns partial figures marked timed_out, with progress, to the SDK v2 client", async () => {
  await using ws = await makeWorkspace({ "README.md": "# Many lines\n" });
  await addManyLines(ws, "data");
  await using session = await connectSdk(ws.root, {
    era: "modern",
    env: { MCP_SANDBOX__TOOL_TIMEOUT_MS: BUDGET_MS },
  });
  const progress: Progress[] = [];
  const result = await session.client.callTool(
    { name: "project_overview", arguments: {} },
    { onprogress: (p: Progress) => progress.push(p) },
  );
  assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 500));
  const out = result.structuredContent as {
    timed_out: boolean;
    files: number;
    readme: { heading?: string } | null;
  };
  assert.equal(out.timed_out, true, "the walk finished: the tree is too small for the test");
  assert.ok(out.files >= 1 && out.files < OVERVIEW_LINKS + 1, `${out.files} files`);
  assert.equal(out.readme?.heading, "Many lines", "what was walked before the budget is kept");
  assertIncreasing(progress, "project_overview");
  assert.match(progress[0].message ?? "", /^\d+ files walked$/);
  assert.doesNotMatch(session.stderr(), /abandoned/, "the worker had to be abandoned");
});
