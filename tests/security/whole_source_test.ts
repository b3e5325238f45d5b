/**
 * Attacks on whole-source redaction through the tools that return part of
 * a larger source besides `read_file`: a `search_code` hit's context lines
 * and a `git_diff` hunk. Each test plants a secret a whole-file read would
 * redact, arranges for the returned lines to show only part of it (or show
 * it in a layout the secret rules cannot see through), and checks that no
 * part of it comes back in either half. Handlers run directly; the shaping
 * is the dispatcher's own.
 */

import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { shapedResultChars } from "../../src/contract/budget.ts";
import { fakeSecret } from "../../src/secrets/rule.ts";
import { callDirect, directContext, makeWorkspace, textOf } from "../helpers/fixtures.ts";
import { makeRepository } from "../helpers/git_repo.ts";

const KEY_LINES = Array.from({ length: 6 }, (_, i) => fakeSecret("wpem" + i, 64));
const PEM = [
  "-----BEGIN RSA PRIVATE KEY-----",
  ...KEY_LINES,
  "-----END RSA PRIVATE KEY-----",
];
const MIXED = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

function shaped(result: CallToolResult | { invalidParams: string }): CallToolResult {
  assert.ok(!("invalidParams" in result), JSON.stringify(result));
  assert.notEqual((result as CallToolResult).isError, true, textOf(result as CallToolResult));
  return result as CallToolResult;
}

function redactionOf(result: CallToolResult): { count: number; rules: unknown[] } {
  return (result.structuredContent as { redaction: { count: number; rules: unknown[] } }).redaction;
}

/** Asserts no piece of `secrets` (each at least `min` characters of it) is anywhere in `result`. */
function assertNoPiece(result: CallToolResult, secrets: readonly string[], what: string): void {
  const all = textOf(result) + JSON.stringify(result.structuredContent);
  for (const secret of secrets) {
    for (let at = 0; at + 12 <= secret.length; at += 6) {
      assert.ok(
        !all.includes(secret.slice(at, at + 12)),
        `${what}: shows ${secret.slice(at, at + 12)}`,
      );
    }
  }
}

Deno.test("attack: search_code context that starts inside a PEM block shows none of the key", async () => {
  await using ws = await makeWorkspace({
    "deploy/notes.md": ["# deploy key", ...PEM, "rotate yearly", ""].join("\n"),
  });
  const ctx = directContext(ws.root);
  for (const [pattern, context] of [["END RSA", 3], ["rotate", 2], ["deploy key", 4]] as const) {
    const result = shaped(
      await callDirect(ctx, "search_code", { pattern, context_lines: context }),
    );
    assertNoPiece(result, KEY_LINES, `${pattern} ±${context}`);
    assert.deepEqual(redactionOf(result).rules, [{ rule: "private-key", count: 1 }], pattern);
    assert.match(textOf(result), /\[redacted:private-key\]/);
  }
});

Deno.test("attack: a key wholly on context lines is withheld although the layout hides its markers", async () => {
  // "12-" prefixes in the text and one string per line in structuredContent: the rule would
  // need BEGIN and body in one string, so the pipeline alone saw no key.
  await using ws = await makeWorkspace({
    "ci/setup.sh": ["echo start", ...PEM, "echo done", ""].join("\n"),
  });
  const result = shaped(
    await callDirect(directContext(ws.root), "search_code", {
      pattern: "echo start",
      context_lines: 5,
    }),
  );
  assertNoPiece(result, KEY_LINES.slice(0, 4), "context after the hit");
  const after = (result.structuredContent as {
    files: { matches: { after: string[] }[] }[];
  }).files[0].matches[0].after;
  assert.equal(after.length, 5);
  for (const line of after) assert.equal(line, "[redacted:private-key]");
});

Deno.test("attack: a secret whose name is on the line above the context shows no value", async () => {
  // The generic rule matches `db_password =` and its value across the line break; the context
  // window starts at the value's line, where no rule can see the name.
  const value = fakeSecret("split", 28, MIXED);
  await using ws = await makeWorkspace({
    "config/app.py":
      `settings = dict(\n    db_password =\n    "${value}",\n    debug = False,\n)\n`,
  });
  const result = shaped(
    await callDirect(directContext(ws.root), "search_code", {
      pattern: "debug",
      context_lines: 1,
    }),
  );
  assertNoPiece(result, [value], "the value line before the hit");
  assert.deepEqual(redactionOf(result).rules, [{ rule: "generic-secret", count: 1 }]);
});

Deno.test("attack: a long line's window that begins inside a token shows none of its tail", async () => {
  // The match is 100 characters into the window; the token ends 80 characters before the
  // match, so the window starts in its middle and the returned text holds its tail alone.
  const token = "ghp_" + fakeSecret("window", 36);
  const line = "x".repeat(299) + " " + token + " " + "y".repeat(69) + "NEEDLE" + "z".repeat(600);
  await using ws = await makeWorkspace({ "web/bundle.js": line + "\n" });
  const result = shaped(
    await callDirect(directContext(ws.root), "search_code", { pattern: "NEEDLE" }),
  );
  const match = (result.structuredContent as {
    files: { matches: { text: string; cut?: boolean }[] }[];
  }).files[0].matches[0];
  assert.equal(match.cut, true);
  assert.ok(match.text.startsWith("…[redacted:github-token] yyy"), match.text.slice(0, 60));
  assertNoPiece(result, [token.slice(4)], "the window");
});

Deno.test("attack: many hits inside a key of one-character lines cannot push search_code past the budget", async () => {
  // Every body line is one character and every line holds a hit: each withheld piece grows to a
  // 22-character marker in both halves, which the search must plan for.
  const body = Array.from({ length: 3000 }, (_, i) => "QRSTUVWXYZ"[i % 10]);
  await using ws = await makeWorkspace({
    "k.txt": ["-----BEGIN RSA PRIVATE KEY-----", ...body, "-----END RSA PRIVATE KEY-----", ""]
      .join("\n"),
  });
  const ctx = directContext(ws.root);
  const result = shaped(
    await callDirect(ctx, "search_code", {
      pattern: "[A-Z]",
      regex: true,
      context_lines: 5,
      max_results: 2000,
      case_sensitive: true,
    }),
  );
  assert.ok(shapedResultChars(result) <= ctx.limits.maxResultChars, `${shapedResultChars(result)}`);
  assert.ok(!/\n\d+[-:][QRSTUVWXYZ]\n/.test(textOf(result)), "no body line is shown");
});

const LONG_KEY = Array.from({ length: 20 }, (_, i) => fakeSecret("dpem" + i, 64));
const LONG_PEM = [
  "-----BEGIN OPENSSH PRIVATE KEY-----",
  ...LONG_KEY,
  "-----END OPENSSH PRIVATE KEY-----",
];

Deno.test("attack: git_diff of a removed private key shows none of it behind the '-' prefixes", async () => {
  // "-MIIE…" reads to the PEM rule as a marker followed by a line that is not body: before the
  // sides were rebuilt, a removed key's body came back whole.
  await using repo = await makeRepository([
    { files: { "deploy/id.txt": ["# deploy", ...PEM, "end", ""].join("\n") }, message: "add key" },
  ]);
  await Deno.writeTextFile(repo.path("deploy/id.txt"), "# deploy\nend\n");
  const ctx = directContext(repo.root);
  const result = shaped(await callDirect(ctx, "git_diff", {}));
  assert.match(textOf(result), /^-\[redacted:private-key\]$/m);
  assertNoPiece(result, KEY_LINES, "the removed key");
  assert.deepEqual(redactionOf(result).rules, [{ rule: "private-key", count: 1 }]);
  // The same key added, seen from the other side of history.
  await repo.git(["rm", "-q", "--cached", "deploy/id.txt"]);
  const added = shaped(await callDirect(ctx, "git_diff", { revision: "HEAD", staged: true }));
  assertNoPiece(added, KEY_LINES, "the key as removed from the index");
});

Deno.test("attack: a git_diff hunk that shows only the middle of a key shows none of it", async () => {
  // One body line of a 20-line key changes: with 2 lines of context the hunk holds five body
  // lines and neither marker, so only the whole file can say they are a key.
  const changed = [...LONG_KEY];
  changed[9] = fakeSecret("rotated", 64);
  const file = (body: string[]) =>
    ["# ops keys", "", ...LONG_PEM.slice(0, 1), ...body, ...LONG_PEM.slice(-1), "", "done", ""]
      .join("\n");
  await using repo = await makeRepository([
    { files: { "ops/keys.md": file(LONG_KEY) }, message: "add" },
    { files: { "ops/keys.md": file(changed) }, message: "rotate a line" },
  ]);
  const ctx = directContext(repo.root);
  for (
    const args of [{ revision: "HEAD~1..HEAD", context_lines: 2 }, { revision: "HEAD~1..HEAD" }]
  ) {
    const result = shaped(await callDirect(ctx, "git_diff", args));
    const diff = (result.structuredContent as { diff: string }).diff;
    assert.ok(!diff.includes("BEGIN"), "the hunk holds no marker");
    assertNoPiece(result, [...LONG_KEY, changed[9]], JSON.stringify(args));
    assert.match(diff, /^-\[redacted:private-key\]$/m);
    assert.match(diff, /^\+\[redacted:private-key\]$/m);
  }
});

Deno.test("attack: a git_diff page that starts inside an added key shows none of its lines", async () => {
  // At the smallest budget the diff takes several pages; a page that starts in the key's body
  // has neither the key's BEGIN line nor its hunk header.
  const filler = Array.from({ length: 150 }, (_, i) => `line ${i} ${"=".repeat(30)}`);
  const many = Array.from({ length: 120 }, (_, i) => fakeSecret("page" + i, 64));
  await using repo = await makeRepository([{ files: { "a.md": "start\n" }, message: "start" }]);
  await Deno.writeTextFile(
    repo.path("a.md"),
    [
      "start",
      ...filler,
      "-----BEGIN RSA PRIVATE KEY-----",
      ...many,
      "-----END RSA PRIVATE KEY-----",
      "",
    ]
      .join("\n"),
  );
  const ctx = directContext(repo.root, { MCP_SERVER__MAX_RESULT_CHARS: "10000" });
  let cursor: string | undefined;
  let pages = 0;
  do {
    const result = shaped(
      await callDirect(ctx, "git_diff", cursor === undefined ? {} : { cursor }),
    );
    assertNoPiece(result, many, `page ${pages + 1}`);
    assert.ok(
      shapedResultChars(result) <= 10_000,
      `page ${pages + 1}: ${shapedResultChars(result)}`,
    );
    cursor = (result.structuredContent as { next_cursor?: string }).next_cursor;
    pages++;
  } while (cursor !== undefined && pages < 30);
  assert.ok(pages >= 3, `${pages} pages`);
});
