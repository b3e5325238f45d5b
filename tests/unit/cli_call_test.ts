import assert from "node:assert/strict";
import { forTerminal } from "../../src/cli/call.ts";

Deno.test("call: an ANSI escape sequence in file text is shown, not sent to the terminal", () => {
  const shown = forTerminal("1\tok \x1b[2J\x1b]0;pwned\x07 done\n2\tnext");
  assert.equal(shown, "1\tok \\x1b[2J\\x1b]0;pwned\\x07 done\n2\tnext");
  assert.ok(!shown.includes("\x1b"));
});

Deno.test("call: newlines and tabs survive terminal escaping unchanged", () => {
  assert.equal(forTerminal("a\tb\nc\td\n"), "a\tb\nc\td\n");
});
