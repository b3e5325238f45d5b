/**
 * list_directory within the response budget, run directly against a
 * workspace (no workers): pages fit `MCP_SERVER__MAX_RESULT_CHARS` with both
 * halves counted, and following next_cursor lists every entry exactly once.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { shapedResultChars } from "../../src/contract/budget.ts";
import { callDirect, directContext, makeWorkspace, textOf } from "../helpers/fixtures.ts";

interface Listing {
  entries: { name: string }[];
  total_entries: number;
  truncated: boolean;
  next_cursor?: string;
}

function ok(result: CallToolResult | { invalidParams: string }): Listing {
  assert.ok(!("invalidParams" in result), JSON.stringify(result));
  assert.equal(result.isError, undefined, textOf(result));
  return result.structuredContent as unknown as Listing;
}

Deno.test("list_directory budget: long names are paged within the budget and every entry comes once", async () => {
  const names = Array.from(
    { length: 1200 },
    (_, i) => `${String(i).padStart(4, "0")}-${"n".repeat(180)}.txt`,
  );
  await using ws = await makeWorkspace(Object.fromEntries(names.map((n) => [`d/${n}`, "x"])));
  const ctx = directContext(ws.root, { MCP_SANDBOX__LIST_PAGE_SIZE: "10000" });
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const result = await callDirect(ctx, "list_directory", { path: "d", cursor });
    const listing = ok(result);
    assert.ok(shapedResultChars(result as CallToolResult) <= 50_000);
    assert.equal(listing.truncated, listing.next_cursor !== undefined);
    seen.push(...listing.entries.map((e) => e.name));
    cursor = listing.next_cursor;
    pages++;
  } while (cursor !== undefined);
  assert.deepEqual(seen, [...names].sort());
  assert.ok(pages >= 4, `1,200 names of 190 chars take several pages (took ${pages})`);
});

Deno.test("list_directory budget: a small budget still lists at least one entry per page", async () => {
  await using ws = await makeWorkspace({ "a.txt": "", "b.txt": "", "c.txt": "" });
  const ctx = directContext(ws.root, { MCP_SERVER__MAX_RESULT_CHARS: "10000" });
  const listing = ok(await callDirect(ctx, "list_directory", {}));
  assert.ok(listing.entries.length >= 1);
  assert.equal(listing.truncated, listing.entries.length < 3);
});
