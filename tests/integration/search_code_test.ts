/**
 * `search_code` through the tool path (validation, handler, pipeline), most
 * tests in this thread (`callDirect`), one through the real server and its
 * permission-scoped workers.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { StopReason } from "../../src/contract/stop.ts";
import { toolBudget } from "../../src/contract/budget.ts";
import { loadConfig } from "../../src/config/load.ts";
import { callDirect, directContext, makeWorkspace, startServer } from "../helpers/fixtures.ts";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ToolContext } from "../../src/tools/types.ts";
import { readRefusal, resultText } from "../helpers/results.ts";

interface Found {
  output_mode: string;
  files: {
    path: string;
    count?: number;
    matches?: {
      line: number;
      column: number;
      text: string;
      cut?: boolean;
      before?: string[];
      after?: string[];
    }[];
  }[];
  total_matches: number;
  files_scanned: number;
  skipped: { binary: number; too_large: number; unreadable: number };
  truncated: boolean;
  timed_out: boolean;
  next_cursor?: string;
}

type Result = Awaited<ReturnType<typeof callDirect>>;

/** Calls search_code directly; a -32602 here is a failure. */
async function call(ctx: ToolContext, args: Record<string, unknown>): Promise<CallToolResult> {
  const result = await callDirect(ctx, "search_code", args);
  assert.ok(!("invalidParams" in result), JSON.stringify(result));
  return result;
}

function found(result: Result): Found {
  assert.ok(!("invalidParams" in result), JSON.stringify(result));
  assert.notEqual(result.isError, true, resultText(result));
  return result.structuredContent as unknown as Found;
}

/** "path:line" for every match, in order. */
function hits(f: Found): string[] {
  return f.files.flatMap((file) => (file.matches ?? []).map((m) => `${file.path}:${m.line}`));
}

const TREE = {
  ".git/HEAD": "ref: refs/heads/main\n",
  ".gitignore": "ignored/\n*.gen\n",
  "src/a.ts": "const alpha = 1;\nfunction Alpha() {}\n// ALPHA\nbeta\n",
  "src/b.ts": "no match here\nalphabet soup\n",
  "src/deep/c.rs": "fn alpha() {}\n",
  "ignored/x.ts": "alpha in an ignored dir\n",
  "out.gen": "alpha in an ignored file\n",
  "node_modules/m/index.js": "alpha in a vendored tree\n",
  ".hidden/h.ts": "alpha hidden\n",
  ".env": "ALPHA_SECRET=alpha\n",
};

Deno.test("search_code: a literal finds every matching line, grouped by file, with ripgrep's file selection", async () => {
  await using ws = await makeWorkspace(TREE);
  const ctx = directContext(ws.root);
  const f = found(await call(ctx, { pattern: "alpha" }));
  // Smart case: "alpha" is lower case, so the search ignores case.
  assert.deepEqual(hits(f), [
    "src/a.ts:1",
    "src/a.ts:2",
    "src/a.ts:3",
    "src/b.ts:2",
    "src/deep/c.rs:1",
  ]);
  const a = f.files[0].matches!;
  assert.deepEqual(a[0], { line: 1, column: 7, text: "const alpha = 1;" });
  assert.equal(f.total_matches, 5);
  assert.equal(f.truncated, false);
  assert.equal(f.timed_out, false);
  assert.equal(f.files_scanned, 3);
  const text = resultText(await call(ctx, { pattern: "alpha" }));
  assert.match(text, /^search_code: 5 matching lines in 3 files; 3 files searched\./);
  assert.match(text, /\nsrc\/a\.ts\n1:const alpha = 1;\n2:function Alpha\(\) \{\}\n/);
});

Deno.test("search_code: smart case, case_sensitive, regex and non-ASCII patterns", async () => {
  await using ws = await makeWorkspace({
    ...TREE,
    "src/u.txt": "café au lait\nCAFÉ\nnaïve\n",
  });
  const ctx = directContext(ws.root);
  const search = async (args: Record<string, unknown>) => hits(found(await call(ctx, args)));
  assert.deepEqual(await search({ pattern: "Alpha" }), ["src/a.ts:2"]);
  assert.deepEqual(await search({ pattern: "alpha", case_sensitive: true }), [
    "src/a.ts:1",
    "src/b.ts:2",
    "src/deep/c.rs:1",
  ]);
  assert.deepEqual(
    await search({ pattern: "ALPHA", case_sensitive: false }).then((h) => h.length),
    5,
  );
  assert.deepEqual(await search({ pattern: "^fn \\w+\\(", regex: true }), ["src/deep/c.rs:1"]);
  // \W is an escape, not an upper-case letter: still smart-case insensitive.
  assert.deepEqual(await search({ pattern: "\\Walpha\\W", regex: true }), [
    "src/a.ts:1",
    "src/a.ts:2",
    "src/deep/c.rs:1",
  ]);
  assert.deepEqual(await search({ pattern: "café" }), ["src/u.txt:1", "src/u.txt:2"]);
  assert.deepEqual(await search({ pattern: "ï" }), ["src/u.txt:3"]);
  const f = found(await call(ctx, { pattern: "au", path: "src/u.txt" }));
  assert.deepEqual(f.files[0].matches![0].text, "café au lait");
});

Deno.test("search_code: a regex that does not compile or cannot run in linear time is refused bad_pattern", async () => {
  await using ws = await makeWorkspace(TREE);
  const ctx = directContext(ws.root);
  for (const pattern of ["(unclosed", "(a)\\1", "foo(?=bar)", "(?!x)y"]) {
    const r = readRefusal(
      await call(ctx, { pattern, regex: true }),
      "bad_pattern",
    );
    assert.doesNotMatch(r.message, new RegExp(ws.root.replaceAll("/", "\\/")));
  }
  // The same text as a literal is fine.
  assert.deepEqual(found(await call(ctx, { pattern: "(a)\\1" })).files, []);
});

Deno.test("search_code: path narrows to a directory or one file; file_glob selects files", async () => {
  await using ws = await makeWorkspace(TREE);
  const ctx = directContext(ws.root);
  const search = async (args: Record<string, unknown>) =>
    hits(found(await call(ctx, { pattern: "alpha", ...args })));
  assert.deepEqual(await search({ path: "src/deep" }), ["src/deep/c.rs:1"]);
  assert.deepEqual(await search({ path: "src/b.ts" }), ["src/b.ts:2"]);
  assert.deepEqual(await search({ file_glob: ["*.rs"] }), ["src/deep/c.rs:1"]);
  assert.deepEqual(await search({ file_glob: ["src/*.ts"] }), [
    "src/a.ts:1",
    "src/a.ts:2",
    "src/a.ts:3",
    "src/b.ts:2",
  ]);
  assert.deepEqual(await search({ file_glob: ["**/*.ts", "!b.ts"] }), [
    "src/a.ts:1",
    "src/a.ts:2",
    "src/a.ts:3",
  ]);
  assert.deepEqual(await search({ file_glob: ["*.{rs,md}"] }), ["src/deep/c.rs:1"]);
  readRefusal(await call(ctx, { pattern: "a", path: ".env" }), "denied_path");
  readRefusal(await call(ctx, { pattern: "a", path: "nope" }), "not_found");
  readRefusal(
    await call(ctx, { pattern: "a", path: "../outside" }),
    "outside_workspace",
  );
  readRefusal(
    await call(ctx, { pattern: "a", file_glob: ["[unclosed"] }),
    "invalid_arguments",
  );
});

Deno.test("search_code: output modes and context lines", async () => {
  await using ws = await makeWorkspace({
    "f.txt": "one\ntwo x\nthree\nfour\nfive x\nsix\n",
    "g.txt": "x\n",
  });
  const ctx = directContext(ws.root);
  const files = found(
    await call(ctx, { pattern: "x", output_mode: "files_with_matches" }),
  );
  assert.deepEqual(files.files, [{ path: "f.txt" }, { path: "g.txt" }]);
  const count = found(await call(ctx, { pattern: "x", output_mode: "count" }));
  assert.deepEqual(count.files, [{ path: "f.txt", count: 3 }, { path: "g.txt", count: 1 }]);
  assert.equal(count.total_matches, 4);
  const withContext = await call(ctx, {
    pattern: " x",
    path: "f.txt",
    context_lines: 1,
  });
  const m = found(withContext).files[0].matches!;
  assert.deepEqual(m[0], { line: 2, column: 4, text: "two x", before: ["one"], after: ["three"] });
  assert.deepEqual(m[1], { line: 5, column: 5, text: "five x", before: ["four"], after: ["six"] });
  assert.match(
    resultText(withContext),
    /\nf\.txt\n1-one\n2:two x\n3-three\n4-four\n5:five x\n6-six\n/,
  );
});

Deno.test("search_code: binary and oversized files are skipped and counted; long lines are cut around the match", async () => {
  const long = "a".repeat(5000) + "NEEDLE" + "b".repeat(5000);
  await using ws = await makeWorkspace({
    "bin.dat": new Uint8Array([0x4e, 0x45, 0x45, 0x44, 0x4c, 0x45, 0, 1, 2]),
    "big.txt": "NEEDLE\n" + "x".repeat(600 * 1024),
    "long.txt": long + "\n",
    "latin1.txt": new Uint8Array([0x4e, 0x45, 0x45, 0x44, 0x4c, 0x45, 0x20, 0xe9, 0xff, 0x0a]),
  });
  const ctx = directContext(ws.root);
  const f = found(await call(ctx, { pattern: "NEEDLE" }));
  assert.deepEqual(f.skipped, { binary: 1, too_large: 1, unreadable: 0 });
  assert.deepEqual(f.files.map((x) => x.path), ["latin1.txt", "long.txt"]);
  assert.equal(f.files[0].matches![0].text, "NEEDLE \ufffd\ufffd");
  const cut = f.files[1].matches![0];
  assert.equal(cut.cut, true);
  assert.equal(cut.column, 5001);
  assert.ok(cut.text.length <= 402, `${cut.text.length}`);
  assert.ok(cut.text.includes("NEEDLE") && cut.text.startsWith("…") && cut.text.endsWith("…"));
  // The size cap is configurable.
  const raised = directContext(ws.root, { MCP_SEARCH__MAX_FILE_BYTES: String(1024 * 1024) });
  const all = found(await call(raised, { pattern: "NEEDLE" }));
  assert.deepEqual(all.files.map((x) => x.path), ["big.txt", "latin1.txt", "long.txt"]);
});

Deno.test("search_code: max_results pages with next_cursor cover every match exactly once", async () => {
  const entries: Record<string, string> = {};
  for (let i = 0; i < 12; i++) {
    entries[`d${i % 3}/f${String(i).padStart(2, "0")}.txt`] = "hit\nmiss\nhit again\n".repeat(3);
  }
  await using ws = await makeWorkspace(entries);
  const ctx = directContext(ws.root);
  const all = hits(
    found(await call(ctx, { pattern: "hit", max_results: 1000 })),
  );
  assert.equal(all.length, 12 * 6);
  for (const pageSize of [1, 4, 7]) {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const f = found(
        await call(ctx, {
          pattern: "hit",
          max_results: pageSize,
          ...(cursor ? { cursor } : {}),
        }),
      );
      assert.ok(f.total_matches <= pageSize);
      seen.push(...hits(f));
      cursor = f.next_cursor;
      assert.equal(f.truncated, cursor !== undefined);
      assert.ok(++pages < 200, "pagination ends");
    } while (cursor);
    assert.deepEqual(seen, all, `page size ${pageSize}`);
  }
  // files_with_matches pages by files.
  const first = found(
    await call(ctx, {
      pattern: "hit",
      output_mode: "files_with_matches",
      max_results: 5,
    }),
  );
  assert.equal(first.files.length, 5);
  const second = found(
    await call(ctx, {
      pattern: "hit",
      output_mode: "files_with_matches",
      max_results: 5,
      cursor: first.next_cursor,
    }),
  );
  assert.equal(second.files.length, 5);
  assert.notDeepEqual(second.files, first.files);
});

Deno.test("attack: a forged cursor, or one from another search, is invalid params", async () => {
  await using ws = await makeWorkspace({ "a.txt": "hit\nhit\n" });
  const ctx = directContext(ws.root);
  const f = found(await call(ctx, { pattern: "hit", max_results: 1 }));
  assert.ok(f.next_cursor);
  const other = await callDirect(ctx, "search_code", {
    pattern: "hot",
    max_results: 1,
    cursor: f.next_cursor,
  });
  assert.ok("invalidParams" in other && /different search/.test(String(other.invalidParams)));
  const forged = f.next_cursor.slice(0, -2) + (f.next_cursor.endsWith("AA") ? "BB" : "AA");
  const r = await callDirect(ctx, "search_code", {
    pattern: "hit",
    max_results: 1,
    cursor: forged,
  });
  assert.ok("invalidParams" in r);
});

Deno.test("search_code: a result never exceeds the response budget; it is cut with a cursor to continue", async () => {
  const entries: Record<string, string> = {};
  for (let i = 0; i < 40; i++) {
    entries[`f${String(i).padStart(2, "0")}.txt`] = `match ${"y".repeat(300)}\n`.repeat(20);
  }
  await using ws = await makeWorkspace(entries);
  const env = { MCP_SERVER__MAX_RESULT_CHARS: "10000", MCP_SEARCH__MAX_RESULTS: "10000" };
  const ctx = directContext(ws.root, env);
  const limit = loadConfig(env, { cwd: ws.root }).maxResultChars;
  let cursor: string | undefined;
  let total = 0;
  let pages = 0;
  do {
    const result = await callDirect(ctx, "search_code", {
      pattern: "match",
      max_results: 10000,
      ...(cursor ? { cursor } : {}),
    });
    assert.ok(!("invalidParams" in result));
    const size = JSON.stringify(result.structuredContent).length +
      resultText(result).length;
    assert.ok(size <= limit, `result of ${size} chars over the ${limit} budget`);
    const f = found(result);
    assert.ok(f.total_matches > 0, "every page makes progress");
    total += f.total_matches;
    cursor = f.next_cursor;
    pages++;
  } while (cursor && pages < 500);
  assert.equal(total, 40 * 20);
  assert.ok(pages > 2);
  assert.ok(toolBudget(ctx.limits) < 8000);
});

Deno.test("search_code: progress is reported with increasing counts, none after the result", async () => {
  const entries: Record<string, string> = {};
  for (let i = 0; i < 1100; i++) entries[`d/f${i}.txt`] = "text\n";
  await using ws = await makeWorkspace(entries);
  const reports: [number, number | undefined][] = [];
  let done = false;
  const ctx = directContext(ws.root, {}, {
    progress: (p, t) => {
      assert.equal(done, false, "no progress after the result");
      reports.push([p, t]);
    },
  });
  const f = found(await call(ctx, { pattern: "nothing-matches" }));
  done = true;
  assert.equal(f.files_scanned, 1100);
  assert.ok(reports.length >= 4, JSON.stringify(reports));
  for (let i = 1; i < reports.length; i++) assert.ok(reports[i][0] >= reports[i - 1][0]);
  assert.deepEqual(reports.at(-1), [1100, 1100]);
});

Deno.test("search_code: a raised stop flag ends a running search, which returns what it found with timed_out", async () => {
  const entries: Record<string, string> = {};
  for (let i = 0; i < 300; i++) entries[`f${String(i).padStart(3, "0")}.txt`] = "hit\n";
  await using ws = await makeWorkspace(entries);
  let checks = 0;
  let budget = 100;
  const stop = {
    reason: (): StopReason | undefined => (++checks > budget ? "timed_out" : undefined),
  };
  const ctx = directContext(ws.root, {}, { stop });
  const f = found(await call(ctx, { pattern: "hit", max_results: 1000 }));
  assert.equal(f.timed_out, true);
  assert.equal(f.truncated, true);
  assert.ok(f.files.length > 0 && f.files.length < 300, `${f.files.length}`);
  assert.ok(f.next_cursor, "a way to continue");
  // The continuation picks up where it stopped, without repeats.
  budget = Infinity;
  const rest = found(
    await call(ctx, { pattern: "hit", max_results: 1000, cursor: f.next_cursor }),
  );
  const first = f.files.map((x) => x.path);
  const second = rest.files.map((x) => x.path);
  assert.equal(first.length + second.length, 300);
  assert.ok(!second.includes(first.at(-1)!));
});

Deno.test("attack: catastrophic patterns over a large file finish within the budget", async () => {
  await using ws = await makeWorkspace({
    "big.txt": ("a".repeat(3000) + "!\n").repeat(150) + "x".repeat(30000) + "\n",
  });
  const ctx = directContext(ws.root);
  for (
    const pattern of ["(a+)+$", "(.*a){14}$", "(x+x+)+y", "(a|a)+b", "(\\w+\\s?)*$", "^(a|aa)+$"]
  ) {
    const started = performance.now();
    const f = found(await call(ctx, { pattern, regex: true }));
    const ms = performance.now() - started;
    assert.ok(ms < 5000, `${pattern} took ${ms.toFixed(0)} ms`);
    assert.equal(f.timed_out, false);
  }
});

Deno.test("attack: a glob bomb in file_glob is matched without exponential backtracking", async () => {
  const entries: Record<string, string> = {};
  for (let i = 0; i < 50; i++) entries[`${"a".repeat(200)}${i}.txt`] = "hit\n";
  await using ws = await makeWorkspace(entries);
  const ctx = directContext(ws.root);
  const started = performance.now();
  const f = found(
    await call(ctx, {
      pattern: "hit",
      file_glob: ["*a*a*a*a*a*a*a*a*a*a*a*a*b", "{*a*a*a*a*a*a*a*c,*a*a*a*a*a*d}"],
    }),
  );
  assert.ok(performance.now() - started < 3000);
  assert.deepEqual(f.files, []);
});

Deno.test("attack: symlinked directories (with a secret behind them), symlinked files and FIFOs in the tree are never followed or opened", async () => {
  await using ws = await makeWorkspace({
    "ok.txt": "needle inside\n",
    "linkdir": { symlink: "../outside" },
    "linkfile.txt": { symlink: "../outside/secret.txt" },
    "pipe": { fifo: true },
  });
  {
    await Deno.writeTextFile(`${ws.outside}/more.txt`, "needle outside\n");
    const ctx = directContext(ws.root);
    for (const pattern of ["needle", "OUTSIDE-SECRET"]) {
      const result = await call(ctx, { pattern });
      const text = resultText(result);
      assert.doesNotMatch(
        text,
        /outside|OUTSIDE-SECRET/i.test(pattern) ? /OUTSIDE-SECRET/ : /needle outside/,
      );
    }
    const f = found(await call(ctx, { pattern: "needle" }));
    assert.deepEqual(hits(f), ["ok.txt:1"]);
  }
});

Deno.test("search_code through the real server and its workers", async () => {
  await using ws = await makeWorkspace(TREE);
  using server = startServer(ws.root);
  const result = await server.dispatcher.call("search_code", {
    pattern: "alpha",
    regex: true,
    output_mode: "count",
  });
  const f = result.structuredContent as unknown as Found;
  assert.ok(f, resultText(result));
  assert.deepEqual(f.files, [
    { path: "src/a.ts", count: 3 },
    { path: "src/b.ts", count: 1 },
    { path: "src/deep/c.rs", count: 1 },
  ]);
  readRefusal(
    await server.dispatcher.call("search_code", { pattern: "(a)\\1", regex: true }),
    "bad_pattern",
  );
});
