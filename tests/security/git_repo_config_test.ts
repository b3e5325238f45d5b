/**
 * The repository's own configuration is hostile input. For each way a
 * `.git/config` (or a file it includes, or `.gitattributes`) can make git
 * start a program, a test repository sets it up to create a marker file;
 * a control run of plain git shows the mechanism really fires, and then
 * every git_log / git_diff mode runs through the tools and the marker must
 * never appear.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { callDirect, directContext } from "../helpers/fixtures.ts";
import { git, makeRepository, type TempRepository } from "../helpers/git_repo.ts";
import { readRefusal } from "../helpers/results.ts";

/** A repository with one commit history and a marker-making script outside it. */
async function hostileRepository(): Promise<TempRepository & { evil: string; marker: string }> {
  const repo = await makeRepository([
    { files: { "a.txt": "one\n", "b.txt": "b\n" }, message: "first" },
    { files: { "a.txt": "one\ntwo\n" }, message: "second" },
  ]);
  const marker = join(repo.outside, "MARKER");
  const evil = join(repo.outside, "evil.sh");
  await Deno.writeTextFile(evil, `#!/bin/sh\ntouch '${marker}'\n`);
  await Deno.chmod(evil, 0o755);
  return Object.assign(repo, { evil, marker });
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Every mode of both tools, through the direct path (the permission layer would not stop git). */
async function runEveryMode(repo: TempRepository): Promise<void> {
  const ctx = directContext(repo.root);
  const calls: [string, Record<string, unknown>][] = [
    ["git_log", {}],
    ["git_log", { path: "a.txt" }],
    ["git_log", { revision: "HEAD~1..HEAD", grep: "sec" }],
    ["git_diff", {}],
    ["git_diff", { stat_only: true }],
    ["git_diff", { staged: true }],
    ["git_diff", { revision: "HEAD" }],
    ["git_diff", { revision: "HEAD~1" }],
    ["git_diff", { revision: "HEAD~1..HEAD" }],
    ["git_diff", { revision: "HEAD~1...HEAD", path: "a.txt" }],
  ];
  for (const [tool, args] of calls) {
    const result = await callDirect(ctx, tool, args);
    assert.ok(!("invalidParams" in result), `${tool} ${JSON.stringify(args)}`);
    if (result.isError) readRefusal(result); // a refusal is fine; running a program is not
  }
}

interface Mechanism {
  /** The attack, for the test title. */
  readonly name: string;
  /** Sets the repository up so plain git runs `evil` (the marker script). */
  setup(repo: TempRepository & { evil: string; marker: string }): Promise<void>;
  /**
   * The plain git command that shows the mechanism firing (the control), or
   * `null` where plain git needs a terminal to fire it (a pager).
   */
  readonly control: string[] | null;
}

const dirtyWorkTree = async (repo: TempRepository) => {
  await Deno.writeTextFile(repo.path("a.txt"), "one\ntwo\nthree (dirty)\n");
};

const MECHANISMS: Mechanism[] = [
  {
    name: "core.fsmonitor runs a hook on a working-tree diff",
    setup: async (repo) => {
      await repo.git(["config", "core.fsmonitor", repo.evil]);
      await dirtyWorkTree(repo);
    },
    control: ["diff"],
  },
  {
    name: "diff.<driver>.command named by .gitattributes",
    setup: async (repo) => {
      await repo.git(["config", "diff.evil.command", repo.evil]);
      await Deno.writeTextFile(repo.path(".git/info/attributes"), "* diff=evil\n");
    },
    control: ["diff", "HEAD~1", "HEAD"],
  },
  {
    name: "diff.<driver>.textconv named by .gitattributes",
    setup: async (repo) => {
      await repo.git(["config", "diff.evil.textconv", repo.evil]);
      await Deno.writeTextFile(repo.path(".git/info/attributes"), "* diff=evil\n");
    },
    control: ["diff", "HEAD~1", "HEAD"],
  },
  {
    name: "diff.external",
    setup: async (repo) => {
      await repo.git(["config", "diff.external", repo.evil]);
    },
    control: ["diff", "HEAD~1", "HEAD"],
  },
  {
    name: "core.pager and pager.<command>",
    setup: async (repo) => {
      await repo.git(["config", "core.pager", repo.evil]);
      await repo.git(["config", "pager.log", repo.evil]);
      await repo.git(["config", "pager.diff", repo.evil]);
    },
    control: null, // git starts a pager only when its output is a terminal
  },
  {
    name: "filter.<driver>.clean on a dirty working tree",
    setup: async (repo) => {
      await repo.git(["config", "filter.evil.clean", repo.evil]);
      await Deno.writeTextFile(repo.path(".gitattributes"), "* filter=evil\n");
      await dirtyWorkTree(repo);
    },
    control: ["diff"],
  },
  {
    name: "filter.<driver>.process on a dirty working tree",
    setup: async (repo) => {
      await repo.git(["config", "filter.evil.process", repo.evil]);
      await Deno.writeTextFile(repo.path(".gitattributes"), "* filter=evil\n");
      await dirtyWorkTree(repo);
    },
    control: ["diff"],
  },
  {
    name: "a filter driver whose name holds '=' (breaks `-c key=value` overrides)",
    setup: async (repo) => {
      await Deno.writeTextFile(
        repo.path(".git/config"),
        (await Deno.readTextFile(repo.path(".git/config"))) +
          `[filter "x=y"]\n\tclean = ${repo.evil}\n`,
      );
      await Deno.writeTextFile(repo.path(".gitattributes"), "* filter=x=y\n");
      await dirtyWorkTree(repo);
    },
    control: ["diff"],
  },
  {
    name: "include.path pointing at a file outside the workspace",
    setup: async (repo) => {
      const included = join(repo.outside, "included.gitconfig");
      await Deno.writeTextFile(
        included,
        `[core]\n\tfsmonitor = ${repo.evil}\n\tpager = ${repo.evil}\n[filter "inc"]\n\tclean = ${repo.evil}\n`,
      );
      await repo.git(["config", "include.path", included]);
      await Deno.writeTextFile(repo.path(".gitattributes"), "* filter=inc\n");
      await dirtyWorkTree(repo);
    },
    control: ["diff"],
  },
  {
    name: "includeIf gitdir: pointing at a file outside the workspace",
    setup: async (repo) => {
      const included = join(repo.outside, "conditional.gitconfig");
      await Deno.writeTextFile(included, `[core]\n\tfsmonitor = ${repo.evil}\n`);
      await repo.git(["config", `includeIf.gitdir:${repo.root}/.git.path`, included]);
      await dirtyWorkTree(repo);
    },
    control: ["diff"],
  },
  {
    name: "core.attributesFile outside the workspace naming a filter",
    setup: async (repo) => {
      const attributes = join(repo.outside, "attributes");
      await Deno.writeTextFile(attributes, "* filter=evil\n");
      await repo.git(["config", "core.attributesFile", attributes]);
      await repo.git(["config", "filter.evil.clean", repo.evil]);
      await dirtyWorkTree(repo);
    },
    control: ["diff"],
  },
  {
    name: "hooks in .git/hooks and core.hooksPath",
    setup: async (repo) => {
      const hooks = join(repo.outside, "hooks");
      await Deno.mkdir(hooks);
      for (const dir of [repo.path(".git/hooks"), hooks]) {
        for (const hook of ["post-index-change", "pre-auto-gc", "reference-transaction"]) {
          await Deno.writeTextFile(join(dir, hook), `#!/bin/sh\nexec '${repo.evil}'\n`);
          await Deno.chmod(join(dir, hook), 0o755);
        }
      }
      await repo.git(["config", "core.hooksPath", hooks]);
      await dirtyWorkTree(repo);
    },
    control: ["update-index", "--refresh"],
  },
  {
    name: "gpg.program run by log.showSignature on a signed-looking commit",
    setup: async (repo) => {
      const tree = (await repo.git(["rev-parse", "HEAD^{tree}"])).trim();
      const parent = await repo.sha("HEAD");
      const body = `tree ${tree}\nparent ${parent}\n` +
        `author Ada Tester <ada@example.test> 1767350000 +0000\n` +
        `committer Ada Tester <ada@example.test> 1767350000 +0000\n` +
        `gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned\n`;
      const path = join(repo.outside, "commit.txt");
      await Deno.writeTextFile(path, body);
      const sha = (await repo.git(["hash-object", "-t", "commit", "-w", path])).trim();
      await repo.git(["update-ref", "refs/heads/main", sha]);
      await repo.git(["config", "log.showSignature", "true"]);
      await repo.git(["config", "gpg.program", repo.evil]);
    },
    control: ["log", "-1"],
  },
  {
    name: "a partial clone's lazy fetch through ext:: with protocol.ext.allow=always",
    setup: async (repo) => {
      const blob = (await repo.git(["rev-parse", "HEAD:a.txt"])).trim();
      await Deno.remove(repo.path(".git/objects", blob.slice(0, 2), blob.slice(2)));
      await repo.git(["config", "core.repositoryformatversion", "1"]);
      await repo.git(["config", "extensions.partialClone", "origin"]);
      await repo.git(["config", "remote.origin.promisor", "true"]);
      await repo.git(["config", "remote.origin.url", `ext::${repo.evil}`]);
      await repo.git(["config", "protocol.ext.allow", "always"]);
      await repo.git(["config", "protocol.allow", "always"]);
    },
    control: ["diff", "HEAD~1", "HEAD"],
  },
  {
    name: "a lazy fetch over ssh with core.sshCommand",
    setup: async (repo) => {
      const blob = (await repo.git(["rev-parse", "HEAD:a.txt"])).trim();
      await Deno.remove(repo.path(".git/objects", blob.slice(0, 2), blob.slice(2)));
      await repo.git(["config", "core.repositoryformatversion", "1"]);
      await repo.git(["config", "extensions.partialClone", "origin"]);
      await repo.git(["config", "remote.origin.promisor", "true"]);
      await repo.git(["config", "remote.origin.url", "ssh://example.invalid/repo"]);
      await repo.git(["config", "core.sshCommand", repo.evil]);
      await repo.git(["config", "protocol.ssh.allow", "always"]);
      await repo.git(["config", "uploadpack.packObjectsHook", repo.evil]);
    },
    control: ["diff", "HEAD~1", "HEAD"],
  },
];

for (const mechanism of MECHANISMS) {
  Deno.test(`attack: repository config runs a program — ${mechanism.name}`, async () => {
    await using repo = await hostileRepository();
    await mechanism.setup(repo);
    // Control: plain git (with the same clean environment) does run it.
    if (mechanism.control !== null) {
      await git(repo.root, mechanism.control).catch(() => {});
      assert.ok(await exists(repo.marker), `control: plain git ${mechanism.control.join(" ")}`);
      await Deno.remove(repo.marker);
    }

    await runEveryMode(repo);
    assert.equal(await exists(repo.marker), false, "no program ran through the tools");
  });
}

Deno.test("attack: core.worktree pointing outside makes a working-tree diff read outside files", async () => {
  await using repo = await hostileRepository();
  const elsewhere = join(repo.outside, "tree");
  await Deno.mkdir(elsewhere);
  await Deno.writeTextFile(join(elsewhere, "a.txt"), "OUTSIDE-TREE-CONTENT\n");
  await repo.git(["config", "core.worktree", elsewhere]);
  // Control: plain git diffs the outside tree.
  const plain = await git(repo.root, ["diff"]).catch((e) => String(e));
  assert.match(plain, /OUTSIDE-TREE-CONTENT/);

  const ctx = directContext(repo.root);
  for (const args of [{}, { revision: "HEAD" }, { stat_only: true }]) {
    const result = await callDirect(ctx, "git_diff", args);
    assert.ok(!("invalidParams" in result));
    assert.doesNotMatch(JSON.stringify(result), /OUTSIDE-TREE-CONTENT/);
    assert.equal(result.isError, undefined, JSON.stringify(result).slice(0, 300));
  }
});
