/**
 * Hostile arguments to git_log and git_diff: option injection through
 * revisions, paths, dates and message filters; shell metacharacters; a ref
 * *named* like an option; `--no-index` tricks. Each is tried twice: through
 * the schema (refused before any handler runs) and straight into the
 * handler with the schema bypassed (the handler's own checks and git's
 * `--end-of-options` / `--` must hold on their own). Nothing may be written
 * and nothing outside the workspace may be read.
 *
 * @module
 */

import assert from "node:assert/strict";
import { shapeToolResult } from "../../src/content/pipeline.ts";
import { quoteName } from "../../src/contract/text.ts";
import { TOOLS } from "../../src/tools/registry.ts";
import { runTool } from "../../src/tools/runtime.ts";
import { callDirect, directContext } from "../helpers/fixtures.ts";
import { makeSmallHistory, shaped, structured, type TempRepository } from "../helpers/git_repo.ts";
import { readRefusal, resultText } from "../helpers/results.ts";

/** Reads a refusal of `code` from any call's answer. */
function refused(result: unknown, code: Parameters<typeof readRefusal>[1]) {
  return readRefusal(shaped(result), code);
}

/** Runs a tool's handler with `args` as given: no schema in front of it. */
async function callUnvalidated(repo: TempRepository, tool: string, args: unknown) {
  const raw = await runTool(TOOLS, tool, args, directContext(repo.root));
  if (raw.kind === "invalid_params") return { invalidParams: raw.message };
  return shapeToolResult(raw, { redactSecrets: true });
}

const WRITE_TARGET = "/tmp/devserver-git-attack-output";

const HOSTILE_REVISIONS = [
  `--output=${WRITE_TARGET}`,
  "--upload-pack=touch /tmp/devserver-git-attack-upload",
  "-c core.pager=sh",
  "-ccore.pager=sh",
  "--no-index",
  "HEAD --output=/tmp/x",
  "$(touch /tmp/devserver-git-attack-sub)",
  "`touch /tmp/devserver-git-attack-tick`",
  "HEAD; touch /tmp/devserver-git-attack-semi",
  "HEAD|sh",
  "HEAD..-x",
  "HEAD...--output=/tmp/x",
  "HEAD:a.txt",
  ":/first",
  "HEAD\nHEAD",
  "x".repeat(201),
  "",
];

async function assertNothingWritten(): Promise<void> {
  for (const suffix of ["-output", "-upload", "-sub", "-tick", "-semi"]) {
    const path = `/tmp/devserver-git-attack${suffix}`;
    const there = await Deno.lstat(path).then(() => true, () => false);
    assert.equal(there, false, `${path} was created`);
  }
}

for (const tool of ["git_log", "git_diff"]) {
  Deno.test(`attack: ${tool} revision injection (options, shell, ranges) refused by the schema`, async () => {
    await using repo = await makeSmallHistory();
    const ctx = directContext(repo.root);
    for (const revision of HOSTILE_REVISIONS) {
      const result = await callDirect(ctx, tool, { revision });
      assert.ok(!("invalidParams" in result));
      refused(result, "invalid_arguments");
    }
    await assertNothingWritten();
  });

  Deno.test(`attack: ${tool} revision injection with the schema bypassed is refused by the handler`, async () => {
    await using repo = await makeSmallHistory();
    for (const revision of HOSTILE_REVISIONS) {
      const result = await callUnvalidated(repo, tool, { revision });
      assert.ok(!("invalidParams" in result));
      refused(result, "bad_revision");
      const echoed = resultText(result).split(quoteName(revision)).length - 1;
      assert.ok(echoed <= 1, `the revision is echoed at most once (${echoed})`);
    }
    await assertNothingWritten();
  });
}

Deno.test("attack: a ref *named* --output=evil is never read as an option", async () => {
  await using repo = await makeSmallHistory();
  // git refuses to create such a ref by name, so write it as a file.
  await Deno.mkdir(repo.path(".git/refs/heads/--output=evil"), { recursive: true }).catch(() => {});
  await Deno.writeTextFile(
    repo.path(".git/refs/tags/--output=evil"),
    (await repo.sha("HEAD")) + "\n",
  );
  const ctx = directContext(repo.root);
  for (const tool of ["git_log", "git_diff"]) {
    refused(
      await callDirect(ctx, tool, { revision: "--output=evil" }),
      "invalid_arguments",
    );
    const bypassed = await callUnvalidated(repo, tool, { revision: "--output=evil" });
    refused(bypassed, "bad_revision");
    // Reached by its full name the ref is data, after --end-of-options.
    const named = await callDirect(ctx, tool, { revision: "refs/tags/--output=evil" });
    refused(named, "invalid_arguments"); // '=' is not in the charset
  }
  const there = await Deno.lstat(repo.path("evil")).then(() => true, () => false);
  assert.equal(there, false, "no file named evil was written");
});

Deno.test("attack: a path argument that looks like an option stays a path", async () => {
  await using repo = await makeSmallHistory();
  const ctx = directContext(repo.root);
  for (const tool of ["git_log", "git_diff"]) {
    for (const path of ["--output=/tmp/devserver-git-attack-output", "-p", "--no-index"]) {
      const result = await callDirect(ctx, tool, { path });
      refused(result, "not_found"); // containment: no such file in the workspace
    }
  }
  // A file that really has such a name is a literal pathspec after `--`.
  await Deno.writeTextFile(repo.path("--output=x"), "dash file\n");
  await repo.git(["add", "--", "--output=x"]);
  await repo.git(["commit", "-q", "-m", "add a dash file"]);
  const log = await callDirect(ctx, "git_log", { path: "--output=x" });
  const { commits } = structured<{ commits: { subject: string }[] }>(log);
  assert.deepEqual(commits.map((c) => c.subject), ["add a dash file"]);
  await assertNothingWritten();
});

Deno.test("attack: pathspec magic :(…) is text (GIT_LITERAL_PATHSPECS)", async () => {
  await using repo = await makeSmallHistory();
  const ctx = directContext(repo.root);
  const magic = await callDirect(ctx, "git_log", { path: ":(glob)**" });
  refused(magic, "not_found");
  await Deno.writeTextFile(repo.path(":(exclude)a.txt"), "literal\n");
  const literal = await callDirect(ctx, "git_log", { path: ":(exclude)a.txt" });
  // Untracked: a literal pathspec matches no commit (magic would match almost all).
  assert.deepEqual(
    structured<{ commits: unknown[] }>(literal).commits,
    [],
  );
});

Deno.test("attack: --no-index tricks (git diff /etc/hostname /dev/null) cannot name outside files", async () => {
  await using repo = await makeSmallHistory();
  const ctx = directContext(repo.root);
  for (const path of ["/etc/hostname", "/etc/passwd", "../outside/secret.txt", "/dev/null"]) {
    const result = await callDirect(ctx, "git_diff", { path });
    refused(result, "outside_workspace");
  }
  for (const revision of ["/etc/hostname", "/dev/null", "../outside/secret.txt"]) {
    const bypassed = await callUnvalidated(repo, "git_diff", { revision });
    refused(bypassed, "bad_revision");
    assert.doesNotMatch(JSON.stringify(bypassed), /OUTSIDE-SECRET|root:/);
  }
});

Deno.test("attack: a path into .git or through a link to outside is refused by containment", async () => {
  await using repo = await makeSmallHistory();
  await Deno.symlink(repo.outside, repo.path("out"));
  const ctx = directContext(repo.root);
  refused(await callDirect(ctx, "git_log", { path: ".git/config" }), "denied_path");
  refused(
    await callDirect(ctx, "git_diff", { path: "out/secret.txt" }),
    "outside_workspace",
  );
});

Deno.test("attack: hostile dates and grep text are refused by schema and handler alike", async () => {
  await using repo = await makeSmallHistory();
  const ctx = directContext(repo.root);
  const hostile = [
    { since: "--output=/tmp/devserver-git-attack-output" },
    { until: "yesterday; touch /tmp/devserver-git-attack-semi" },
    { since: "$(touch /tmp/devserver-git-attack-sub)" },
    { grep: "a\nb" },
    { grep: "x".repeat(201) },
  ];
  for (const args of hostile) {
    refused(await callDirect(ctx, "git_log", args), "invalid_arguments");
    refused(await callUnvalidated(repo, "git_log", args), "invalid_arguments");
  }
  // A grep that looks like an option is a literal message filter.
  const grep = await callDirect(ctx, "git_log", { grep: "--output=/tmp/x" });
  assert.deepEqual(
    structured<{ commits: unknown[] }>(grep).commits,
    [],
  );
  await assertNothingWritten();
});

Deno.test("attack: staged with a range and out-of-range context_lines are refused", async () => {
  await using repo = await makeSmallHistory();
  const ctx = directContext(repo.root);
  refused(
    await callDirect(ctx, "git_diff", { revision: "HEAD~1..HEAD", staged: true }),
    "invalid_arguments",
  );
  refused(
    await callDirect(ctx, "git_diff", { context_lines: 11 }),
    "invalid_arguments",
  );
  refused(
    await callUnvalidated(repo, "git_diff", { context_lines: 1e9 }),
    "invalid_arguments",
  );
});
