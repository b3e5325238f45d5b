/**
 * Denied files through git: a repository that tracks `.env`, a private key
 * and a file under a denied folder must not show them through `git_diff`,
 * in any mode (working tree, staged, a range, stat only), even though git
 * itself would. The denylist holds for every tool, not only the ones that
 * read files.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { startServer, textOf } from "../helpers/fixtures.ts";
import { makeRepository } from "../helpers/git_repo.ts";

const MARK = "QX7-denied-content-marker";

function everything(result: CallToolResult): string {
  return textOf(result) + "\n" + JSON.stringify(result.structuredContent ?? {});
}

Deno.test("attack: a tracked .env, key and denied-folder file read back through git_diff", async () => {
  await using repo = await makeRepository([
    {
      message: "first",
      files: {
        "a.txt": "one\n",
        ".env": `TOKEN=${MARK}-1\n`,
        "keys/id_ed25519": `${MARK}-2\n`,
        "PROD.ENV": `${MARK}-3\n`,
      },
    },
    {
      message: "second: every file changes",
      files: {
        "a.txt": "one\ntwo\n",
        ".env": `TOKEN=${MARK}-4\n`,
        "keys/id_ed25519": `${MARK}-5\n`,
        "PROD.ENV": `${MARK}-6\n`,
      },
    },
  ]);
  await Deno.writeTextFile(repo.path(".env"), `TOKEN=${MARK}-7\n`);
  await Deno.writeTextFile(repo.path("a.txt"), "one\ntwo\nthree\n");
  using server = startServer(repo.root);
  const call = (args: Record<string, unknown>) => server.dispatcher.call("git_diff", args);

  const cases: Record<string, unknown>[] = [
    {},
    { revision: "HEAD~1..HEAD" },
    { revision: "HEAD~1" },
    { revision: "HEAD~1..HEAD", stat_only: true },
    { revision: "HEAD~1", context_lines: 10 },
  ];
  for (const args of cases) {
    const result = await call(args);
    assert.equal(result.isError, undefined, textOf(result));
    const shown = everything(result);
    const what = JSON.stringify(args);
    assert.ok(!shown.includes(MARK), `${what}: denied content came back`);
    assert.ok(!/\.env|id_ed25519|PROD\.ENV/i.test(shown), `${what}: a denied name came back`);
    assert.match(textOf(result), /denied files? left out/, `${what}: says files were left out`);
    const counted = result.structuredContent as { files_changed: number };
    assert.equal(counted.files_changed, 1, `${what}: only a.txt is counted`);
  }
  // The same call with nothing denied in it carries no note.
  await repo.git(["checkout", "--", ".env"]);
  const clean = await call({});
  assert.doesNotMatch(textOf(clean), /left out/);
});
