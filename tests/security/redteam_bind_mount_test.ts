/**
 * Red team of the read cache (ADR-081, ADR-098) against a bind mount: a
 * folder of the workspace that is another place of the filesystem mounted
 * there (a second workspace, or a folder outside), so one inode has two
 * paths and is changed through the other one. Containment cannot see a bind
 * mount (the path is real, no link to resolve, the same device; THREAT-MODEL
 * row 38), so what must hold is that of any read: the answer is the bytes
 * the file holds now, never the cache's, after a same-size rewrite with the
 * mtime set back through the other path. Needs a private mount namespace
 * (`unshare -m`, root or user namespaces); skipped, and says so, without one.
 */

import assert from "node:assert/strict";
import { QUIET_MS } from "../../src/access/workspace.ts";
import { makeWorkspace } from "../helpers/fixtures.ts";

const LINES = "bound line one\nbound line two\n";

async function canUnshare(): Promise<boolean> {
  try {
    const out = await new Deno.Command("unshare", {
      args: ["-m", "true"],
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}

Deno.test("read cache, attack: a file in a bind-mounted folder rewritten through its other path (same size, mtime set back) is answered with its new bytes, never the cached ones", async () => {
  if (!(await canUnshare())) {
    console.log("no private mount namespace here (unshare -m): skipped");
    return;
  }
  await using ws = await makeWorkspace({ "mnt/.keep": "" });
  const other = ws.outside + "/other-workspace";
  Deno.mkdirSync(other);
  Deno.writeTextFileSync(other + "/f.txt", LINES);
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS + 1100));
  const forged = LINES.replace("one", "ONE");
  // The child, in its own mount namespace: the other workspace bound at mnt, the file read
  // until the cache answers it, rewritten through the other path, read again.
  const script = `
    import { callDirect, directContext } from ${
    JSON.stringify(new URL("../helpers/fixtures.ts", import.meta.url).href)
  };
    const ctx = directContext(${JSON.stringify(ws.root)});
    const read = async () => {
      const r = await callDirect(ctx, "read_file", { path: "mnt/f.txt" });
      return r.structuredContent?.content ?? JSON.stringify(r);
    };
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push(await read());
    const hits = ctx.readCache.stats.hits;
    const path = ${JSON.stringify(other + "/f.txt")};
    const old = Deno.statSync(path);
    Deno.writeTextFileSync(path, ${JSON.stringify(forged)});
    Deno.utimeSync(path, old.atime, old.mtime);
    seen.push(await read());
    console.log(JSON.stringify({ seen, hits }));
  `;
  const file = ws.outside + "/child.ts";
  Deno.writeTextFileSync(file, script);
  const config = new URL("../../deno.json", import.meta.url).pathname;
  const out = await new Deno.Command("unshare", {
    args: [
      "-m",
      "sh",
      "-c",
      `mount --bind "$1" "$2" && exec "$3" run -q -A --config "$4" "$5"`,
      "sh",
      other,
      ws.path("mnt"),
      Deno.execPath(),
      config,
      file,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  if (!out.success && /mount/i.test(stderr) && !/error:/i.test(stderr)) {
    console.log(`bind mount refused here: skipped (${stderr.trim()})`);
    return;
  }
  assert.ok(out.success, stderr);
  const { seen, hits } = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").pop()!);
  // Served as any file under the root is (row 38: containment cannot see the mount).
  assert.deepEqual(seen.slice(0, 3), [LINES, LINES, LINES]);
  assert.ok(hits > 0, "the cache answered the bound file before the rewrite");
  assert.equal(seen[3], forged, "a stale answer from the cache");
});
