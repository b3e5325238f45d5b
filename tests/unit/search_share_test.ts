/**
 * The shared memory of a two-thread search (ADR-064): walk order as a
 * comparison of paths must be the walker's own order, or the merge would
 * misplace results and cursors; a directory must have exactly one owner.
 */

import assert from "node:assert/strict";
import { Walker } from "../../src/access/walk.ts";
import {
  comparePositions,
  compareWalkOrder,
  HELPER,
  PRIMARY,
  SearchShare,
} from "../../src/tools/search_share.ts";
import { searchCodeTool } from "../../src/tools/search_code.ts";
import { withHooks } from "../../src/tools/runtime.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { QUIET_MS } from "../../src/access/workspace.ts";
import {
  directContext,
  makeWorkspace,
  saveLikeAnEditor,
  withLstatHook,
} from "../helpers/fixtures.ts";

Deno.test("compareWalkOrder sorts paths exactly as the walker walks them (files before subdirectories, code-unit names)", async () => {
  await using ws = await makeWorkspace({
    "b.txt": "x",
    "a/z.txt": "x",
    "a/b/c.txt": "x",
    "a/B.txt": "x",
    "a/b.txt": "x",
    "a-b/x.txt": "x",
    "a.b/x.txt": "x",
    "Z/y.txt": "x",
    "é/x.txt": "x",
    "a/b/d/e/f.txt": "x",
    "a/b/d.txt": "x",
  });
  const ctx = directContext(ws.root);
  const walker = new Walker(ctx.workspace.walkPolicy, ws.root, ctx.workspace.resolve(""));
  const walked: string[] = [];
  for (const e of walker.walk()) if (e.kind === "file") walked.push(e.walkPath);
  assert.equal(walked.length, 11);
  const sorted = [...walked].reverse().sort(compareWalkOrder);
  assert.deepEqual(sorted, walked);
  for (let i = 1; i < walked.length; i++) {
    assert.ok(compareWalkOrder(walked[i - 1], walked[i]) < 0, `${walked[i - 1]} ${walked[i]}`);
    assert.ok(compareWalkOrder(walked[i], walked[i - 1]) > 0);
  }
  assert.equal(compareWalkOrder("a/b.txt", "a/b.txt"), 0);
  // The walker's `enter` option passes a subtree over, and only it.
  const asked: string[] = [];
  const passing = new Walker(ctx.workspace.walkPolicy, ws.root, ctx.workspace.resolve(""), {
    enter: (walkPath) => (asked.push(walkPath), walkPath !== "a/b"),
  });
  const kept: string[] = [];
  for (const e of passing.walk()) if (e.kind === "file") kept.push(e.walkPath);
  assert.deepEqual(kept, walked.filter((p) => !p.startsWith("a/b/")));
  assert.ok(asked.includes("a/b") && !asked.includes("a/b/d") && !asked.includes(""));
  // A file continued (i) comes before the same file finished; fewer matches first.
  assert.ok(
    comparePositions({ f: "a/b.txt", i: true, m: 3 }, { f: "a/b.txt", i: false, m: 0 }) < 0,
  );
  assert.ok(comparePositions({ f: "a/b.txt", i: true, m: 2 }, { f: "a/b.txt", i: true, m: 3 }) < 0);
});

Deno.test("the walker's files option passes a directory's files over, and only its files, subdirectories still walked (ADR-094); it is asked at the first file the policy walks, never with a denied name (ADR-101)", async () => {
  await using ws = await makeWorkspace({
    "a/.env": "SECRET=1",
    "a/x.txt": "x",
    "a/b/y.txt": "x",
    "c/z.txt": "x",
    "top.txt": "x",
  });
  const ctx = directContext(ws.root);
  const walk = (files?: (first: string) => boolean) => {
    const walker = new Walker(ctx.workspace.walkPolicy, ws.root, ctx.workspace.resolve(""), {
      ...(files ? { files } : {}),
    });
    const kept: string[] = [];
    for (const e of walker.walk()) if (e.kind === "file") kept.push(e.walkPath);
    return { kept, stats: walker.stats };
  };
  const all = walk();
  assert.deepEqual(all.kept, ["top.txt", "a/x.txt", "a/b/y.txt", "c/z.txt"]);
  assert.equal(all.stats.denied, 1, "the denylist must refuse a/.env when the files are asked");
  const asked: string[] = [];
  const some = walk((
    first,
  ) => (asked.push(first), !first.startsWith("a/") || first.includes("/b/")));
  // a's files are passed over, its subdirectory is not; every other directory is kept whole.
  assert.deepEqual(some.kept, ["top.txt", "a/b/y.txt", "c/z.txt"]);
  // Asked once per directory with files, at its first file the policy walks: a/.env, first in
  // walk order, is refused by the denylist and never handed to `files` (what it is given is
  // published to the other thread and may end a page: ADR-101), nor counted by the side that
  // passes a's files over.
  assert.deepEqual(asked, ["top.txt", "a/x.txt", "a/b/y.txt", "c/z.txt"]);
  assert.equal(some.stats.denied, 0);
  assert.equal(some.stats.files, 3);
  // The side that takes a's files counts its denied file once.
  const mine = walk(() => true);
  assert.deepEqual(mine.kept, all.kept);
  assert.equal(mine.stats.denied, 1);
});

Deno.test("SearchShare: the first side to claim a directory owns it for both; a helper joins only while the primary is open", () => {
  const primary = new SearchShare();
  const helper = new SearchShare(primary.buffer);
  assert.equal(primary.claim("t\0src/a", PRIMARY), PRIMARY);
  assert.equal(helper.claim("t\0src/a", HELPER), PRIMARY, "a claimed directory changed hands");
  assert.equal(helper.claim("t\0src/b", HELPER), HELPER);
  assert.equal(primary.claim("t\0src/b", PRIMARY), HELPER);
  // Many directories: every one has exactly one owner, the same seen from both sides.
  for (let i = 0; i < 5000; i++) {
    const side = i % 2 === 0 ? PRIMARY : HELPER;
    const first = (side === PRIMARY ? primary : helper).claim(`f\0d/${i}`, side);
    assert.equal(first, side);
    assert.equal((side === PRIMARY ? helper : primary).claim(`f\0d/${i}`, 3 - side as 1 | 2), side);
  }
  assert.equal(helper.join(), true);
  assert.equal(primary.close(), true, "the primary must wait for a helper that joined");
  const late = new SearchShare();
  assert.equal(late.close(), false);
  assert.equal(
    new SearchShare(late.buffer).join(),
    false,
    "a helper joined after the primary ended",
  );
  // The other side's published end, read back exactly.
  assert.equal(helper.endOf(PRIMARY), undefined);
  assert.equal(primary.publishEnd(PRIMARY, { f: "src/é/x.c", i: true, m: 7 }), true);
  assert.deepEqual(helper.endOf(PRIMARY), { f: "src/é/x.c", i: true, m: 7 });
  assert.equal(
    primary.publishEnd(PRIMARY, { f: "other", i: false, m: 0 }),
    false,
    "published twice",
  );
});

Deno.test("SearchShare: a front reads back exactly as the other side published it, the latest one, and never a mix of two (ADR-084)", async () => {
  const share = new SearchShare();
  const view = new SearchShare(share.buffer);
  assert.equal(view.frontOf(HELPER), undefined, "a front before any was published");
  assert.equal(view.frontCount(HELPER), 0);
  share.publishFront(HELPER, "arch/arm/boot/dts/a.dts", 7);
  assert.deepEqual(view.frontOf(HELPER), { f: "arch/arm/boot/dts/a.dts", count: 7 });
  assert.equal(view.frontOf(PRIMARY), undefined, "one side's front is not the other's");
  share.publishFront(HELPER, "b", 9);
  assert.deepEqual(view.frontOf(HELPER), { f: "b", count: 9 }, "a shorter, later front");
  // A path too long for the slot is not published: the older front, still true, stays.
  share.publishFront(HELPER, "x/".repeat(3000), 11);
  assert.deepEqual(view.frontOf(HELPER), { f: "b", count: 9 });
  // A path longer than one decoding chunk (1,024 units) but within the slot comes back whole,
  // its non-ASCII units too, for a front and for an end alike.
  const long = "é/".repeat(700) + "z.txt";
  share.publishFront(HELPER, long, 12);
  assert.deepEqual(view.frontOf(HELPER), { f: long, count: 12 });
  assert.ok(share.publishEnd(PRIMARY, { f: long, i: true, m: 3 }));
  assert.deepEqual(view.endOf(PRIMARY), { f: long, i: true, m: 3 });

  // Attack on the copy: a worker rewrites the front in a loop while this thread reads it. Each
  // front it writes pairs a path with its own count; a read that mixed two writes would pair a
  // path with another's count, or splice two paths.
  const code = `self.onmessage = async (e) => {
    const { SearchShare } = await import(${
    JSON.stringify(new URL("../../src/tools/search_share.ts", import.meta.url).href)
  });
    const share = new SearchShare(e.data);
    const stop = new Int32Array(new SharedArrayBuffer(4));
    postMessage(stop.buffer);
    for (let n = 0; Atomics.load(stop, 0) === 0; n++) {
      const name = String(n).repeat(1 + (n % 40));
      share.publishFront(2, "dir/" + name, n);
    }
    postMessage("stopped");
  };`;
  const worker = new Worker(`data:application/javascript,${encodeURIComponent(code)}`, {
    type: "module",
  });
  const fresh = new SearchShare();
  const reader = new SearchShare(fresh.buffer);
  const stopBuffer = await new Promise<SharedArrayBuffer>((resolve) => {
    worker.onmessage = (e) => resolve(e.data as SharedArrayBuffer);
    worker.postMessage(fresh.buffer);
  });
  let seen = 0;
  const until = Date.now() + 300;
  while (Date.now() < until) {
    const front = reader.frontOf(HELPER);
    if (front === undefined) continue;
    const n = front.count;
    assert.equal(front.f, "dir/" + String(n).repeat(1 + (n % 40)), `front ${n} read mixed`);
    seen++;
  }
  const stopped = new Promise((resolve) => (worker.onmessage = resolve));
  Atomics.store(new Int32Array(stopBuffer), 0, 1);
  await stopped;
  worker.terminate();
  assert.ok(seen > 0, "no front was read whole while the worker wrote");
});

Deno.test("a thread past the other's front stops at the next file once the two fill the page there, not at the end of its directory (ADR-106)", async () => {
  // One long directory: the first five files match, the rest do not. The other side (the
  // primary, simulated here) has published a front at big/f100.c with a whole page before it,
  // so the page ends there. The helper owns big/ (nobody else claimed it), commits nothing
  // until the directory ends, and never fills a page of its own: before ADR-106 it tested the
  // front only at a directory's first file, and searched all 400 files.
  const files: Record<string, string> = {};
  for (let i = 0; i < 400; i++) {
    files[`big/f${String(i).padStart(3, "0")}.c`] = i < 5 ? "a needle here\n" : "nothing\n";
  }
  await using ws = await makeWorkspace(files);
  const ctx = directContext(ws.root);
  const share = new SearchShare();
  share.publishFront(PRIMARY, "big/f100.c", 10);
  const assist = searchCodeTool.assist!;
  const answer = await assist(
    { pattern: "needle", max_results: 10 } as never,
    ctx,
    share.buffer,
  ) as {
    scan: { scanned: number; truncated: boolean; end?: { f: string; i: boolean; m: number } };
  };
  assert.ok(answer, "the helper did not join");
  const { scan } = answer;
  assert.equal(scan.truncated, true);
  assert.deepEqual(scan.end, { f: "big/f100.c", i: true, m: 0 });
  // It searched up to the first file past the front, not the directory's 400.
  assert.ok(scan.scanned <= 102, `the helper searched ${scan.scanned} files past the page's end`);
  assert.deepEqual(share.endOf(HELPER), { f: "big/f100.c", i: true, m: 0 });
});

Deno.test("a thread behind the other's front does not stop on it: the front only ends the page for one at or past it (ADR-084, ADR-106)", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 50; i++) files[`a/f${String(i).padStart(2, "0")}.c`] = "needle\n";
  await using ws = await makeWorkspace(files);
  const ctx = directContext(ws.root);
  const share = new SearchShare();
  // A front far ahead with a count that, with the helper's, fills the page: the helper is
  // behind it and must search until its own page is full.
  share.publishFront(PRIMARY, "z/later.c", 90);
  const answer = await searchCodeTool.assist!(
    { pattern: "needle", max_results: 100 } as never,
    ctx,
    share.buffer,
  ) as { scan: { scanned: number; truncated: boolean } };
  assert.equal(answer.scan.scanned, 50);
  assert.equal(answer.scan.truncated, false);
});

/** What a helper's scan says of itself. */
interface RecalledAnswer {
  scan: { files: { path: string }[]; handedBack: boolean; truncated: boolean; end?: unknown };
}

/** The helper's part of a search for `needle` (files with matches) on `share`. */
function assistNeedle(ctx: ToolContext, share: SearchShare): Promise<RecalledAnswer> {
  return searchCodeTool.assist!(
    { pattern: "needle", output_mode: "files_with_matches" } as never,
    ctx,
    share.buffer,
  ) as Promise<RecalledAnswer>;
}

/**
 * Runs a search as the helper over `files` (quiet first), recalled from the `at`-th time it is
 * asked on, when an editor's save rewrites `saved` (a file it has read): the batch holding it
 * then comes again. `stopWhen(path)`, asked at each `lstat`, raises the time budget's flag.
 */
async function recalledHelper(
  files: Record<string, string>,
  at: number,
  saved: string,
  stopWhen: (path: string, recalled: boolean) => boolean = () => false,
): Promise<{ answer: RecalledAnswer; share: SearchShare; recalled: boolean; stopped: boolean }> {
  await using ws = await makeWorkspace(files);
  await new Promise((r) => setTimeout(r, QUIET_MS + 1_200));
  let recalled = false, asked = 0, stopped = false;
  const ctx = withHooks(directContext(ws.root), {
    recalled: () => {
      asked++;
      if (!recalled && asked === at) {
        recalled = true;
        saveLikeAnEditor(ws.path(saved), "needle\n");
      }
      return recalled;
    },
    stop: { reason: () => (stopped ? "timed_out" : undefined) },
  });
  const share = new SearchShare();
  const answer = await withLstatHook((path) => {
    if (stopWhen(path, recalled)) stopped = true;
  }, () => assistNeedle(ctx, share));
  return { answer, share, recalled, stopped };
}

Deno.test("a helper recalled after a subtree it claimed, whose batch then comes again, searches that subtree again instead of losing it (ADR-139)", async () => {
  // p/q/r1 and p/q/r2 sit at the split depth: the helper claims r1 and reads it. As it is about
  // to enter r2 it is recalled (the primary takes the rest), and meanwhile a save in r1 moves
  // r1's ctime, so the batch holding r1 comes again. Asked to enter r1 once more, a recalled
  // helper that refused every directory dropped r1 — its claim kept the primary out of it too.
  // Asked first as it is about to enter p, then at q, r1 and r2 (the fourth).
  const { answer, share, recalled } = await recalledHelper(
    { "p/q/r1/a.txt": "needle\n", "p/q/r2/b.txt": "needle\n" },
    4,
    "p/q/r1/a.txt",
  );
  assert.ok(recalled, "the helper was never asked whether it was recalled");
  assert.equal(answer.scan.handedBack, true);
  assert.deepEqual(answer.scan.files.map((f) => f.path), ["p/q/r1/a.txt"]);
  assert.equal(share.claim("t\0p/q/r2", PRIMARY), PRIMARY, "r2 is left to the primary");
});

Deno.test("a recalled helper whose batch comes again still searches the files it claimed in a directory above the split depth (ADR-139)", async () => {
  // p's files (depth 1, above SPLIT_DEPTH) are claimed per directory ("f\0p"); the helper
  // claims and reads p/a.txt. It is recalled as it is about to enter p/q/r2 (the third ask),
  // and a save in p makes the batch {p} come again. p holds no claimed subtree, so a recalled
  // helper that only remembered subtrees refused to enter p again — and the primary, asking
  // "f\0p", is told the helper owns those files.
  const { answer, share, recalled } = await recalledHelper(
    { "p/a.txt": "needle\n", "p/q/r2/b.txt": "needle\n" },
    3,
    "p/a.txt",
  );
  assert.ok(recalled);
  assert.equal(answer.scan.handedBack, true);
  assert.equal(share.claim("f\0p", PRIMARY), HELPER, "the primary leaves p's files to the helper");
  assert.deepEqual(
    answer.scan.files.map((f) => f.path),
    ["p/a.txt"],
    "p/a.txt searched by someone",
  );
});

Deno.test("a recalled helper stopped right after its claimed subtree's batch comes again leaves a cut where the subtree begins, so a later page searches it (ADR-139)", async () => {
  // As the first test, and the budget runs out as the batch's check looks at r1 after the save.
  const { answer, share, recalled, stopped } = await recalledHelper(
    { "p/q/r1/a.txt": "needle\n", "p/q/r2/b.txt": "needle\n" },
    4,
    "p/q/r1/a.txt",
    (path, recalled) => recalled && path.endsWith("/p/q/r1"),
  );
  assert.ok(recalled && stopped);
  assert.equal(share.claim("t\0p/q/r1", PRIMARY), HELPER, "the primary passes r1 over");
  // Not searched: then its part is not whole, and the merge must cut where it stopped: at r1's
  // first file (an end of none would read as "nothing covered" and drop the primary's page).
  if (answer.scan.files.length === 0) {
    assert.equal(answer.scan.handedBack, false, "a handed-back helper's end is not a cut");
    assert.equal(answer.scan.truncated, true, JSON.stringify(answer.scan));
    assert.deepEqual(answer.scan.end, { f: "p/q/r1/a.txt", i: true, m: 0 });
  } else assert.deepEqual(answer.scan.files.map((f) => f.path), ["p/q/r1/a.txt"]);
});

Deno.test("a helper recalled while it walks again a batch that came again before the recall, and stopped there, does not report its claims whole (ADR-139)", async () => {
  // r1 and r2 (split depth) are claimed and read by the helper in one batch. A save in r1 as
  // r2 is entered makes the batch come again while the helper is not leaving yet. On the walk
  // again it is asked at r1 (the fifth ask: p, q, r1, r2, r1), recalled there, and the budget
  // runs out at once, before r1's files are read again. Reporting itself whole, it would have
  // the primary pass r1 and r2 over (the helper owns their claims).
  await using ws = await makeWorkspace({ "p/q/r1/a.txt": "needle\n", "p/q/r2/b.txt": "needle\n" });
  await new Promise((r) => setTimeout(r, QUIET_MS + 1_200));
  let asked = 0, recalled = false, stopped = false, saved = false;
  const ctx = withHooks(directContext(ws.root), {
    recalled: () => {
      asked++;
      if (asked === 5) recalled = stopped = true;
      return recalled;
    },
    stop: { reason: () => (stopped ? "timed_out" : undefined) },
  });
  const share = new SearchShare();
  const answer = await withLstatHook((path) => {
    if (!saved && path.endsWith("/p/q/r2")) {
      saved = true;
      saveLikeAnEditor(ws.path("p/q/r1/a.txt"), "needle\n");
    }
  }, () => assistNeedle(ctx, share));
  assert.ok(saved && recalled && stopped);
  assert.equal(share.claim("t\0p/q/r1", PRIMARY), HELPER, "the primary passes r1 over");
  const found = answer.scan.files.map((f) => f.path);
  if (found.length < 2) {
    assert.equal(answer.scan.handedBack, false, JSON.stringify(answer.scan));
    assert.equal(answer.scan.truncated, true, JSON.stringify(answer.scan));
    assert.notEqual(answer.scan.end, undefined, "a cut at a position");
  }
});

Deno.test("a resumed page whose first batch comes again and is then stopped keeps the cursor's match count: the next page repeats nothing (ADR-139)", async () => {
  await using ws = await makeWorkspace({ "p/a.txt": "needle 1\nneedle 2\nneedle 3\n" });
  await new Promise((r) => setTimeout(r, QUIET_MS + 1_200));
  let stopped = false;
  const ctx = withHooks(directContext(ws.root), {
    stop: { reason: () => (stopped ? "timed_out" : undefined) },
  });
  type Out = { structured: { files: { matches: { text: string }[] }[]; next_cursor?: string } };
  const run = (args: unknown) =>
    (searchCodeTool.run as unknown as (a: unknown, c: ToolContext) => Promise<Out>)(args, ctx);
  const texts = (out: Out) => out.structured.files.map((f) => f.matches.map((m) => m.text));
  const first = await run({ pattern: "needle", max_results: 1 });
  assert.deepEqual(texts(first), [["needle 1"]]);
  // Page two resumes inside p/a.txt (one match in). Its batch is read the fast way; a save in
  // p as the batch's chain is checked makes it come again, and the budget runs out before it
  // is read again: nothing was committed, so the page ends before the batch.
  let looked = 0;
  const second = await withLstatHook((path) => {
    if (path.endsWith("/p") && ++looked === 2) {
      saveLikeAnEditor(ws.path("p/a.txt"), "needle 1\nneedle 2\nneedle 3\n");
      stopped = true;
    }
  }, () => run({ pattern: "needle", max_results: 1, cursor: first.structured.next_cursor }));
  assert.ok(stopped);
  assert.equal(second.structured.files.length, 0, JSON.stringify(second.structured));
  stopped = false;
  const third = await run({
    pattern: "needle",
    max_results: 1,
    cursor: second.structured.next_cursor,
  });
  // "needle 1" was on page one: a cut that forgot the cursor's count gave it again here.
  assert.deepEqual(texts(third), [["needle 2"]]);
});
