/**
 * The git runner layer by layer: the exact environment, the options in front
 * of every command, where the git program comes from, the output cap and the
 * kill on stop and at the deadline.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { CappedOutput, GIT_OUTPUT_CAP_BYTES, GitRunner } from "../../src/access/git.ts";
import {
  filterOverrides,
  gitEnvironment,
  hardeningOptions,
  locateGit,
} from "../../src/access/git_environment.ts";
import { gitDeadline } from "../../src/access/git_repository.ts";
import { ToolRefusal } from "../../src/contract/refusal.ts";
import { NEVER_STOP, type StopReason } from "../../src/contract/stop.ts";
import { makeWorkspace } from "../helpers/fixtures.ts";
import { makeSmallHistory } from "../helpers/git_repo.ts";

const GIT = locateGit(Deno.env.get("PATH") ?? "", "/nonexistent-workspace");

Deno.test("git environment: exactly the built variables, nothing inherited", () => {
  const env = gitEnvironment("/work/ws", "/usr/bin/git");
  assert.deepEqual(Object.keys(env).sort(), [
    "GIT_ALLOW_PROTOCOL",
    "GIT_ATTR_NOSYSTEM",
    "GIT_CEILING_DIRECTORIES",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_LITERAL_PATHSPECS",
    "GIT_NO_LAZY_FETCH",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_OPTIONAL_LOCKS",
    "GIT_TERMINAL_PROMPT",
    "HOME",
    "LC_ALL",
    "PATH",
  ]);
  assert.equal(env.HOME, "/work/ws");
  assert.equal(env.GIT_CEILING_DIRECTORIES, "/work");
  assert.equal(env.GIT_CONFIG_GLOBAL, "/dev/null");
  assert.equal(env.GIT_ALLOW_PROTOCOL, "");
  assert.equal(env.PATH, "/usr/bin:/usr/local/bin:/bin");
  for (const name of Object.keys(env)) {
    assert.ok(!/^(LD_|DYLD_)|^GIT_(DIR|WORK_TREE|EXTERNAL_DIFF|PAGER|EDITOR|SSH)/.test(name), name);
  }
});

Deno.test("git environment: config overrides travel as GIT_CONFIG_COUNT pairs, keys with '=' intact", () => {
  const env = gitEnvironment("/w", "/usr/bin/git", [["filter.x=y.clean", ""], ["a.b", "c"]]);
  assert.equal(env.GIT_CONFIG_COUNT, "2");
  assert.equal(env.GIT_CONFIG_KEY_0, "filter.x=y.clean");
  assert.equal(env.GIT_CONFIG_VALUE_0, "");
  assert.equal(env.GIT_CONFIG_KEY_1, "a.b");
});

Deno.test("git hardening: every command line starts with the hardening options", () => {
  const options = hardeningOptions("/w");
  const pairs = options.filter((_, i) => options[i - 1] === "-c");
  assert.deepEqual(options.slice(0, 2), ["--no-pager", "--work-tree=/w"]);
  for (
    const expected of [
      "core.fsmonitor=false",
      "core.hooksPath=/dev/null",
      "protocol.allow=never",
      "core.attributesFile=/dev/null",
      "core.excludesFile=/dev/null",
      "log.showSignature=false",
    ]
  ) assert.ok(pairs.includes(expected), expected);
  assert.ok(!pairs.some((p) => p.startsWith("diff.external")), "never -c diff.external=");
  const runner = new GitRunner({ root: "/w", workspaceName: "w", binary: "/usr/bin/git" });
  assert.deepEqual(runner.argv(["log"]), [...options, "log"]);
});

Deno.test("git hardening: filter drivers found in the configuration are switched off", () => {
  assert.deepEqual(
    filterOverrides(["core.bare", "filter.lfs.clean", "filter.A=B.process", "filter.x.required"]),
    [["filter.lfs.clean", ""], ["filter.A=B.process", ""], ["filter.x.required", "false"]],
  );
});

Deno.test("attack: a git program inside the workspace, or on a relative PATH entry, is never used", async () => {
  await using ws = await makeWorkspace({ "bin/git": "#!/bin/sh\necho fake\n" });
  await Deno.chmod(ws.path("bin/git"), 0o755);
  assert.equal(locateGit(`${ws.path("bin")}:/usr/bin`, ws.root), null);
  assert.equal(locateGit(`bin:.:`, ws.root), null);
  assert.equal(locateGit(`${ws.path("bin")}:/usr/bin`, ws.outside), ws.path("bin/git"));
  assert.equal(locateGit("/nonexistent", ws.root), null);
});

Deno.test("git runner: no git at start refuses git_unavailable", async () => {
  const runner = new GitRunner({ root: "/", workspaceName: "w", binary: null });
  await assert.rejects(
    runner.run(["--version"], () => "more", { stop: NEVER_STOP, deadline: Date.now() + 1000 }),
    (e) => e instanceof ToolRefusal && e.code === "git_unavailable",
  );
});

Deno.test("git output: capped at the byte limit and cut at the last boundary; skip drops a prefix", () => {
  const out = new CappedOutput(10);
  const enc = new TextEncoder();
  assert.equal(out.consume(enc.encode("abc\ndef\n")), "more");
  assert.equal(out.consume(enc.encode("ghij\n")), "enough");
  assert.equal(out.capped, true);
  assert.equal(new TextDecoder().decode(out.bytes()), "abc\ndef\n");
  const skipped = new CappedOutput(100, 0x0a, 4);
  skipped.consume(enc.encode("abc\ndef\n"));
  assert.equal(new TextDecoder().decode(skipped.bytes()), "def\n");
  assert.equal(GIT_OUTPUT_CAP_BYTES, 256 * 1024);
});

Deno.test("git runner: output is streamed and git killed once the consumer has enough", async () => {
  await using repo = await makeSmallHistory();
  const runner = new GitRunner({ root: repo.root, workspaceName: "ws", binary: GIT });
  let chunks = 0;
  const run = await runner.run(["log", "--format=%H", "--max-count=4"], () => {
    chunks++;
    return "enough";
  }, { stop: NEVER_STOP, deadline: Date.now() + 10_000 });
  assert.equal(run.killed, "enough");
  assert.equal(chunks, 1);
});

Deno.test("attack: explicit pathspecs cannot smuggle glob or other magic past the literal default", async () => {
  await using repo = await makeSmallHistory();
  const runner = new GitRunner({ root: repo.root, workspaceName: "ws", binary: GIT });
  const controls = { stop: NEVER_STOP, deadline: Date.now() + 10_000, explicitPathspecs: true };
  for (
    const specs of [["*.txt"], [":(glob)**"], [":(icase)A.TXT"], [":(literal)a.txt", "b*"]]
  ) {
    await assert.rejects(
      runner.run(["diff", "--name-only", "--", ...specs], () => "more", controls),
      /explicit pathspecs/,
      JSON.stringify(specs),
    );
  }
  await assert.rejects(runner.run(["diff", "--name-only"], () => "more", controls), /explicit/);
  const out = new CappedOutput(4096);
  const run = await runner.run(
    ["log", "--format=%H", "--", ":(literal)a.txt", ":(exclude,literal)src"],
    out.consume,
    controls,
  );
  assert.equal(run.code, 0, run.stderr);
  assert.ok(new TextDecoder().decode(out.bytes()).trim().length >= 40, "literal magic is honoured");
});

/** A git that blocks: `git config --list` reading an include that is a FIFO nobody writes. */
async function blockingRepo() {
  const repo = await makeSmallHistory();
  const fifo = join(repo.outside, "fifo");
  const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.ok(made.success);
  await repo.git(["config", "include.path", fifo]);
  return repo;
}

for (const reason of ["cancelled", "timed_out"] as StopReason[]) {
  Deno.test(`git runner: a raised stop flag (${reason}) kills a blocked git child`, async () => {
    await using repo = await blockingRepo();
    const runner = new GitRunner({ root: repo.root, workspaceName: "ws", binary: GIT });
    let raised: StopReason | undefined;
    setTimeout(() => raised = reason, 150);
    const started = Date.now();
    const run = await runner.run(["config", "--list"], () => "more", {
      stop: { reason: () => raised },
      deadline: Date.now() + 30_000,
    });
    assert.equal(run.killed, reason);
    assert.ok(Date.now() - started < 5_000, "killed promptly");
  });
}

Deno.test("git runner: a blocked git child is killed at the deadline", async () => {
  await using repo = await blockingRepo();
  const runner = new GitRunner({ root: repo.root, workspaceName: "ws", binary: GIT });
  const started = Date.now();
  const run = await runner.run(["config", "--list"], () => "more", {
    stop: NEVER_STOP,
    deadline: Date.now() + 200,
  });
  assert.equal(run.killed, "deadline");
  assert.ok(Date.now() - started < 5_000);
});

Deno.test("git deadline: before the call's budget, by at most a second", () => {
  assert.equal(gitDeadline(15_000, 0), 14_000);
  assert.equal(gitDeadline(500, 0), 400);
});
