import assert from "node:assert/strict";
import { shellWords } from "../../src/conform/shell_words.ts";

Deno.test("shellWords: splits like a POSIX shell, expanding nothing", () => {
  assert.deepEqual(shellWords("deno run -A server.ts"), ["deno", "run", "-A", "server.ts"]);
  assert.deepEqual(shellWords("  a\t b \n c  "), ["a", "b", "c"]);
  assert.deepEqual(shellWords(`a 'b c' "d e"`), ["a", "b c", "d e"]);
  assert.deepEqual(shellWords(`say 'it''s' "x\\"y" a\\ b`), ["say", "its", 'x"y', "a b"]);
  assert.deepEqual(shellWords(`"$HOME" '*' \\$x`), ["$HOME", "*", "$x"]);
  assert.deepEqual(shellWords(`"a\\nb" 'a\\b'`), ["a\\nb", "a\\b"]);
  assert.deepEqual(shellWords(`x "" ''`), ["x", "", ""]);
  assert.deepEqual(shellWords(`pre"mid"'post'`), ["premidpost"]);
  assert.deepEqual(shellWords(""), []);
});

Deno.test("shellWords: an unterminated quote or a trailing backslash is an error", () => {
  assert.throws(() => shellWords(`a 'b`), /unterminated single quote/);
  assert.throws(() => shellWords(`a "b`), /unterminated double quote/);
  assert.throws(() => shellWords(`a \\`), /trailing backslash/);
});
