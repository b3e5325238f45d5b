/**
 * Resolution records the directories on a path as its walk examines them
 * (ADR-099): on a path through real directories only, the walk's own `lstat`s
 * are the record the swap confirmation checks against, instead of a second
 * look-up from the root; a path through a link or a `..` is looked up again
 * as before. Each case checks the record against what `lstat` gives for each
 * real directory, and the attack a wrong record would let through: a folder
 * on the path swapped for a link to outside after resolution.
 */

import assert from "node:assert/strict";
import { ToolRefusal } from "../../src/contract/refusal.ts";
import { directContext, makeWorkspace } from "../helpers/fixtures.ts";

/** The (path, dev, ino) of the root and each real directory down to `relativeDir`. */
function chainOf(root: string, relativeDir: string) {
  const paths = [root];
  for (const name of relativeDir.split("/").filter((n) => n !== "")) {
    paths.push(paths.at(-1) + "/" + name);
  }
  return paths.map((path) => {
    const info = Deno.lstatSync(path);
    return { path, dev: info.dev, ino: info.ino };
  });
}

Deno.test("resolve: a plain path's record is the root and each directory on it, and the file's own lstat", async () => {
  await using ws = await makeWorkspace({ "a/b/c.txt": "x\n", "top.txt": "y\n" });
  const { workspace } = directContext(ws.root);
  const before = Date.now();
  const deep = workspace.resolve("a/b/c.txt");
  assert.deepEqual(deep.ancestors, chainOf(ws.root, "a/b"));
  const info = Deno.lstatSync(ws.path("a/b/c.txt"));
  assert.equal(deep.info.ino, info.ino);
  assert.equal(deep.info.isFile, true);
  assert.ok(deep.pinnedAt >= before && deep.pinnedAt <= Date.now());
  assert.deepEqual(workspace.resolve("top.txt").ancestors, chainOf(ws.root, ""));
  assert.deepEqual(workspace.resolve("").ancestors, [], "the root itself has none above it");
  assert.equal(workspace.resolve("a").info.isDirectory, true);
});

Deno.test("resolve: a path through an inside link or a `..` records the real directories it leads through", async () => {
  await using ws = await makeWorkspace({
    "real/deep/f.txt": "x\n",
    "via": { symlink: "real/deep" },
  });
  const { workspace } = directContext(ws.root, { MCP_SANDBOX__FOLLOW_SYMLINKS: "true" });
  const linked = workspace.resolve("via/f.txt");
  assert.equal(linked.absolute, ws.path("real/deep/f.txt"));
  assert.deepEqual(linked.ancestors, chainOf(ws.root, "real/deep"));
  const climbed = workspace.resolve("real/deep/../deep/f.txt");
  assert.deepEqual(climbed.ancestors, chainOf(ws.root, "real/deep"));
});

Deno.test("resolve, attack: a folder on a plain path swapped for a link to outside after resolution is refused by the read, the outside file never read", async () => {
  await using ws = await makeWorkspace({ "sub/secret.txt": "INSIDE\n" });
  await Deno.writeTextFile(ws.outside + "/secret.txt", "OUTSIDE-SECRET\n");
  const { workspace } = directContext(ws.root);
  const target = workspace.resolve("sub/secret.txt");
  await Deno.rename(ws.path("sub"), ws.path("sub.orig"));
  await Deno.symlink(ws.outside, ws.path("sub"));
  try {
    const read = workspace.readRegularFileSync(target, 1_000_000);
    assert.fail(`read: ${new TextDecoder().decode(read.bytes)}`);
  } catch (error) {
    assert.ok(error instanceof ToolRefusal, String(error));
    assert.equal(error.code, "unreadable");
  }
});
