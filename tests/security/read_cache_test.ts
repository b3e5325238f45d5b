/**
 * The tool worker's cache of processed reads (ADR-081): a quiet file read
 * again under the same name and range is answered from what the worker made
 * of it before, fenced afresh. Each case names the attack on that: a file
 * rewritten with the same size and its mtime set back, a file replaced by
 * rename, a file swapped for a symlink to outside, a denied name for the
 * cached inode (a hard link, a rename), a nonce shared between answers, a
 * file changed within the clock tick its ctime records; and checks the
 * cached answer is the fresh one but for the nonce, the byte bound and the
 * off switch. Files are made old enough to be kept (`QUIET_MS` + 1 s) once,
 * before the cases run.
 */

import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { REFUSAL_META_KEY } from "../../src/contract/envelope.ts";
import { fakeSecret } from "../../src/secrets/rule.ts";
import { QUIET_MS } from "../../src/access/workspace.ts";
import { ToolRefusal } from "../../src/contract/refusal.ts";
import { cachedConformingResult } from "../../src/protocol/shape.ts";
import { findTool } from "../../src/tools/registry.ts";
import { ReadCache } from "../../src/tools/read_cache.ts";
import { runTool } from "../../src/tools/runtime.ts";
import { TOOLS } from "../../src/tools/registry.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import {
  directContext,
  makeWorkspace,
  startServer,
  type TempWorkspace,
  textOf,
} from "../helpers/fixtures.ts";

const TOKEN = "ghp_" + fakeSecret("readcache", 36);
const LINES = "first line of the file\nsecond line\n";

const ws: TempWorkspace = await makeWorkspace({
  "same_size.txt": LINES,
  "renamed.txt": LINES,
  "linked.txt": LINES,
  "hard.txt": LINES,
  "moved.txt": LINES,
  "nonce.txt": "ordinary text\n".repeat(20),
  "secret.md": `token = ${TOKEN}\nplain line\n`,
  ...Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [`bound/${i}.txt`, `${i}`.repeat(2000) + "\n"]),
  ),
  "e2e.txt": LINES,
  "hit_fifo.txt": LINES,
  "hit_other.txt": LINES,
  "hit_planted.txt": "PLANTED\n",
  "hit_linked.txt": LINES,
  "hitdir/secret.txt": "INSIDE\n",
  "hit_control.txt": LINES,
  "hit_rewritten.txt": LINES,
});
// Old enough that their ctime says no change can hide in its clock tick (Deno reports it in
// whole seconds, hence the extra second).
await new Promise((resolve) => setTimeout(resolve, QUIET_MS + 1100));
globalThis.addEventListener("unload", () => Deno.removeSync(ws.root + "/..", { recursive: true }));

const readTool = findTool("read_file")!;

/** One call as the tool worker makes it: the handler, then the shaping the cache may reuse. */
async function read(ctx: ToolContext, args: Record<string, unknown>): Promise<CallToolResult> {
  const raw = await runTool(TOOLS, "read_file", args, ctx);
  assert.notEqual(raw.kind, "invalid_params");
  if (raw.kind === "invalid_params") throw new Error("unreachable");
  return cachedConformingResult(readTool, raw, { redactSecrets: true }, ctx.readCache);
}

function nonceOf(result: CallToolResult): string {
  const match = /<untrusted-file-content id=([0-9a-f]{32})>/.exec(textOf(result));
  assert.ok(match, textOf(result));
  return match[1];
}

function contentOf(result: CallToolResult): string {
  assert.ok(!result.isError, textOf(result));
  return (result.structuredContent as { content: string }).content;
}

function refusalOf(result: CallToolResult): string {
  assert.equal(result.isError, true, textOf(result));
  return (result._meta as Record<string, { error: string }>)[REFUSAL_META_KEY]?.error ??
    textOf(result);
}

/** Reads `path` until the cache answers (the second miss keeps it, the third call hits). */
async function cached(ctx: ToolContext, path: string): Promise<CallToolResult> {
  const before = ctx.readCache!.stats.hits;
  let result = await read(ctx, { path });
  for (let i = 0; i < 3 && ctx.readCache!.stats.hits === before; i++) {
    result = await read(ctx, { path });
  }
  assert.ok(ctx.readCache!.stats.hits > before, `${path} was never answered from the cache`);
  return result;
}

Deno.test("read cache, attack: a file rewritten with the same size and its mtime set back (Deno.utime) is read again", async () => {
  const ctx = directContext(ws.root);
  const path = ws.path("same_size.txt");
  const old = await Deno.stat(path);
  assert.equal(contentOf(await cached(ctx, "same_size.txt")), LINES);
  const forged = LINES.replace("first", "FORGE");
  assert.equal(forged.length, LINES.length);
  await Deno.writeTextFile(path, forged);
  await Deno.utime(path, old.atime!, old.mtime!);
  const now = await Deno.stat(path);
  assert.equal(now.size, old.size);
  assert.equal(now.mtime!.getTime(), old.mtime!.getTime(), "the mtime was set back");
  assert.equal(contentOf(await read(ctx, { path: "same_size.txt" })), forged);
  // Once the rewrite is old enough to be kept too, only its ctime tells it from the kept one.
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS + 1100));
  assert.equal(contentOf(await read(ctx, { path: "same_size.txt" })), forged);
  assert.equal(contentOf(await cached(ctx, "same_size.txt")), forged);
});

Deno.test("read cache, attack: a file replaced by rename (another inode, same size, same mtime) is read again", async () => {
  const ctx = directContext(ws.root);
  const path = ws.path("renamed.txt");
  const old = await Deno.stat(path);
  assert.equal(contentOf(await cached(ctx, "renamed.txt")), LINES);
  const forged = LINES.replace("second", "SWAPPD");
  await Deno.writeTextFile(ws.path("renamed.tmp"), forged);
  await Deno.utime(ws.path("renamed.tmp"), old.atime!, old.mtime!);
  await Deno.rename(ws.path("renamed.tmp"), path);
  assert.equal(contentOf(await read(ctx, { path: "renamed.txt" })), forged);
});

Deno.test("read cache, attack: a cached file swapped for a symlink to outside is refused, never answered from the cache", async () => {
  const ctx = directContext(ws.root);
  await cached(ctx, "linked.txt");
  await Deno.remove(ws.path("linked.txt"));
  await Deno.symlink(ws.outside + "/secret.txt", ws.path("linked.txt"));
  const result = await read(ctx, { path: "linked.txt" });
  assert.match(refusalOf(result), /symlink_not_followed|outside_workspace/);
  assert.ok(!JSON.stringify(result).includes("OUTSIDE-SECRET"));
  assert.ok(!JSON.stringify(result).includes("first line"));
});

Deno.test("read cache, attack: a denied name for a cached inode (a hard link, a rename to .env) is refused", async () => {
  const ctx = directContext(ws.root);
  await cached(ctx, "hard.txt");
  await Deno.link(ws.path("hard.txt"), ws.path(".env"));
  assert.equal(refusalOf(await read(ctx, { path: ".env" })), "denied_path");
  await Deno.remove(ws.path(".env"));
  await cached(ctx, "moved.txt");
  await Deno.rename(ws.path("moved.txt"), ws.path(".env"));
  assert.equal(refusalOf(await read(ctx, { path: ".env" })), "denied_path");
  assert.equal(refusalOf(await read(ctx, { path: "moved.txt" })), "not_found");
  await Deno.remove(ws.path(".env"));
});

Deno.test("read cache, attack: two answers never share a nonce, and each fences the content with its own", async () => {
  const ctx = directContext(ws.root);
  await cached(ctx, "nonce.txt");
  const hitsBefore = ctx.readCache!.stats.hits;
  const nonces = new Set<string>();
  for (let i = 0; i < 50; i++) {
    const result = await read(ctx, { path: "nonce.txt" });
    const nonce = nonceOf(result);
    const text = textOf(result);
    assert.equal(text.split(nonce).length, 3, "the nonce is in the two markers only");
    assert.ok(!contentOf(result).includes(nonce));
    nonces.add(nonce);
  }
  assert.equal(ctx.readCache!.stats.hits - hitsBefore, 50, "all 50 came from the cache");
  assert.equal(nonces.size, 50);
});

Deno.test("read cache: an answer from the cache is the fresh answer but for the nonce, redaction included", async () => {
  const ctx = directContext(ws.root);
  const off = directContext(ws.root, { MCP_SANDBOX__READ_CACHE_BYTES: "0" });
  assert.equal(off.readCache, undefined, "0 turns the cache off");
  for (const args of [{ path: "secret.md" }, { path: "secret.md", start_line: 2 }]) {
    const hit = await cached(ctx, args.path);
    const again = await read(ctx, args);
    const fresh = await read(off, args);
    const normal = (r: CallToolResult) => JSON.stringify(r).replaceAll(nonceOf(r), "NONCE");
    assert.equal(normal(again), normal(fresh), JSON.stringify(args));
    if (!("start_line" in args)) assert.equal(normal(hit), normal(fresh));
    assert.ok(!JSON.stringify(again).includes(TOKEN), "the secret stays redacted");
  }
});

Deno.test("read cache, attack: a file changed lately (its ctime's clock tick may hide a second change) is never kept", async () => {
  await using young = await makeWorkspace({ "young.txt": LINES });
  const ctx = directContext(young.root);
  for (let i = 0; i < 4; i++) await read(ctx, { path: "young.txt" });
  assert.equal(ctx.readCache!.stats.hits, 0);
  assert.equal(ctx.readCache!.stats.entries, 0);
  // Rewritten within the same second, same size, mtime set back: what a cache keyed on a
  // coarse ctime alone would miss.
  const stat = await Deno.stat(young.path("young.txt"));
  await Deno.writeTextFile(young.path("young.txt"), LINES.replace("first", "FORGE"));
  await Deno.utime(young.path("young.txt"), stat.atime!, stat.mtime!);
  assert.match(contentOf(await read(ctx, { path: "young.txt" })), /FORGE/);
});

Deno.test("read cache: the byte bound holds, least recently used out first", async () => {
  // What one entry costs: one file kept in a roomy cache.
  const roomy = new ReadCache(64 * 1024 * 1024);
  await cached({ ...directContext(ws.root), readCache: roomy }, "bound/0.txt");
  const entry = roomy.stats.bytes;
  assert.ok(entry > 0);
  // Room for eight such entries; ten files read twice each (the second read keeps one).
  const limit = Math.floor(8.5 * entry);
  const cache = new ReadCache(limit);
  const ctx = { ...directContext(ws.root), readCache: cache };
  for (let i = 0; i < 10; i++) {
    for (let k = 0; k < 2; k++) await read(ctx, { path: `bound/${i}.txt` });
  }
  assert.equal(cache.stats.entries, 8);
  assert.ok(cache.stats.bytes <= limit, `${cache.stats.bytes} bytes kept of ${limit}`);
  const hits = cache.stats.hits;
  await read(ctx, { path: "bound/9.txt" });
  assert.equal(cache.stats.hits, hits + 1, "the most recent is kept");
  await read(ctx, { path: "bound/0.txt" });
  assert.equal(cache.stats.hits, hits + 1, "the least recent went first");
  // An entry over an eighth of the bound is never kept.
  const tiny = new ReadCache(entry * 4);
  const small = { ...directContext(ws.root), readCache: tiny };
  for (let i = 0; i < 3; i++) await read(small, { path: "bound/1.txt" });
  assert.equal(tiny.stats.entries, 0);
  assert.equal(tiny.stats.bytes, 0);
});

Deno.test("read cache, attack through the real workers: a same-size rewrite with the mtime set back is answered with the new text, under a new nonce", async () => {
  using server = startServer(ws.root);
  const path = ws.path("e2e.txt");
  const old = await Deno.stat(path);
  const nonces = new Set<string>();
  // Enough calls that each of the pool's workers has kept the file.
  for (let i = 0; i < 8; i++) {
    const result = await server.dispatcher.call("read_file", { path: "e2e.txt" });
    assert.equal(contentOf(result), LINES);
    nonces.add(nonceOf(result));
  }
  const forged = LINES.replace("second", "FORGED");
  await Deno.writeTextFile(path, forged);
  await Deno.utime(path, old.atime!, old.mtime!);
  for (let i = 0; i < 4; i++) {
    const result = await server.dispatcher.call("read_file", { path: "e2e.txt" });
    assert.equal(contentOf(result), forged);
    nonces.add(nonceOf(result));
  }
  assert.equal(nonces.size, 12);
});

/**
 * A hit opens nothing (ADR-098): `reuse` answering "reuse" stands for a cache that holds the
 * identity resolution saw. The refusal code `fn` throws (it must throw a refusal).
 */
function refusedWith(what: string, fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ToolRefusal, `not a refusal: ${error}`);
    return error.code;
  }
  assert.fail(`${what}: answered from the cache instead of refused`);
}

Deno.test("read cache, attack: a cached file swapped after resolution (for a FIFO, another file, a link to outside) is refused, never answered from the cache without being opened", async () => {
  const { workspace } = directContext(ws.root);
  const swaps: [string, () => Promise<void>][] = [
    ["hit_fifo.txt", async () => {
      await Deno.remove(ws.path("hit_fifo.txt"));
      const made = await new Deno.Command("mkfifo", { args: [ws.path("hit_fifo.txt")] }).output();
      assert.ok(made.success);
    }],
    ["hit_other.txt", () => Deno.rename(ws.path("hit_planted.txt"), ws.path("hit_other.txt"))],
    ["hit_linked.txt", async () => {
      await Deno.remove(ws.path("hit_linked.txt"));
      await Deno.symlink(ws.outside + "/secret.txt", ws.path("hit_linked.txt"));
    }],
    ["hitdir/secret.txt", async () => {
      await Deno.rename(ws.path("hitdir"), ws.path("hitdir.orig"));
      await Deno.symlink(ws.outside, ws.path("hitdir"));
    }],
  ];
  for (const [path, swap] of swaps) {
    const target = workspace.resolve(path);
    const offered: string[] = [];
    await swap();
    const started = performance.now();
    const code = refusedWith(
      path,
      () =>
        workspace.readRegularFileSync(target, 1_000_000, (identity) => {
          offered.push(identity);
          return "reuse";
        }),
    );
    assert.equal(code, "unreadable", path);
    assert.equal(offered.length, 1, `${path}: the identity resolution saw was offered`);
    assert.ok(performance.now() - started < 2000, `${path}: nothing blocked`);
  }
});

Deno.test("read cache: the identity a hit is offered before any open is the one the opened handle gives, before and after the read", () => {
  const { workspace } = directContext(ws.root);
  const target = workspace.resolve("hit_control.txt");
  const info = Deno.lstatSync(ws.path("hit_control.txt"));
  const expected = [
    info.dev,
    info.ino,
    info.size,
    info.mtime!.getTime(),
    info.ctime!.getTime(),
    info.nlink,
  ]
    .join(":");
  let offered: string | undefined;
  const kept = workspace.readRegularFileSync(target, 1_000_000, (identity) => {
    offered = identity;
    return "keep";
  });
  assert.equal(offered, expected);
  assert.equal(kept.identity, expected, "the handle's fstat agreed, so the read may be kept");
  assert.equal(new TextDecoder().decode(kept.bytes), LINES);
  const reused = workspace.readRegularFileSync(target, 1_000_000, () => "reuse");
  assert.equal(reused.reused, true, "no swap: the hit is answered");
  assert.equal(reused.bytes.length, 0);
});

Deno.test("read cache, attack: a file rewritten in place between resolution and the open is read, but never kept under the identity resolution saw", async () => {
  const { workspace } = directContext(ws.root);
  const target = workspace.resolve("hit_rewritten.txt");
  let offered: string | undefined;
  // Same inode, so the handle passes the identity check of any read; its ctime moved.
  await Deno.writeTextFile(ws.path("hit_rewritten.txt"), LINES.replace("first", "AFTER"));
  const read = workspace.readRegularFileSync(target, 1_000_000, (identity) => {
    offered = identity;
    return "keep";
  });
  assert.ok(offered !== undefined, "the file was quiet when resolution saw it");
  assert.match(new TextDecoder().decode(read.bytes), /AFTER/);
  assert.equal(read.identity, undefined, "what was read is not what the offered identity names");
});
