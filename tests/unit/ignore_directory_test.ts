/**
 * The per-directory ignore matcher (`IgnoreFile.inDirectory`,
 * `IgnoreStack.inDirectory`) narrows a file's path globs to those that can
 * match an entry of the directory, once per directory (ADR-069). That is an
 * optimisation only: for every path, the answer must be the one a plain
 * reading of the rules gives — the last rule whose whole glob matches the
 * whole relative path (dir-only rules on directories only). These tests
 * compare the two on generated rules and paths, and on the shapes the
 * narrowing has to get right (leading components, `**`, classes, braces,
 * escapes, exact depth). The ripgrep comparisons of the rule precedence are
 * in walk_ripgrep_test.ts, which walks through the same matcher.
 *
 * @module
 */

import assert from "node:assert/strict";
import { globToRegExpSource, IgnoreFile } from "../../src/access/ignore.ts";

/** The plain reading: the glob each line stands for, tried on the whole path, last rule first. */
function reference(lines: readonly string[], path: string, isDir: boolean): number | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const parsed = parse(lines[i]);
    if (parsed === undefined) continue;
    if (parsed.dirOnly && !isDir) continue;
    // A glob without any other "/" matches a name at any depth: it is tried on the name.
    const onName = parsed.glob.startsWith("**/") && !parsed.glob.slice(3).includes("/");
    let re: RegExp;
    try {
      re = new RegExp(globToRegExpSource(onName ? parsed.glob.slice(3) : parsed.glob), "s");
    } catch {
      continue;
    }
    if (re.test(onName ? path.slice(path.lastIndexOf("/") + 1) : path)) return i + 1;
  }
  return undefined;
}

/** gitignore line → glob, as the module documents it (written again here, simply). */
function parse(raw: string): { glob: string; dirOnly: boolean } | undefined {
  let line = raw.trimEnd();
  if (line === "" || line.startsWith("#")) return undefined;
  if (line.startsWith("!")) line = line.slice(1);
  let anchored = false;
  if (line.startsWith("/")) {
    line = line.slice(1);
    anchored = true;
  }
  let dirOnly = false;
  if (line.endsWith("/")) {
    dirOnly = true;
    line = line.slice(0, -1);
  }
  let glob = line;
  if (!anchored && !line.includes("/") && !line.startsWith("**/")) glob = "**/" + glob;
  if (glob.endsWith("/**")) glob += "/*";
  return { glob, dirOnly };
}

function check(lines: readonly string[], paths: readonly string[]): void {
  const file = new IgnoreFile(lines.join("\n"), ".gitignore");
  for (const path of paths) {
    for (const isDir of [false, true]) {
      const name = path.slice(path.lastIndexOf("/") + 1);
      const got = file.match(path, name, isDir)?.rule.line;
      assert.equal(got, reference(lines, path, isDir), `${path} (dir: ${isDir}) under ${lines}`);
    }
  }
}

const PATHS = [
  "a",
  "b.c",
  "a/b",
  "a/b.c",
  "a/x/b.c",
  "a/x/y/b.c",
  "src/a/b",
  "src/gen/out.o",
  "arch/x86/include/generated/asm.h",
  "arch/arm/include/generated",
  "arch/include/generated/x",
  "doc/{x}/y",
  "doc/x/y",
  "x/y/z/w/v",
  "a+b/c",
  "a,b/c",
  "q/a/b/c",
];

Deno.test("ignore per directory: anchored globs with leading components match as on the whole path", () => {
  check(
    [
      "/arch/*/include/generated/",
      "arch/*/include/generated/*.h",
      "/src/*/out.?",
      "a/*",
      "/a/*/b.c",
      "a/**/b.c",
      "!a/x/**",
      "/x/*/z/**/v",
      "q/**",
    ],
    PATHS,
  );
});

Deno.test("ignore per directory: globs the narrowing cannot split are tried on every entry", () => {
  check(
    [
      // A class whose range holds "/" ('+' .. '0'); an escaped "/"; a "/" between braces.
      "a[+-0]b/c",
      "a[+-0]b",
      "doc\\/x/y",
      "{doc/x,q/a}/y",
      "doc/{x,\\{x\\}}/y",
      "{a,q}/*/b",
    ],
    [...PATHS, "a/b/c", "q/a/y"],
  );
});

Deno.test("ignore per directory: exact depth without **, any depth with it", () => {
  check(["/*/*", "*/*/*/*/v", "x/**/v", "**/y/*", "/**/b.c", "a/x/*/**"], PATHS);
});

Deno.test("ignore per directory: generated rules and paths agree with the plain reading", () => {
  // A small deterministic generator (no Math.random: a failure must reproduce).
  let seed = 0x2545f491;
  const next = (n: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const atoms = ["a", "b", "x", "*", "?", "*.c", "b.*", "**", "{a,x}", "[ab]", "[!a]", "y"];
  // Name globs that start with `*` and hold other wildcards share one `[^/]*` in the pre-test.
  atoms.push("*.[ch]", "*a?", "*.c.*", "x*");
  const names = ["a", "b", "x", "y", "b.c", "a.c", "ab", "x.h", "bab", "a.c.o", "xa.c"];
  for (let round = 0; round < 200; round++) {
    const lines: string[] = [];
    for (let r = 0; r < 6; r++) {
      const depth = 1 + next(3);
      const parts = Array.from({ length: depth }, () => atoms[next(atoms.length)]);
      let line = parts.join("/");
      if (next(3) === 0) line = "/" + line;
      if (next(4) === 0) line = "!" + line;
      if (next(4) === 0) line += "/";
      lines.push(line);
    }
    const paths: string[] = [];
    for (let p = 0; p < 12; p++) {
      const depth = 1 + next(4);
      paths.push(Array.from({ length: depth }, () => names[next(names.length)]).join("/"));
    }
    check(lines, paths);
  }
});
