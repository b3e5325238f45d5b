/**
 * Attacks that point the whole server at a denied place: a workspace that is
 * itself `.git`, `.ssh`, `.aws`, `~/.config/gcloud`, or lies inside one,
 * would serve every file in it (`.git/config` with its tokens). Start-up
 * refuses it — in loadConfig, through the real CLI, and in `doctor` — in
 * every environment, on the path as given and as resolved.
 */

import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../src/config/load.ts";
import { makeWorkspace } from "../helpers/fixtures.ts";
import { runProgram } from "../helpers/program.ts";

const TOKEN = "ghp_" + "A".repeat(36);

function deniedPlaces() {
  return makeWorkspace({
    ".git/config": `[remote "origin"]\n\turl = https://${TOKEN}@github.com/o/r\n`,
    ".git/refs/heads/main": "0000\n",
    ".ssh/id_ed25519": "KEY\n",
    ".AWS/credentials": "KEY\n",
    ".config/gcloud/credentials.db": "KEY\n",
    "vault/notes.txt": "x\n",
    "src/app.ts": "ok\n",
    "gitdir": { symlink: ".git" },
  });
}

function refusedToLoad(env: Record<string, string>, workspace: string, cwd: string): string {
  try {
    loadConfig(env, { workspaceFlag: workspace, cwd });
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    assert.ok(!error.message.includes("\n"), error.message);
    return error.message;
  }
  assert.fail(`the workspace ${workspace} was accepted`);
}

Deno.test("attack: a workspace that is a denied place (.git, .git/refs, .ssh, .AWS, .config/gcloud) is refused at config load, in both environments", async () => {
  await using ws = await deniedPlaces();
  for (const environment of ["development", "production"]) {
    for (
      const [workspace, place] of [
        [".git", ".git"],
        [".git/refs", ".git"],
        [".git/refs/heads", ".git"],
        [".ssh", ".ssh"],
        [".AWS", ".AWS"],
        [".config/gcloud", "gcloud"],
        [ws.path(".git"), ".git"],
      ]
    ) {
      const message = refusedToLoad({ MCP_ENVIRONMENT: environment }, workspace, ws.root);
      assert.match(message, /^the workspace from --workspace is or lies in a denied place /);
      assert.ok(message.includes(`"${place}"`), message);
      assert.ok(!message.includes(TOKEN));
    }
  }
  // Reached through an innocently named link: the resolved path is checked too.
  assert.match(refusedToLoad({}, "gitdir", ws.root), /denied place \("\.git"/);
  // Operator additions count as well.
  assert.match(refusedToLoad({ MCP_SANDBOX__DENY_EXTRA: "vault" }, "vault", ws.root), /"vault"/);
  // The repository around them is fine, and so is a harmless folder in it.
  assert.equal(loadConfig({}, { workspaceFlag: ws.root, cwd: ws.root }).workspaceName, "ws");
  assert.equal(loadConfig({}, { workspaceFlag: "src", cwd: ws.root }).workspaceName, "src");
  assert.equal(loadConfig({}, { workspaceFlag: ".config", cwd: ws.root }).workspaceName, ".config");
});

Deno.test("attack: devserver --workspace repo/.git serve exits 2 with one clear line and serves nothing", async () => {
  await using ws = await deniedPlaces();
  const [git, prod, ssh] = await Promise.all([
    runProgram(["--workspace", ws.path(".git"), "serve"]),
    runProgram(["--workspace", ws.path(".git"), "serve"], {
      env: { MCP_ENVIRONMENT: "production" },
    }),
    runProgram(["--workspace", ws.path(".ssh"), "call", "read_file", '{"path":"id_ed25519"}']),
  ]);
  for (const run of [git, prod, ssh]) {
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stdout, "");
    const lines = run.stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, run.stderr);
    assert.match(
      lines[0],
      /^devserver: the workspace from --workspace is or lies in a denied place/,
    );
    assert.ok(!run.stderr.includes(TOKEN) && !run.stderr.includes("KEY"));
  }
});

Deno.test("attack: doctor on a workspace inside .git reports FAIL and cannot serve (exit 1)", async () => {
  await using ws = await deniedPlaces();
  const run = await runProgram(["--workspace", ws.path(".git/refs"), "doctor"]);
  assert.equal(run.code, 1, run.stdout + run.stderr);
  assert.match(run.stdout, /^FAIL {2}configuration: the workspace .* denied place \("\.git"/m);
  assert.match(run.stdout, /^cannot serve$/m);
  assert.ok(!run.stdout.includes(TOKEN));
});
