/**
 * The walker's file selection against ripgrep's own, on fixture trees that
 * each exercise ignore rules: `rg --files` runs on the same tree and the two
 * lists must be equal. ripgrep must be installed (`.ci/run` installs it);
 * without it these tests fail rather than skip.
 *
 * @module
 */

import assert from "node:assert/strict";
import { Walker } from "../../src/access/walk.ts";
import { directContext, type FixtureEntry, makeWorkspace } from "../helpers/fixtures.ts";

/** Files the walker yields under `root`, sorted; with no skipped trees unless `env` says so. */
export function walkerFiles(root: string, env: Record<string, string> = {}): string[] {
  const ctx = directContext(root, { MCP_SEARCH__SKIP_DIRS: "", ...env });
  const walker = new Walker(
    ctx.workspace.walkPolicy,
    ctx.workspace.policy.root,
    ctx.workspace.resolve(""),
  );
  const files: string[] = [];
  for (const event of walker.walk()) if (event.kind === "file") files.push(event.path);
  return files.sort();
}

/** `rg --files` under `root` (no configuration, no global ignore file), sorted. */
export async function ripgrepFiles(root: string, extra: string[] = []): Promise<string[]> {
  const out = await new Deno.Command("rg", {
    args: ["--files", "--no-config", "--no-ignore-global", ...extra],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.code === 0 || out.code === 1, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l !== "")
    .map((l) => l.replace(/^\.\//, "")).sort();
}

async function sameAsRipgrep(entries: Record<string, FixtureEntry>, expectSome: string[]) {
  await using ws = await makeWorkspace(entries);
  const ours = walkerFiles(ws.root);
  const theirs = await ripgrepFiles(ws.root);
  assert.deepEqual(ours, theirs);
  // The fixture means something: ripgrep keeps these and leaves others out.
  for (const path of expectSome) assert.ok(theirs.includes(path), `rg keeps ${path}`);
  assert.ok(theirs.length < Object.keys(entries).length, "some files are ignored");
}

const GIT = { ".git/HEAD": "ref: refs/heads/main\n", ".git/info/exclude": "" } as const;

Deno.test("walk = rg --files: basename, extension, anchored, dir-only and negated rules", async () => {
  await sameAsRipgrep({
    ...GIT,
    ".gitignore": [
      "# a comment",
      "*.log",
      "!keep.log",
      "build/",
      "/root-only.txt",
      "logs/",
      "\\#hash.txt",
      "trailing.txt   ",
      "[abc].c",
      "*.{x,y}",
      "*~",
      "",
    ].join("\n"),
    "a.log": "x",
    "keep.log": "x",
    "sub/b.log": "x",
    "sub/keep.log": "x",
    "build/out.js": "x",
    "sub/build/out.js": "x",
    "root-only.txt": "x",
    "sub/root-only.txt": "x",
    "logs": "a file named like a dir-only rule",
    "sub/logs/x.txt": "x",
    "#hash.txt": "x",
    "trailing.txt": "x",
    "a.c": "x",
    "d.c": "x",
    "f.x": "x",
    "f.y": "x",
    "f.z": "x",
    "backup~": "x",
    "main.ts": "x",
  }, ["keep.log", "sub/keep.log", "sub/root-only.txt", "logs", "d.c", "f.z", "main.ts"]);
});

Deno.test("walk = rg --files: ** forms, paths with slashes, and /** suffixes", async () => {
  await sameAsRipgrep({
    ...GIT,
    ".gitignore": [
      "doc/**/*.tmp",
      "**/gen",
      "a/**/b.txt",
      "lib/x.txt",
      "out/**",
      "!out/keep.txt",
      "deep/*/leaf.txt",
      "",
    ].join("\n"),
    "doc/a.tmp": "x",
    "doc/z/y/a.tmp": "x",
    "other/doc/a.tmp": "x",
    "gen/x.ts": "x",
    "p/q/gen/x.ts": "x",
    "a/b.txt": "x",
    "a/m/n/b.txt": "x",
    "z/a/b.txt": "x",
    "lib/x.txt": "x",
    "sub/lib/x.txt": "x",
    "out/o.txt": "x",
    "out/keep.txt": "x",
    "out/deeper/o.txt": "x",
    "deep/one/leaf.txt": "x",
    "deep/one/two/leaf.txt": "x",
    "keep.ts": "x",
  }, ["other/doc/a.tmp", "z/a/b.txt", "sub/lib/x.txt", "out/keep.txt", "deep/one/two/leaf.txt"]);
});

Deno.test("walk = rg --files: nested .gitignore files are scoped to their directory; a child re-includes", async () => {
  await sameAsRipgrep({
    ...GIT,
    ".gitignore": "*.gen\n/top.txt\n",
    "sub/.gitignore": "*.txt\n!important.gen\n/local\n",
    "top.txt": "x",
    "other/top.txt": "x",
    "sub/a.txt": "x",
    "sub/deeper/b.txt": "x",
    "sub/important.gen": "x",
    "sub/x.gen": "x",
    "sub/local/f.rs": "x",
    "sub/deeper/local/f.rs": "x",
    "c.txt": "x",
  }, ["other/top.txt", "sub/important.gen", "sub/deeper/local/f.rs", "c.txt"]);
});

Deno.test("walk = rg --files: outside a git repository .gitignore is not honoured, .ignore and .rgignore are", async () => {
  await sameAsRipgrep({
    ".gitignore": "*.a\n",
    ".ignore": "*.b\n*.c\n",
    ".rgignore": "!*.c\n*.d\n",
    "x.a": "x",
    "x.b": "x",
    "x.c": "x",
    "x.d": "x",
    "x.e": "x",
  }, ["x.a", "x.c", "x.e"]);
});

Deno.test("walk = rg --files: precedence .rgignore > .ignore > .gitignore > .git/info/exclude, deeper first within a kind", async () => {
  await sameAsRipgrep({
    ".git/HEAD": "ref: refs/heads/main\n",
    ".git/info/exclude": "*.ex\n!*.gi\n",
    ".gitignore": "*.gi\n!*.ig\n",
    ".ignore": "*.ig\n",
    "sub/.gitignore": "!*.gi\n",
    "a.ex": "x",
    "a.gi": "x",
    "a.ig": "x",
    "sub/b.gi": "x",
    "sub/b.ig": "x",
    "sub/b.ex": "x",
    "a.rs": "x",
  }, ["sub/b.gi", "a.rs"]);
});

Deno.test("walk = rg --files: hidden names are skipped, matching is case-sensitive, a nested repository stops parent .gitignore rules", async () => {
  await sameAsRipgrep({
    ...GIT,
    ".gitignore": "*.s\ninner-only.txt\n",
    ".hidden.txt": "x",
    ".hiddendir/x.txt": "x",
    "lower.s": "x",
    "UPPER.S": "x",
    "inner/.git/HEAD": "ref: refs/heads/main\n",
    "inner/inner-only.txt": "x",
    "inner/y.s": "x",
    "outer/inner-only.txt": "x",
  }, ["UPPER.S", "inner/inner-only.txt", "inner/y.s"]);
});

Deno.test("walk = rg --files with the same globs: skipped trees are skipped at any depth, files of that name are kept", async () => {
  await using ws = await makeWorkspace({
    "node_modules/p/index.js": "x",
    "src/vendor/lib.go": "x",
    "src/build": "a file named build",
    "target/debug/x": "x",
    "src/main.rs": "x",
  });
  const ours = walkerFiles(ws.root, { MCP_SEARCH__SKIP_DIRS: "node_modules,vendor,build,target" });
  const theirs = await ripgrepFiles(ws.root, ["-g", "!{node_modules,vendor,build,target}/"]);
  assert.deepEqual(ours, theirs);
  assert.deepEqual(ours, ["src/build", "src/main.rs"]);
});

Deno.test("attack: an ignore file with thousands of rules (literal paths, path globs, names) still selects what rg --files does", async () => {
  // The per-directory narrowing (ADR-069) indexes literal paths by folder and drops path globs
  // whose leading components cannot match: a wrong index or a dropped rule shows here.
  const rules: string[] = [];
  const entries: Record<string, FixtureEntry> = { ...GIT };
  for (let d = 0; d < 12; d++) {
    for (let f = 0; f < 12; f++) {
      entries[`d${d}/s${f % 3}/f${f}.txt`] = "x";
      entries[`d${d}/f${f}.c`] = "x";
    }
  }
  for (let i = 0; i < 3000; i++) {
    const d = i % 12, f = (i >> 4) % 12;
    switch (i % 6) {
      case 0:
        rules.push(`/d${d}/s${f % 3}/f${f}.txt`); // an anchored literal path
        break;
      case 1:
        rules.push(`d${d}/*/f${(f + 1) % 12}.*`); // a path glob with a literal first component
        break;
      case 2:
        rules.push(`!/d${d}/s*/f${f}.txt`); // a whitelist path glob
        break;
      case 3:
        rules.push(`/d${(d + 5) % 12}/**/never-${i}`); // a ** glob that matches nothing
        break;
      case 4:
        rules.push(`f${f}-${i}.c`); // a name that matches nothing
        break;
      default:
        rules.push(`d${d}/f${(f + 7) % 12}.c`); // a literal path below the root
    }
  }
  await sameAsRipgrep({ ...entries, ".gitignore": rules.join("\n") + "\n" }, [
    "d0/f0.c",
    "d10/s0/f0.txt",
  ]);
});
