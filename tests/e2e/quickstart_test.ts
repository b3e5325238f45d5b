/**
 * `deno task quickstart`, run exactly as a new user runs it, and checked
 * for everything it promises to show.
 */

import assert from "node:assert/strict";
import { REPO_ROOT } from "../../scripts/lib/program.ts";
import { childEnv, MODERN } from "./support.ts";

async function deno(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: REPO_ROOT,
    env: childEnv(),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
  };
}

Deno.test("deno task quickstart shows a working server and exits 0", async () => {
  const { code, stdout, stderr } = await deno(["task", "-q", "quickstart"]);
  assert.equal(code, 0, stdout + stderr);
  assert.match(stdout, /^server {4}devserver \d+\.\d+\.\d+$/m);
  assert.match(stdout, new RegExp(`^protocol  ${MODERN} `, "m"));
  assert.match(stdout, /^ {2}read_file +Read file/m);
  assert.match(stdout, /^ {2}list_directory +List directory/m);
  assert.match(stdout, /^ {2}src\/$/m);
  assert.match(stdout, /^ {2}\S+ {2}\d+ bytes$/m);
  // README.md's first line, numbered, inside a fence whose nonce opens and closes it.
  const fence = stdout.match(
    /<untrusted-file-content id=([0-9a-f]{32})>\n {2}\s*1\t[^\n]*\n[\s\S]*?<\/untrusted-file-content id=\1>/,
  );
  assert.ok(fence, stdout);
  // The refusal as the model reads it (ADR-013): the code, then the remedy.
  assert.match(stdout, /^ {2}Refused \(outside_workspace\): \S[^\n]*\n {2}Remedy: \S/m);
  const cold = stdout.match(/cold start to first reply +(\d+(?:\.\d)?) ms/);
  assert.ok(cold, stdout);
  assert.ok(Number(cold[1]) > 0);
  assert.match(stdout, /read_file README\.md +median [\d.]+ ms/);
  assert.match(stdout, /\nquickstart ok\n$/);
});

Deno.test("the quickstart exits 1 with the reason when it cannot reach a server", async () => {
  // Without --allow-run it cannot start the server at all.
  const { code, stdout, stderr } = await deno([
    "run",
    "-q",
    "--no-prompt",
    "--frozen",
    "--allow-read",
    "--allow-env",
    `${REPO_ROOT}/examples/quickstart.ts`,
  ]);
  assert.equal(code, 1, stdout + stderr);
  assert.match(stderr, /quickstart FAILED: .*run access/);
  assert.doesNotMatch(stdout, /quickstart ok/);
});
