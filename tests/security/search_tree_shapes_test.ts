/**
 * Trees shaped to stall or crash a walk, searched through the real tool
 * handler: a unix socket and FIFOs where files are expected, a tree of
 * 100,000 files, and one 1,500 directories deep. Each must come back, on
 * time, with what it found, and an unreadable part must not end the walk.
 *
 * @module
 */

import assert from "node:assert/strict";
import { callDirect, directContext, makeWorkspace } from "../helpers/fixtures.ts";
import { resultText } from "../helpers/results.ts";
import { HANG_DEADLINE_MS, within } from "./helpers.ts";

interface Found {
  files: { path: string; matches?: { line: number }[] }[];
  total_matches: number;
  files_scanned: number;
  skipped: { binary: number; too_large: number; unreadable: number };
  truncated: boolean;
  next_cursor?: string;
}

async function search(
  root: string,
  args: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<Found> {
  const ctx = directContext(root, env);
  const result = await within(
    callDirect(ctx, "search_code", args),
    HANG_DEADLINE_MS,
    "search_code",
  );
  assert.ok(!("invalidParams" in result) && !result.isError, JSON.stringify(result));
  const found = result.structuredContent as unknown as Found;
  assert.ok(found, resultText(result));
  return found;
}

Deno.test("attack: a unix socket and FIFOs named like source files, in the tree, are skipped without hanging", async () => {
  await using ws = await makeWorkspace({
    "ok.c": "needle here\n",
    "sub/ok.h": "needle too\n",
  });
  // A unix socket with a listener behind it (a child's: this process may not listen), and
  // FIFOs nobody writes to, which a blocking open would wait on forever.
  const socket = `${ws.root}/sub/agent.sock`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `for await (const c of Deno.listen({ transport: "unix", path: ${
        JSON.stringify(socket)
      } })) c.close();`,
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    for (let i = 0; i < 400 && !exists(socket); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(Deno.lstatSync(socket).isSocket, "a socket in the tree");
    for (const fifo of ["pipe.c", "sub/pipe.h"]) {
      const out = await new Deno.Command("mkfifo", { args: [`${ws.root}/${fifo}`] }).output();
      assert.ok(out.success, "mkfifo");
    }
    const found = await search(ws.root, { pattern: "needle" });
    assert.deepEqual(found.files.map((f) => f.path), ["ok.c", "sub/ok.h"]);
    assert.equal(found.files_scanned, 2, "neither the socket nor a FIFO is searched as a file");
    assert.equal(found.truncated, false);
  } finally {
    child.kill(); // still listening: it never ends by itself
    await child.status;
  }
});

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("search_code: a 100,000-file tree is searched whole, in one call, and a file cap cuts it with a cursor", async () => {
  await using ws = await makeWorkspace({});
  const FILES = 100_000;
  for (let d = 0; d < 100; d++) {
    const dir = `${ws.root}/d${String(d).padStart(2, "0")}`;
    Deno.mkdirSync(dir);
    for (let f = 0; f < FILES / 100; f++) {
      // One file in a thousand holds the needle.
      Deno.writeTextFileSync(`${dir}/f${f}.txt`, f % 1000 === 7 ? "x\nneedle\n" : "x\n");
    }
  }
  const whole = await search(ws.root, { pattern: "needle", max_results: 1000 });
  assert.equal(whole.files_scanned, FILES);
  assert.equal(whole.total_matches, FILES / 1000);
  assert.equal(whole.truncated, false);
  assert.ok(whole.files.every((f) => /^d\d\d\/f\d*7\.txt$/.test(f.path)));

  const capped = await search(ws.root, { pattern: "needle", max_results: 1000 }, {
    MCP_SEARCH__MAX_FILES: "30000",
  });
  assert.equal(capped.truncated, true);
  assert.ok(capped.next_cursor, "a capped walk says how to continue");
  assert.ok(capped.files_scanned <= 30_000 && capped.files_scanned > 0);
  assert.equal(
    capped.total_matches,
    30,
    "what it found before the cap: three directories' needles",
  );
});

Deno.test("search_code: a tree 1,500 directories deep neither overflows the stack nor stops at an unreadable part", async () => {
  await using ws = await makeWorkspace({});
  const DEPTH = 1_500;
  const chain = Array.from({ length: DEPTH }, () => "d").join("/");
  Deno.mkdirSync(`${ws.root}/${chain}`, { recursive: true });
  Deno.writeTextFileSync(`${ws.root}/${chain}/bottom.txt`, "needle at the bottom\n");
  Deno.writeTextFileSync(`${ws.root}/d/d/top.txt`, "needle near the top\n");
  // Unreadable ignore files on the way (a FIFO, a directory): per-entry errors, not the end.
  const middle = Array.from({ length: DEPTH / 2 }, () => "d").join("/");
  const made = await new Deno.Command("mkfifo", { args: [`${ws.root}/${middle}/.ignore`] })
    .output();
  assert.ok(made.success, "mkfifo");
  Deno.mkdirSync(`${ws.root}/d/d/d/.gitignore`);
  const found = await search(ws.root, { pattern: "needle" });
  assert.deepEqual(found.files.map((f) => f.path).sort(), [
    `${chain}/bottom.txt`,
    "d/d/top.txt",
  ]);
  assert.equal(found.truncated, false);
});

Deno.test("attack: a 50 MB single line is skipped and counted at the default cap, and searched whole, its line cut around the match, when the cap allows it", async () => {
  await using ws = await makeWorkspace({ "small.txt": "needle\n" });
  const line = new Uint8Array(50 * 1024 * 1024).fill(0x61); // "aaaa…", no newline
  line.set(new TextEncoder().encode("needle"), line.length - 6);
  Deno.writeFileSync(`${ws.root}/one-line.txt`, line);
  const capped = await search(ws.root, { pattern: "needle" });
  assert.deepEqual(capped.files.map((f) => f.path), ["small.txt"]);
  assert.equal(capped.skipped.too_large, 1);

  const env = { MCP_SEARCH__MAX_FILE_BYTES: String(64 * 1024 * 1024) };
  const whole = await search(ws.root, { pattern: "needle" }, env);
  assert.deepEqual(whole.files.map((f) => f.path), ["one-line.txt", "small.txt"]);
  const match = whole.files[0].matches![0] as { line: number; column: number; text: string };
  assert.equal(match.line, 1);
  assert.equal(match.column, line.length - 5);
  assert.ok(match.text.length <= 402 && match.text.includes("needle"), match.text.slice(0, 80));
});
