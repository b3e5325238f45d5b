/**
 * `devserver setup` through the real program: `--write` creates VS Code's
 * file and the command in it really serves the workspace (tools/list over
 * stdio answers the seven tools); a file it cannot parse is refused, exit 2,
 * untouched; a printed configuration is exactly one JSON document on stdout.
 */

import assert from "node:assert/strict";
import { Connection } from "../../src/conform/connection.ts";
import { spawnTarget } from "../../src/conform/target.ts";
import { makeWorkspace } from "../helpers/fixtures.ts";
import { runProgram } from "../helpers/program.ts";
import { META } from "./support.ts";

Deno.test("setup vscode --write: creates .vscode/mcp.json whose command serves the workspace over stdio", async () => {
  await using ws = await makeWorkspace({ "README.md": "# hello\n" });
  const out = await runProgram(["--workspace", ws.root, "setup", "vscode", "--write"]);
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /^created .*\.vscode\/mcp\.json with the devserver server$/m);
  const doc = JSON.parse(await Deno.readTextFile(ws.path(".vscode/mcp.json")));
  const entry = doc.servers.devserver;
  assert.equal(entry.type, "stdio");
  assert.deepEqual(entry.args.slice(-3), ["--workspace", await Deno.realPath(ws.root), "serve"]);
  // Started from elsewhere, as an editor would: the command line stands on its own.
  const target = spawnTarget([entry.command, ...entry.args], "/");
  const connection = new Connection(target, { requestTimeoutMs: 30_000, stalledTimeoutMs: 30_000 });
  try {
    const reply = await connection.request("tools/list", { _meta: META });
    assert.equal(reply.kind, "response", target.stderr());
    const tools = (reply as { message: { result?: { tools?: unknown[] } } }).message.result?.tools;
    assert.equal(tools?.length, 7, JSON.stringify(reply));
  } finally {
    await connection.close().catch(() => {});
    await target.kill();
  }
  // Run again: nothing to change.
  const again = await runProgram(["--workspace", ws.root, "setup", "vscode", "--write"]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /already has this devserver server; not changed/);
});

Deno.test("setup --write: an unparseable client file is refused with one stderr line, exit 2, untouched", async () => {
  const broken = '{ "servers": { "mine": { "command": "x" }, }\n// unterminated';
  await using ws = await makeWorkspace({ ".vscode/mcp.json": broken });
  const out = await runProgram(["--workspace", ws.root, "setup", "vscode", "--write"]);
  assert.equal(out.code, 2);
  assert.equal(out.stdout, "");
  const lines = out.stderr.trim().split("\n");
  assert.equal(lines.length, 1, out.stderr);
  assert.match(lines[0], /^devserver: .*mcp\.json is not valid JSON .*it was not changed/);
  assert.equal(await Deno.readTextFile(ws.path(".vscode/mcp.json")), broken);
  assert.deepEqual((await Array.fromAsync(Deno.readDir(ws.path(".vscode")))).length, 1);
});

Deno.test("setup cursor (printed): stdout is one JSON document, the file it belongs in is on stderr; no client is exit 2", async () => {
  await using ws = await makeWorkspace();
  const out = await runProgram(["--workspace", ws.root, "setup", "cursor"]);
  assert.equal(out.code, 0, out.stderr);
  const doc = JSON.parse(out.stdout);
  assert.deepEqual(Object.keys(doc.mcpServers), ["devserver"]);
  assert.match(out.stderr, /\.cursor\/mcp\.json/);
  await assert.rejects(Deno.lstat(ws.path(".cursor")), Deno.errors.NotFound);
  const none = await runProgram(["setup"]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /setup needs a client: one of vscode, claude-desktop, claude-code/);
});
