/**
 * docs/tools.md says how `list_directory` marks a directory the walk skips,
 * `(not searched: <rule>)`, and names each kind of `<rule>`; this renders a
 * listing with one directory of each kind and checks the text the docs
 * promise, phrase by phrase.
 *
 * @module
 */

import assert from "node:assert/strict";
import { callDirect, directContext, makeWorkspace } from "../helpers/fixtures.ts";
import { resultText } from "../helpers/results.ts";

Deno.test("docs: list_directory's (not searched: <rule>) is rendered as docs/tools.md says, for each kind of rule", async () => {
  await using ws = await makeWorkspace({
    ".git/HEAD": "ref: refs/heads/main\n",
    ".gitignore": "# generated\nout/\n",
    "out/x.c": "x\n",
    "node_modules/m.js": "x\n",
    ".cachedir/c.txt": "x\n",
    "src/a.c": "x\n",
  });
  const ctx = directContext(ws.root);
  const result = await callDirect(ctx, "list_directory", { include_hidden: true });
  assert.ok(!("invalidParams" in result), JSON.stringify(result));
  const text = resultText(result);
  const docs = await Deno.readTextFile(new URL("../../docs/tools.md", import.meta.url));
  const expected: [string, string][] = [
    ["out/  (not searched: .gitignore:2 out/)", "`source:line pattern`"],
    ["node_modules/  (not searched: generated or vendored tree)", "`generated or vendored tree`"],
    [".cachedir/  (not searched: hidden)", "`hidden`"],
  ];
  for (const [line, phrase] of expected) {
    assert.ok(text.includes(line), `listing lacks ${JSON.stringify(line)}:\n${text}`);
    assert.ok(docs.includes(phrase), `docs/tools.md lacks ${phrase}`);
  }
  assert.ok(docs.includes("`(not searched: <rule>)`"));
  assert.match(text, /^src\/$/m, "a walked directory carries no mark");
});
