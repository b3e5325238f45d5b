/**
 * The tools that consume the walker's batches (ADR-139) when a batch comes `again` or is not
 * confirmed: nothing lost, nothing counted twice, nothing read through a swapped path shown.
 * Found by a review of ADR-139; each test failed on the first version of it.
 *
 * @module
 */

import assert from "node:assert/strict";
import { QUIET_MS } from "../../src/access/workspace.ts";
import { BATCH_DIRECTORIES, BATCH_FILES } from "../../src/access/walk.ts";
import {
  callDirect,
  directContext,
  makeWorkspace,
  saveLikeAnEditor,
  withLstatHook,
} from "../helpers/fixtures.ts";
import type { ToolContext } from "../../src/tools/types.ts";

const SETTLE_MS = QUIET_MS + 1100;

/** The files of every page after `first`, following its cursors with `args`. */
async function laterPages(
  ctx: ToolContext,
  args: Record<string, unknown>,
  first: { next_cursor?: string },
): Promise<string[]> {
  const seen: string[] = [];
  let cursor = first.next_cursor;
  while (cursor !== undefined) {
    const next = await callDirect(ctx, "search_code", { ...args, cursor });
    assert.ok(!("invalidParams" in next));
    const page = next.structuredContent as { files: { path: string }[]; next_cursor?: string };
    seen.push(...page.files.map((f) => f.path));
    cursor = page.next_cursor;
  }
  return seen;
}

Deno.test("search_code: a page that fills inside a batch that then comes again keeps the batch's earlier results on some page", async () => {
  await using ws = await makeWorkspace({
    "a/x.txt": "needle\n",
    "b/y.txt": "needle\n",
    "c/z.txt": "needle\n",
  });
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const ctx = directContext(ws.root, {});
  let saved = false;
  const seen: string[] = [];
  const first = await withLstatHook(
    (path) => {
      if (saved || !path.endsWith("/b")) return;
      saved = true;
      // An editor's save in a/ (a's files already read) as b is entered: a's ctime moves.
      saveLikeAnEditor(ws.path("a/x.txt"), "needle\n");
    },
    () =>
      callDirect(ctx, "search_code", {
        pattern: "needle",
        max_results: 2,
        output_mode: "files_with_matches",
      }),
  );
  assert.ok(saved);
  assert.ok(!("invalidParams" in first));
  const s = first.structuredContent as { files: { path: string }[]; next_cursor?: string };
  seen.push(...s.files.map((f) => f.path));
  seen.push(
    ...await laterPages(ctx, {
      pattern: "needle",
      max_results: 2,
      output_mode: "files_with_matches",
    }, s),
  );
  assert.deepEqual(seen.sort(), ["a/x.txt", "b/y.txt", "c/z.txt"], "every match is on some page");
});

Deno.test("attack: a directory swapped for a link to an outside copy after it is listed never puts the outside manifest into project_overview", async () => {
  await using ws = await makeWorkspace({
    "pkg/package.json": '{"name":"inside","description":"INSIDE"}',
  });
  Deno.mkdirSync(`${ws.outside}/pkg`, { recursive: true });
  Deno.writeTextFileSync(
    `${ws.outside}/pkg/package.json`,
    '{"name":"outside","description":"OUTSIDE-SECRET"}',
  );
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const ctx = directContext(ws.root, {});
  const readDir = Deno.readDirSync;
  let swapped = false;
  Deno.readDirSync = (path: string | URL) => {
    const listed = [...readDir(path)];
    if (!swapped && String(path).endsWith("/pkg")) {
      swapped = true;
      // pkg is listed (package.json, a regular file); now it becomes a link to an outside copy.
      Deno.renameSync(ws.path("pkg"), ws.path("pkg.orig"));
      Deno.symlinkSync(`${ws.outside}/pkg`, ws.path("pkg"));
    }
    return listed.values();
  };
  let result;
  try {
    result = await callDirect(ctx, "project_overview", {});
  } finally {
    Deno.readDirSync = readDir;
  }
  assert.ok(swapped);
  assert.ok(!("invalidParams" in result));
  const text = JSON.stringify(result);
  assert.ok(!text.includes("OUTSIDE-SECRET"), text.slice(0, 1500));
});

Deno.test("search_code: a stop right after a batch comes again ends the page before the batch, so the next page searches it", async () => {
  // d00–d07 fill a first batch, confirmed; x, y, z are the second. A save in x as y is entered
  // makes the second batch come again; the budget runs out as its check begins. The page must
  // end after d07 (the last confirmed file), not after z, where its walk had got to.
  const entries: Record<string, string> = {
    "x/a.txt": "needle\n",
    "y/b.txt": "needle\n",
    "z/c.txt": "needle\n",
  };
  for (let i = 0; i < BATCH_DIRECTORIES; i++) entries[`d0${i}/f.txt`] = "needle\n";
  await using ws = await makeWorkspace(entries);
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  let saved = false, stopped = false;
  const ctx = directContext(ws.root, {}, {
    stop: { reason: () => (stopped ? "timed_out" : undefined) },
  });
  const first = await withLstatHook(
    (path) => {
      if (!saved && path.endsWith("/y")) {
        saved = true;
        saveLikeAnEditor(ws.path("x/a.txt"), "needle\n");
      } else if (saved && path.endsWith("/x")) {
        // The second batch's check has begun: the call's budget runs out now.
        stopped = true;
      }
    },
    () => callDirect(ctx, "search_code", { pattern: "needle", output_mode: "files_with_matches" }),
  );
  assert.ok(stopped);
  assert.ok(!("invalidParams" in first));
  const s = first.structuredContent as {
    files: { path: string }[];
    next_cursor?: string;
    timed_out: boolean;
  };
  assert.equal(s.timed_out, true);
  assert.deepEqual(
    s.files.map((f) => f.path),
    Array.from({ length: BATCH_DIRECTORIES }, (_, i) => `d0${i}/f.txt`),
  );
  assert.ok(s.next_cursor !== undefined, "a way to continue");
  const seen = s.files.map((f) => f.path);
  stopped = false; // the next pages run with budget to spare
  seen.push(...await laterPages(ctx, { pattern: "needle", output_mode: "files_with_matches" }, s));
  assert.deepEqual(seen.slice(BATCH_DIRECTORIES), ["x/a.txt", "y/b.txt", "z/c.txt"]);
});

Deno.test("find_symbol and project_overview count a batch that comes again once", async () => {
  await using ws = await makeWorkspace({
    "a/x.ts": "export function needle() {}\n",
    "b/y.ts": "export function needle() {}\n",
    "c/z.ts": "export function needle() {}\n",
  });
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const run = async (tool: string, args: unknown) => {
    let saved = false;
    const result = await withLstatHook((path) => {
      if (saved || !path.endsWith("/b")) return;
      saved = true;
      saveLikeAnEditor(ws.path("a/x.ts"), "export function needle() {}\n");
    }, () => callDirect(directContext(ws.root, {}), tool, args));
    assert.ok(saved && !("invalidParams" in result));
    return result.structuredContent as Record<string, unknown>;
  };
  const symbols = await run("find_symbol", { symbol: "needle" });
  await new Promise((r) => setTimeout(r, SETTLE_MS)); // a/ quiet again
  const overview = await run("project_overview", {});
  assert.equal(symbols.total_matches, 3);
  assert.equal(symbols.files_searched, 3, "find_symbol: files_searched");
  assert.equal(overview.files, 3, "project_overview: files");
});

Deno.test("search_code: a stop while a batch with a save in it is unchecked ends the page before the batch, and the next page searches it", async () => {
  // 0/ is a first batch of one directory (it has more than BATCH_FILES files), confirmed.
  const entries: Record<string, string> = {
    "a/x.txt": "needle\n",
    "b/y.txt": "needle\n",
    "c/z.txt": "needle\n",
  };
  for (let i = 0; i < BATCH_FILES; i++) entries[`0/f${String(i).padStart(3, "0")}.txt`] = "hay\n";
  await using ws = await makeWorkspace(entries);
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  let saved = false, stopped = false;
  const ctx = directContext(ws.root, {}, {
    stop: { reason: () => (stopped ? "timed_out" : undefined) },
  });
  const args = { pattern: "needle", output_mode: "files_with_matches" };
  const first = await withLstatHook((path) => {
    if (!saved && path.endsWith("/b")) {
      saved = true; // an editor's save in a/ as b is entered
      saveLikeAnEditor(ws.path("a/x.txt"), "needle\n");
    } else if (saved && !stopped && path.endsWith("/c")) stopped = true; // budget runs out
  }, () => callDirect(ctx, "search_code", args));
  assert.ok(saved && stopped && !("invalidParams" in first));
  const s = first.structuredContent as { files: { path: string }[]; next_cursor?: string };
  stopped = false;
  const seen = [...s.files.map((f) => f.path), ...await laterPages(ctx, args, s)];
  assert.deepEqual(seen.sort(), ["a/x.txt", "b/y.txt", "c/z.txt"], "every match on some page");
});

Deno.test("find_symbol at the byte cap keeps the batch read before it and says it was truncated", async () => {
  const body = "export function needle() {}\n" + "// pad\n".repeat(60_000); // ~420 KB
  await using ws = await makeWorkspace({ "a/x.ts": body, "b/y.ts": body, "c/z.ts": body });
  const ctx = directContext(ws.root, { MCP_SEARCH__MAX_BYTES: String(1024 * 1024) });
  const result = await callDirect(ctx, "find_symbol", { symbol: "needle" });
  assert.ok(!("invalidParams" in result));
  const s = result.structuredContent as Record<string, unknown>;
  assert.equal(s.total_matches, 2);
  assert.equal(s.files_searched, 2);
  assert.equal(s.truncated, true);
});
