/**
 * Red team of ADR-098 (a read-cache hit opens nothing, confirmed by
 * resolution's `lstat` and the file's whole identity) and ADR-099 (a plain
 * walk is its own record), as an attacker who controls the workspace's files
 * and changes them between two reads a worker's cache would answer. Each
 * case warms the cache on a quiet file first, then attacks, then checks that
 * what comes back is the bytes of the file the path leads to *now*, inside
 * the workspace and allowed, never the cached bytes of what was there before
 * and never a denied file's under its denied name. Cases not covered by
 * `read_cache_test.ts`: a hard link to a file outside or to a denied file put
 * in the cached file's place with its size and mtime (`touch -r`), a denied
 * file renamed over the cached path, a folder on the path swapped for a link
 * to outside or for a link to a folder holding the same inode, a FIFO, a
 * unix socket and a device at the path, spellings that differ by case, a
 * trailing slash or dot, and `..` taken through a symlinked parent.
 */

import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { REFUSAL_META_KEY } from "../../src/contract/envelope.ts";
import { QUIET_MS } from "../../src/access/workspace.ts";
import { cachedConformingResult } from "../../src/protocol/shape.ts";
import { findTool, TOOLS } from "../../src/tools/registry.ts";
import { runTool } from "../../src/tools/runtime.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { directContext, makeWorkspace, type TempWorkspace, textOf } from "../helpers/fixtures.ts";

/** Every fixture has this many bytes, so a swap keeps the size the cache saw. */
const LINES = "cached line one\ncached line two\n";
const same = (tag: string) => {
  const text = `${tag}:`.padEnd(LINES.length - 1, "x") + "\n";
  assert.equal(text.length, LINES.length);
  return text;
};
const OUT = same("OUTSIDE-BYTES");
const DENIED = same("DENIED-ENV-BYTES");

const ws: TempWorkspace = await makeWorkspace({
  "hl_out.txt": LINES,
  "hl_env.txt": LINES,
  "env_over.txt": LINES,
  "pd/a.txt": LINES,
  "pi/a.txt": LINES,
  "fifo.txt": LINES,
  "sock.txt": LINES,
  "dev.txt": LINES,
  "case.txt": LINES,
  "x.txt": same("ROOT-X"),
  "deep/x.txt": same("DEEP-X"),
  "deep/inner/keep.txt": LINES,
  "deep/.env": DENIED,
  "plain/a/b/c.txt": LINES,
});
Deno.writeTextFileSync(ws.outside + "/same.txt", OUT);
Deno.writeTextFileSync(ws.outside + "/a.txt", OUT);
Deno.writeTextFileSync(ws.path(".env"), DENIED);
Deno.writeTextFileSync(ws.path("spare.env"), DENIED);
Deno.symlinkSync("deep/inner", ws.path("lnk"));
// Old enough to be kept (Deno reports ctime in whole seconds, hence the extra second).
await new Promise((resolve) => setTimeout(resolve, QUIET_MS + 1100));
globalThis.addEventListener("unload", () => Deno.removeSync(ws.root + "/..", { recursive: true }));

const readTool = findTool("read_file")!;

async function read(ctx: ToolContext, args: Record<string, unknown>): Promise<CallToolResult> {
  const raw = await runTool(TOOLS, "read_file", args, ctx);
  if (raw.kind === "invalid_params") throw new Error(raw.message);
  return cachedConformingResult(readTool, raw, { redactSecrets: true }, ctx.readCache);
}

function structured(
  result: CallToolResult,
): { content: string; path: string; hard_links?: number } {
  assert.ok(!result.isError, textOf(result));
  return result.structuredContent as { content: string; path: string; hard_links?: number };
}

function refusalOf(result: CallToolResult): string {
  assert.equal(result.isError, true, textOf(result));
  return (result._meta as Record<string, { error: string }>)[REFUSAL_META_KEY]?.error ??
    textOf(result);
}

/** Reads `path` until the cache answers it, so the next read would be a hit if nothing changed. */
async function warm(ctx: ToolContext, path: string): Promise<void> {
  const before = ctx.readCache!.stats.hits;
  for (let i = 0; i < 4 && ctx.readCache!.stats.hits === before; i++) {
    assert.equal(structured(await read(ctx, { path })).content, LINES);
  }
  assert.ok(ctx.readCache!.stats.hits > before, `${path} was never answered from the cache`);
}

/** Sets `path`'s times to `like`'s (what `touch -r` does), without following a link. */
function touchLike(path: string, like: Deno.FileInfo): void {
  Deno.utimeSync(path, like.atime!, like.mtime!);
}

Deno.test("read cache, attack: the cached file replaced by a hard link to a file outside, with its size and mtime (touch -r), is answered with that file's bytes as any read is (row 6, flagged), never the cached ones", async () => {
  const ctx = directContext(ws.root);
  await warm(ctx, "hl_out.txt");
  const old = Deno.lstatSync(ws.path("hl_out.txt"));
  Deno.removeSync(ws.path("hl_out.txt"));
  Deno.linkSync(ws.outside + "/same.txt", ws.path("hl_out.txt"));
  touchLike(ws.path("hl_out.txt"), old);
  const now = Deno.lstatSync(ws.path("hl_out.txt"));
  assert.equal(now.size, old.size);
  assert.equal(now.mtime!.getTime(), old.mtime!.getTime());
  assert.ok(now.ctime!.getTime() >= old.ctime!.getTime(), "link and utime move ctime forward");
  const s = structured(await read(ctx, { path: "hl_out.txt" }));
  assert.equal(s.content, OUT, "the file the name leads to now");
  assert.equal(s.hard_links, 2, "flagged as reachable by another name");
  // And again once the link is quiet: a hit then must be of the new inode's bytes.
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS + 1100));
  for (let i = 0; i < 3; i++) {
    assert.equal(structured(await read(ctx, { path: "hl_out.txt" })).content, OUT);
  }
});

Deno.test("read cache, attack: the cached file replaced by a hard link to a denied .env with its size and mtime is never answered with the cached bytes, is flagged, and .env itself stays denied", async () => {
  const ctx = directContext(ws.root);
  await warm(ctx, "hl_env.txt");
  const old = Deno.lstatSync(ws.path("hl_env.txt"));
  Deno.removeSync(ws.path("hl_env.txt"));
  Deno.linkSync(ws.path(".env"), ws.path("hl_env.txt"));
  touchLike(ws.path("hl_env.txt"), old);
  const s = structured(await read(ctx, { path: "hl_env.txt" }));
  assert.notEqual(s.content, LINES, "a stale answer from the cache");
  // A hard link under an innocent name is served, flagged (THREAT-MODEL row 6, accepted).
  assert.equal(s.content, DENIED);
  assert.equal(s.hard_links, 2);
  assert.equal(refusalOf(await read(ctx, { path: ".env" })), "denied_path");
  Deno.removeSync(ws.path("hl_env.txt"));
});

Deno.test("read cache, attack: a denied file renamed over the cached path is read afresh (rename moves its ctime), and its old name stays denied", async () => {
  const ctx = directContext(ws.root);
  await warm(ctx, "env_over.txt");
  const old = Deno.lstatSync(ws.path("env_over.txt"));
  touchLike(ws.path("spare.env"), old);
  Deno.renameSync(ws.path("spare.env"), ws.path("env_over.txt"));
  assert.equal(structured(await read(ctx, { path: "env_over.txt" })).content, DENIED);
  assert.equal(refusalOf(await read(ctx, { path: "spare.env" })), "denied_path");
});

Deno.test("read cache, attack: a folder on the cached path swapped for a link to outside (holding a file of the same name and size) is refused, never answered from the cache", async () => {
  const ctx = directContext(ws.root);
  await warm(ctx, "pd/a.txt");
  Deno.renameSync(ws.path("pd"), ws.path("pd.orig"));
  Deno.symlinkSync(ws.outside, ws.path("pd"));
  const result = await read(ctx, { path: "pd/a.txt" });
  assert.equal(refusalOf(result), "outside_workspace");
  assert.ok(!JSON.stringify(result).includes("OUTSIDE-BYTES"));
  assert.ok(!JSON.stringify(result).includes("cached line"));
  // Swapped back: the same inode, the same identity, a hit again.
  Deno.removeSync(ws.path("pd"));
  Deno.renameSync(ws.path("pd.orig"), ws.path("pd"));
  assert.equal(structured(await read(ctx, { path: "pd/a.txt" })).content, LINES);
});

Deno.test("read cache, attack: a folder on the cached path swapped for a link to another folder holding the very same inode is answered under the path it resolves to, not from the old path's entry", async () => {
  const ctx = directContext(ws.root);
  await warm(ctx, "pi/a.txt");
  Deno.mkdirSync(ws.path("pi2"));
  Deno.linkSync(ws.path("pi/a.txt"), ws.path("pi2/a.txt"));
  Deno.removeSync(ws.path("pi/a.txt"));
  Deno.removeSync(ws.path("pi"));
  Deno.symlinkSync("pi2", ws.path("pi"));
  const hits = ctx.readCache!.stats.hits;
  const s = structured(await read(ctx, { path: "pi/a.txt" }));
  assert.equal(s.path, "pi2/a.txt", "the path as resolved now");
  assert.equal(s.content, LINES);
  assert.equal(ctx.readCache!.stats.hits, hits, "the old path's entry did not answer");
});

Deno.test("read cache, attack: a FIFO, a listening unix socket and a device put at a cached path are refused without blocking, never answered from the cache", async () => {
  const ctx = directContext(ws.root);
  for (const path of ["fifo.txt", "sock.txt", "dev.txt"]) await warm(ctx, path);
  Deno.removeSync(ws.path("fifo.txt"));
  assert.ok((await new Deno.Command("mkfifo", { args: [ws.path("fifo.txt")] }).output()).success);
  Deno.removeSync(ws.path("sock.txt"));
  // The suite grants no unix-socket net access: a child with every permission listens there
  // until its stdin closes (deno eval runs with all of them).
  const listening = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `const l = Deno.listen({ transport: "unix", path: ${JSON.stringify(ws.path("sock.txt"))} });
       console.log("ready");
       for await (const _ of Deno.stdin.readable) { /* until closed */ }
       l.close();`,
    ],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const output = listening.stdout.getReader();
  const ready = await output.read();
  assert.match(new TextDecoder().decode(ready.value), /ready/, "the socket's listener started");
  assert.ok(Deno.lstatSync(ws.path("sock.txt")).isSocket, "a socket is at the path");
  Deno.removeSync(ws.path("dev.txt"));
  // A real character device (/dev/zero's numbers) needs mknod; else a link to one.
  const mknod = await new Deno.Command("mknod", {
    args: [ws.path("dev.txt"), "c", "1", "5"],
    stderr: "null",
  }).output().catch(() => ({ success: false }));
  if (!mknod.success) Deno.symlinkSync("/dev/zero", ws.path("dev.txt"));
  try {
    for (const path of ["fifo.txt", "sock.txt", "dev.txt"]) {
      const started = performance.now();
      const result = await read(ctx, { path });
      const code = refusalOf(result);
      const expected = path === "dev.txt" && !mknod.success
        ? /symlink_not_followed|outside_workspace/
        : /special_file/;
      assert.match(code, expected, path);
      assert.ok(!JSON.stringify(result).includes("cached line"), `${path}: a stale answer`);
      assert.ok(performance.now() - started < 2000, `${path}: blocked`);
    }
  } finally {
    await listening.stdin.close();
    await output.cancel();
    await listening.status;
  }
});

Deno.test("read cache, attack: spellings of a cached or denied path that differ by case, a trailing slash or dot, or ./ never reach another file's entry or a denied file", async () => {
  const ctx = directContext(ws.root);
  await warm(ctx, "case.txt");
  Deno.writeTextFileSync(ws.path("CASE.txt"), same("UPPER"));
  for (const path of [".env", ".ENV", ".Env", ".env/", ".env/.", "./.env", ".env.", "deep/.ENV"]) {
    assert.equal(refusalOf(await read(ctx, { path })), "denied_path", path);
  }
  // Another file by case on a case-sensitive filesystem: its own bytes, not case.txt's entry.
  assert.equal(structured(await read(ctx, { path: "CASE.txt" })).content, same("UPPER"));
  // The same file spelled with ./ or a trailing slash or dot: its own bytes, its own path.
  for (const path of ["./case.txt", "case.txt/", "case.txt/.", "./case.txt/"]) {
    const result = await read(ctx, { path });
    if (result.isError) continue; // a spelling refused outright is fine too
    const s = structured(result);
    assert.equal(s.path, "case.txt", path);
    assert.equal(s.content, LINES, path);
  }
});

Deno.test("read cache, attack: .. taken through a symlinked parent is physical: lnk/../x.txt is deep/x.txt, never the cached root x.txt, and lnk/../.env is denied", async () => {
  const ctx = directContext(ws.root);
  for (let i = 0; i < 3; i++) await read(ctx, { path: "x.txt" });
  for (let i = 0; i < 3; i++) await read(ctx, { path: "deep/x.txt" });
  const hits = ctx.readCache!.stats.hits;
  assert.ok(hits > 0);
  for (let i = 0; i < 3; i++) {
    const s = structured(await read(ctx, { path: "lnk/../x.txt" }));
    assert.equal(s.path, "deep/x.txt");
    assert.equal(s.content, same("DEEP-X"));
  }
  assert.equal(structured(await read(ctx, { path: "x.txt" })).content, same("ROOT-X"));
  for (const path of ["lnk/../.env", "lnk/../../.env", "lnk/keep.txt/../../.env"]) {
    const code = refusalOf(await read(ctx, { path }));
    assert.match(code, /denied_path|not_a_directory/, path);
  }
});

Deno.test("resolution's own record (ADR-099), attack: a folder on a plain path swapped for a link to outside after a cached read and back again between calls never lets a call answer outside bytes", async () => {
  const ctx = directContext(ws.root);
  await warm(ctx, "plain/a/b/c.txt");
  Deno.writeTextFileSync(ws.outside + "/c.txt", OUT);
  for (const folder of ["plain", "plain/a", "plain/a/b"]) {
    Deno.renameSync(ws.path(folder), ws.path(folder + ".orig"));
    Deno.symlinkSync(ws.outside, ws.path(folder));
    const result = await read(ctx, { path: "plain/a/b/c.txt" });
    assert.ok(result.isError, `${folder}: answered`);
    assert.ok(!JSON.stringify(result).includes("OUTSIDE-BYTES"), folder);
    assert.ok(!JSON.stringify(result).includes("cached line"), `${folder}: a stale answer`);
    Deno.removeSync(ws.path(folder));
    Deno.renameSync(ws.path(folder + ".orig"), ws.path(folder));
    assert.equal(structured(await read(ctx, { path: "plain/a/b/c.txt" })).content, LINES, folder);
  }
});
