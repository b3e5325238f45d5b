/**
 * Where the history comes from: a repository that keeps its git directory,
 * its shared directory or its objects outside the workspace is refused; so
 * is a workspace that is only a sub-folder of a larger repository; and the
 * environment of the server process (hostile `GIT_*` variables, `LD_PRELOAD`,
 * a `~/.gitconfig`) never reaches git. The last tests run the real program,
 * with the permission-scoped tool workers.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { callDirect, directContext, makeWorkspace } from "../helpers/fixtures.ts";
import { git, makeRepository, makeSmallHistory, shaped, structured } from "../helpers/git_repo.ts";
import { runProgram } from "../helpers/program.ts";
import { readRefusal, resultText } from "../helpers/results.ts";

/** A second repository outside the workspace whose history must never be served. */
async function outsideRepository(dir: string): Promise<string> {
  const repo = join(dir, "other");
  await Deno.mkdir(repo, { recursive: true });
  await git(repo, ["init", "-q", "-b", "main"]);
  await Deno.writeTextFile(join(repo, "s.txt"), "OUTSIDE-HISTORY-CONTENT\n");
  await git(repo, ["add", "-A"]);
  await git(repo, ["commit", "-q", "-m", "OUTSIDE-HISTORY-SUBJECT"]);
  return repo;
}

async function refusedEverywhere(root: string, code: string): Promise<void> {
  const ctx = directContext(root);
  for (
    const [tool, args] of [
      ["git_log", {}],
      ["git_diff", {}],
      ["git_diff", { revision: "HEAD" }],
      ["git_diff", { staged: true }],
    ] as const
  ) {
    const result = shaped(await callDirect(ctx, tool, args));
    readRefusal(result, code as never);
    assert.doesNotMatch(JSON.stringify(result), /OUTSIDE-HISTORY|\/tmp\//);
  }
}

Deno.test("attack: a .git file (gitdir: /elsewhere) points at a repository outside", async () => {
  await using ws = await makeWorkspace({ "a.txt": "inside\n" });
  const other = await outsideRepository(ws.outside);
  await Deno.writeTextFile(ws.path(".git"), `gitdir: ${other}/.git\n`);
  // Control: plain git follows it.
  assert.match(await git(ws.root, ["log", "--format=%s"]), /OUTSIDE-HISTORY-SUBJECT/);
  await refusedEverywhere(ws.root, "unsafe_repository");
});

Deno.test("attack: a .git symlink to a repository outside", async () => {
  await using ws = await makeWorkspace({ "a.txt": "inside\n" });
  const other = await outsideRepository(ws.outside);
  await Deno.symlink(join(other, ".git"), ws.path(".git"));
  assert.match(await git(ws.root, ["log", "--format=%s"]), /OUTSIDE-HISTORY-SUBJECT/);
  await refusedEverywhere(ws.root, "unsafe_repository");
});

Deno.test("attack: commondir points at an outside repository's git directory", async () => {
  await using repo = await makeSmallHistory();
  const other = await outsideRepository(repo.outside);
  await Deno.writeTextFile(repo.path(".git/commondir"), `${other}/.git\n`);
  await refusedEverywhere(repo.root, "unsafe_repository");
});

Deno.test("attack: objects/info/alternates borrows objects from outside", async () => {
  await using repo = await makeSmallHistory();
  const other = await outsideRepository(repo.outside);
  await Deno.writeTextFile(repo.path(".git/objects/info/alternates"), `${other}/.git/objects\n`);
  await refusedEverywhere(repo.root, "unsafe_repository");
  // Relative alternates that climb out are refused too.
  await Deno.writeTextFile(
    repo.path(".git/objects/info/alternates"),
    `# comment\n../../../outside/other/.git/objects\n`,
  );
  await refusedEverywhere(repo.root, "unsafe_repository");
});

Deno.test("attack: a link inside .git (refs, objects/pack) leads outside", async () => {
  await using repo = await makeSmallHistory();
  const other = await outsideRepository(repo.outside);
  await Deno.symlink(join(other, ".git/refs/heads"), repo.path(".git/refs/outside"));
  await refusedEverywhere(repo.root, "unsafe_repository");
});

Deno.test("attack: a workspace that is a sub-folder of a larger repository is not served", async () => {
  await using ws = await makeWorkspace({ "a.txt": "inside\n" });
  const base = join(ws.root, "..");
  await git(base, ["init", "-q", "-b", "main"]);
  await Deno.writeTextFile(join(base, "top.txt"), "x\n");
  await git(base, ["add", "-A"]);
  await git(base, ["commit", "-q", "-m", "OUTSIDE-HISTORY-SUBJECT enclosing"]);
  // Control: plain git run in the workspace finds the enclosing repository.
  assert.match(await git(ws.root, ["log", "--format=%s"]), /OUTSIDE-HISTORY-SUBJECT/);
  await refusedEverywhere(ws.root, "not_a_repository");
});

Deno.test("git: no repository at the root is not_a_repository; a .git file inside is followed", async () => {
  await using ws = await makeWorkspace({ "a.txt": "x\n" });
  await refusedEverywhere(ws.root, "not_a_repository");
  await using repo = await makeSmallHistory();
  await Deno.rename(repo.path(".git"), repo.path("real-git-dir"));
  await Deno.writeTextFile(repo.path(".git"), "gitdir: real-git-dir\n");
  const log = structured<{ commits: unknown[] }>(
    await callDirect(directContext(repo.root), "git_log", {}),
  );
  assert.equal(log.commits.length, 4);
});

/** The environment of a Deno child that keeps finding its module cache under another HOME. */
function denoDir(): string {
  return Deno.env.get("DENO_DIR") ??
    join(Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "/root", ".cache"), "deno");
}

Deno.test("attack: hostile GIT_*, LD_PRELOAD and ~/.gitconfig in the server's environment never reach git", async () => {
  await using repo = await makeRepository([
    { files: { "a.txt": "one\n" }, message: "inside first" },
    { files: { "a.txt": "one\ntwo\n" }, message: "inside second" },
  ]);
  const other = await outsideRepository(repo.outside);
  const marker = join(repo.outside, "MARKER");
  const evil = join(repo.outside, "evil.sh");
  await Deno.writeTextFile(evil, `#!/bin/sh\ntouch '${marker}'\n`);
  await Deno.chmod(evil, 0o755);
  const home = join(repo.outside, "home");
  await Deno.mkdir(home);
  const gitconfig = `[alias]\n\tlog = !${evil}\n\tdiff = !${evil}\n[core]\n\tpager = ${evil}\n` +
    `\tfsmonitor = ${evil}\n[filter "evil"]\n\tclean = ${evil}\n[diff]\n\texternal = ${evil}\n`;
  await Deno.writeTextFile(join(home, ".gitconfig"), gitconfig);
  // The workspace is git's HOME: a .gitconfig planted there is not read either.
  await Deno.writeTextFile(repo.path(".gitconfig"), gitconfig);
  await Deno.writeTextFile(repo.path(".gitattributes"), "* filter=evil\n");
  await Deno.writeTextFile(repo.path("a.txt"), "one\ntwo\ndirty\n");
  // Control: plain git with this HOME runs the global fsmonitor and filter.
  await git(repo.root, ["diff"], { HOME: home, GIT_CONFIG_GLOBAL: join(home, ".gitconfig") });
  assert.ok(await Deno.lstat(marker).then(() => true, () => false), "control fired");
  await Deno.remove(marker);

  const env = {
    HOME: home,
    DENO_DIR: denoDir(),
    GIT_DIR: join(other, ".git"),
    GIT_WORK_TREE: other,
    GIT_EXTERNAL_DIFF: evil,
    GIT_PAGER: evil,
    PAGER: evil,
    GIT_EDITOR: evil,
    GIT_SSH_COMMAND: evil,
    GIT_CONFIG_PARAMETERS: `'core.pager'='${evil}' 'core.fsmonitor'='${evil}'`,
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "core.fsmonitor",
    GIT_CONFIG_VALUE_0: evil,
    GIT_CONFIG_GLOBAL: join(home, ".gitconfig"),
    GIT_CONFIG_SYSTEM: join(home, ".gitconfig"),
    GIT_ALTERNATE_OBJECT_DIRECTORIES: join(other, ".git/objects"),
    LD_PRELOAD: join(repo.outside, "missing-preload.so"),
  };
  const log = await runProgram(["--workspace", repo.root, "call", "git_log", "{}", "--json"], {
    env,
  });
  assert.equal(log.code, 0, log.stderr);
  const logResult = JSON.parse(log.stdout);
  const subjects = logResult.structuredContent.commits.map((c: { subject: string }) => c.subject);
  assert.deepEqual(subjects, ["inside second", "inside first"]);

  const diff = await runProgram(["--workspace", repo.root, "call", "git_diff", "{}", "--json"], {
    env,
  });
  assert.equal(diff.code, 0, diff.stderr);
  const diffResult = JSON.parse(diff.stdout);
  assert.match(diffResult.structuredContent.diff, /\+dirty/);
  assert.doesNotMatch(resultText(diffResult) + log.stdout, /OUTSIDE-HISTORY/);
  assert.equal(await Deno.lstat(marker).then(() => true, () => false), false, "no program ran");
});
