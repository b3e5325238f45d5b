/**
 * git_log and git_diff through a real server: the dispatcher, the
 * permission-scoped tool workers (read = workspace, run = git, no env), the
 * result pipeline. Legitimate revisions of every form, the counts, the
 * output schemas, pagination, the response budget and the stop flag.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { GitDiffOutput } from "../../src/tools/git_diff.ts";
import { GitLogOutput } from "../../src/tools/git_log.ts";
import { callDirect, directContext, startServer, textOf } from "../helpers/fixtures.ts";
import { makeRepository, makeSmallHistory, structured } from "../helpers/git_repo.ts";
import { readRefusal } from "../helpers/results.ts";

interface Log {
  revision: string;
  commits: {
    commit: string;
    short: string;
    author: string;
    authored_at: string;
    subject: string;
  }[];
  truncated: boolean;
  next_cursor?: string;
}
interface Diff {
  compared: string;
  files_changed: number;
  lines_added: number;
  lines_removed: number;
  diff?: string;
  files?: { path: string; added: number; removed: number; binary: boolean }[];
  truncated: boolean;
  next_cursor?: string;
}

function log(result: CallToolResult): Log {
  assert.equal(result.isError, undefined, textOf(result));
  const parsed = GitLogOutput.safeParse(result.structuredContent);
  assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
  return result.structuredContent as unknown as Log;
}

function diff(result: CallToolResult): Diff {
  assert.equal(result.isError, undefined, textOf(result));
  const parsed = GitDiffOutput.safeParse(result.structuredContent);
  assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
  return result.structuredContent as unknown as Diff;
}

Deno.test("git_log through the server: every legitimate revision form resolves", async () => {
  await using repo = await makeSmallHistory();
  using server = startServer(repo.root);
  const call = (args: Record<string, unknown>) => server.dispatcher.call("git_log", args);
  const all = log(await call({}));
  assert.deepEqual(all.commits.map((c) => c.subject), [
    "fourth: change b",
    "third: grow a",
    "second: add b",
    "first: add a",
  ]);
  assert.equal(all.commits[0].commit, await repo.sha("HEAD"));
  assert.equal(all.commits[0].author, "Ada Tester");
  assert.equal(all.commits[0].authored_at, "2026-01-04T10:00:00+00:00");
  assert.ok(all.commits[0].commit.startsWith(all.commits[0].short));
  assert.match(textOf(await call({})), /<untrusted-commit-messages id=[0-9a-f]{32}>/);

  const firstSubject = async (revision: string) =>
    log(await call({ revision, limit: 1 })).commits[0]?.subject;
  assert.equal(await firstSubject("HEAD"), "fourth: change b");
  assert.equal(await firstSubject("HEAD~1"), "third: grow a");
  assert.equal(await firstSubject("main"), "fourth: change b");
  assert.equal(await firstSubject("@{0}"), "fourth: change b");
  assert.equal(await firstSubject("v1"), "second: add b");
  assert.equal(await firstSubject(await repo.sha("HEAD~3")), "first: add a");
  assert.deepEqual(log(await call({ revision: "HEAD~3..HEAD" })).commits.length, 3);
  await repo.git(["branch", "side", "HEAD~2"]);
  assert.deepEqual(
    log(await call({ revision: "side...main" })).commits.map((c) => c.subject),
    ["fourth: change b", "third: grow a"],
  );
  assert.deepEqual(
    log(await call({ path: "src" })).commits.map((c) => c.subject),
    ["fourth: change b", "second: add b"],
  );
  assert.deepEqual(
    log(await call({ grep: "GROW" })).commits.map((c) => c.subject),
    ["third: grow a"],
  );
  assert.deepEqual(
    log(await call({ since: "2026-01-03", until: "2026-01-03T23:59:59Z" })).commits.map((c) =>
      c.subject
    ),
    ["third: grow a"],
  );
  const unknown = readRefusal(await call({ revision: "no-such-branch" }), "bad_revision");
  assert.equal(unknown.message.split('"no-such-branch"').length, 2, "echoed once");
});

Deno.test("git_log: pagination with next_cursor continues where the page ended", async () => {
  await using repo = await makeSmallHistory();
  using server = startServer(repo.root);
  const first = log(await server.dispatcher.call("git_log", { limit: 3 }));
  assert.equal(first.commits.length, 3);
  assert.equal(first.truncated, true);
  assert.ok(first.next_cursor);
  const second = log(
    await server.dispatcher.call("git_log", { limit: 3, cursor: first.next_cursor }),
  );
  assert.deepEqual(second.commits.map((c) => c.subject), ["first: add a"]);
  assert.equal(second.truncated, false);
  // A cursor for other arguments is -32602.
  await assert.rejects(
    () => server.dispatcher.call("git_log", { path: "src", cursor: first.next_cursor }),
  );
});

Deno.test("git_log: an empty repository has no commits; no repository is not_a_repository", async () => {
  await using repo = await makeRepository([]);
  const ctx = directContext(repo.root);
  assert.deepEqual(structured<Log>(await callDirect(ctx, "git_log", {})).commits, []);
  await Deno.remove(repo.path(".git"), { recursive: true });
  readRefusal((await callDirect(ctx, "git_log", {})) as never, "not_a_repository");
});

Deno.test("git_diff through the server: worktree, staged, a revision and ranges, with counts", async () => {
  await using repo = await makeSmallHistory();
  using server = startServer(repo.root);
  const call = (args: Record<string, unknown>) => server.dispatcher.call("git_diff", args);
  assert.equal(diff(await call({})).files_changed, 0);

  await Deno.writeTextFile(repo.path("a.txt"), "one\nTWO\nthree\n");
  const work = diff(await call({}));
  assert.deepEqual([work.files_changed, work.lines_added, work.lines_removed], [1, 2, 1]);
  assert.match(work.diff!, /^-two$/m);
  assert.match(work.diff!, /^\+three$/m);
  assert.match(textOf(await call({})), /1 file changed, \+2 -1/);

  await repo.git(["add", "a.txt"]);
  assert.equal(diff(await call({})).files_changed, 0, "nothing unstaged now");
  assert.equal(diff(await call({ staged: true })).lines_added, 2);
  assert.equal(diff(await call({ revision: "HEAD~1", staged: true })).files_changed, 2);

  const range = diff(await call({ revision: "HEAD~3..HEAD" }));
  assert.deepEqual([range.files_changed, range.lines_added, range.lines_removed], [2, 2, 0]);
  const stat = diff(await call({ revision: "HEAD~3..HEAD", stat_only: true }));
  assert.deepEqual(
    [stat.files_changed, stat.lines_added, stat.lines_removed],
    [range.files_changed, range.lines_added, range.lines_removed],
    "stat mode counts the same",
  );
  assert.deepEqual(stat.files!.map((f) => f.path), ["a.txt", "src/b.txt"]);
  assert.equal(stat.diff, undefined);
  await repo.git(["branch", "side", "HEAD~2"]);
  const three = diff(await call({ revision: "side...main", path: "src" }));
  assert.deepEqual([three.files_changed, three.lines_added, three.lines_removed], [1, 1, 1]);
  assert.equal(diff(await call({ revision: "v1..HEAD", context_lines: 0 })).files_changed, 2);
  readRefusal(await call({ revision: "HEAD~9" }), "bad_revision");
});

Deno.test("git_diff: binary files are counted, not shown; unusual names come back exact", async () => {
  await using repo = await makeRepository([
    { files: { "x.txt": "x\n" }, message: "one" },
  ]);
  await Deno.writeFile(repo.path("bin.dat"), new Uint8Array([0, 1, 2, 0]));
  await Deno.writeTextFile(repo.path("tab\tname.txt"), "t\n");
  await repo.git(["add", "-A"]);
  await repo.git(["commit", "-q", "-m", "two"]);
  const ctx = directContext(repo.root);
  const stat = structured<Diff>(
    await callDirect(ctx, "git_diff", { revision: "HEAD~1..HEAD", stat_only: true }),
  );
  assert.deepEqual(stat.files, [
    { path: "bin.dat", added: 0, removed: 0, binary: true },
    { path: "tab\tname.txt", added: 1, removed: 0, binary: false },
  ]);
});

Deno.test("git_diff: output past the response budget is cut at a line and continued by cursor", async () => {
  const big = Array.from({ length: 6000 }, (_, i) => `line ${i} ${"x".repeat(20)}`).join("\n") +
    "\n";
  await using repo = await makeRepository([
    { files: { "big.txt": "" }, message: "empty" },
    { files: { "big.txt": big }, message: "big" },
  ]);
  const ctx = directContext(repo.root, { MCP_SERVER__MAX_RESULT_CHARS: "20000" });
  const pages: string[] = [];
  let cursor: string | undefined;
  let first: Diff | undefined;
  do {
    const result = await callDirect(ctx, "git_diff", { revision: "HEAD~1..HEAD", cursor });
    const page = structured<Diff>(result);
    first ??= page;
    assert.ok(JSON.stringify(result).length <= 20_000, "within the budget");
    assert.ok(page.diff!.endsWith("\n"), "cut at a line boundary");
    pages.push(page.diff!);
    cursor = page.next_cursor;
    assert.equal(page.truncated, cursor !== undefined);
  } while (cursor && pages.length < 50);
  assert.ok(pages.length > 3, `several pages (${pages.length})`);
  assert.deepEqual([first!.files_changed, first!.lines_added], [1, 6000]);
  const whole = pages.join("");
  assert.equal(whole.split("\n").filter((l) => l.startsWith("+line ")).length, 6000);
});

Deno.test("git_log: the response budget keeps whole commits and says how to continue", async () => {
  const commits = Array.from({ length: 240 }, (_, i) => ({
    files: { "f.txt": `${i}\n` },
    message: `commit ${i} ${"s".repeat(150)}`,
  }));
  await using repo = await makeRepository(commits);
  const ctx = directContext(repo.root, { MCP_SERVER__MAX_RESULT_CHARS: "10000" });
  const result = await callDirect(ctx, "git_log", { limit: 200 });
  const page = structured<Log>(result);
  assert.ok(JSON.stringify(result).length <= 10000);
  assert.ok(page.commits.length > 5 && page.commits.length < 200, `${page.commits.length}`);
  assert.equal(page.truncated, true);
  const next = structured<Log>(
    await callDirect(ctx, "git_log", { limit: 200, cursor: page.next_cursor }),
  );
  assert.equal(next.commits[0].subject, `commit ${239 - page.commits.length} ${"s".repeat(150)}`);
});

Deno.test("git tools: a raised stop flag kills git and answers cancelled / timed_out", async () => {
  await using repo = await makeSmallHistory();
  const fifo = repo.path("..", "outside", "fifo");
  assert.ok((await new Deno.Command("mkfifo", { args: [fifo] }).output()).success);
  await repo.git(["config", "include.path", fifo]); // every git run now blocks reading it
  for (const reason of ["cancelled", "timed_out"] as const) {
    let raised: typeof reason | undefined;
    const ctx = directContext(repo.root, {}, { stop: { reason: () => raised } });
    setTimeout(() => raised = reason, 200);
    const started = Date.now();
    const result = await callDirect(ctx, reason === "cancelled" ? "git_log" : "git_diff", {});
    readRefusal(result as never, reason);
    assert.ok(Date.now() - started < 5_000);
  }
});
