/**
 * The `devserver` permission set grants `write` (ADR-045: `setup --write`
 * and `conform --junit FILE` need it). These attacks prove that serving
 * never lets the grant reach untrusted input: the real `serve` (run with
 * the set's own flags, so the process starts with write granted, which is
 * checked first) drops write on the main thread before it reads a line, and
 * a tool worker asked to write through the real dispatcher finds it denied.
 */

import assert from "node:assert/strict";
import { devserverRunFlags } from "../../scripts/lib/program.ts";
import { makeWorkspace } from "../helpers/fixtures.ts";
import { META, RawServer } from "../e2e/support.ts";

const SERVE_HANG_WORKER = new URL("./fixtures/serve_hang_worker.ts", import.meta.url).pathname;

function permissionStates(line: string): Record<string, string> {
  return Object.fromEntries([...line.matchAll(/(\w+)=(\w+)/g)].map((m) => [m[1], m[2]]));
}

Deno.test("attack: with write in the permission set, a tool worker under the real serve tries to create, append, mkdir, remove and make temp files, and the main thread holds no write once serving", async () => {
  await using ws = await makeWorkspace({ "inside.txt": "INSIDE\n" });
  await using server = new RawServer(ws.root, { MCP_LOG__LEVEL: "debug" }, {
    args: ["run", ...devserverRunFlags(), SERVE_HANG_WORKER, ws.root],
  });
  // Control: the process was started holding write, so the drops below are what stops it.
  const start = await server.stderrLine(/serve-hang-worker: write at start=\w+/, 30_000);
  assert.match(start, /write at start=granted/, "the devserver set no longer grants write");
  const main = permissionStates(
    await server.stderrLine(/main thread permissions after start:/, 30_000),
  );
  assert.ok("write" in main, JSON.stringify(main));
  assert.notEqual(main.write, "granted", "the serving main thread still holds write");

  const id = server.nextId();
  await server.send({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "read_file", arguments: { path: "write" }, _meta: META },
  });
  const answer = JSON.stringify((await server.responseFor(id, 30_000)).result);
  const report = answer.match(/hang worker write: (\{.*?\}\})/);
  assert.ok(report, answer);
  const { state, attempts } = JSON.parse(report[1].replaceAll('\\"', '"'));
  assert.notEqual(state, "granted", "the tool worker holds write");
  for (const what of ["create", "append", "mkdir", "remove", "tmp"]) {
    assert.equal(attempts[what], "NotCapable", `${what}: ${attempts[what]}`);
  }
  await server.closeStdin();
  assert.equal((await server.exit(15_000)).code, 0);
  // Nothing changed in the workspace.
  assert.equal(await Deno.readTextFile(ws.path("inside.txt")), "INSIDE\n");
  await assert.rejects(Deno.lstat(ws.path("worker-wrote.txt")), Deno.errors.NotFound);
  await assert.rejects(Deno.lstat(ws.path("worker-made")), Deno.errors.NotFound);
});
