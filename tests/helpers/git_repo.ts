/**
 * Test repositories: a temporary workspace with a real git repository in it,
 * built by running git with a clean environment (no user configuration),
 * fixed identities and dates, so commits are reproducible.
 *
 * @module
 */

import { join } from "node:path";
import { type FixtureEntry, makeWorkspace, type TempWorkspace } from "./fixtures.ts";

/** Runs git in `cwd` with a clean environment; throws on failure; returns stdout. */
export async function git(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    clearEnv: true,
    env: {
      PATH: "/usr/local/bin:/usr/bin:/bin",
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "Ada Tester",
      GIT_AUTHOR_EMAIL: "ada@example.test",
      GIT_COMMITTER_NAME: "Ada Tester",
      GIT_COMMITTER_EMAIL: "ada@example.test",
      GIT_AUTHOR_DATE: "2026-01-02T03:04:05+01:00",
      GIT_COMMITTER_DATE: "2026-01-02T03:04:05+01:00",
      ...env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(20_000),
  }).output();
  const dec = new TextDecoder();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")} failed: ${dec.decode(out.stderr)}`);
  }
  return dec.decode(out.stdout);
}

/** One commit of a test history: files to write (or `null` to delete), and a message. */
export interface FixtureCommit {
  readonly files: Record<string, string | null>;
  readonly message: string;
  /** Author date (ISO 8601); default a fixed date plus one day per commit. */
  readonly date?: string;
  readonly author?: string;
}

/** A temporary workspace holding a repository on branch `main`. */
export interface TempRepository extends TempWorkspace {
  /** Runs git in the repository (clean environment). */
  git(args: string[], env?: Record<string, string>): Promise<string>;
  /** Full SHA of `rev`. */
  sha(rev: string): Promise<string>;
}

/** Creates a workspace with `entries`, `git init -b main`, then `commits` in order. */
export async function makeRepository(
  commits: readonly FixtureCommit[],
  entries: Record<string, FixtureEntry> = {},
): Promise<TempRepository> {
  const ws = await makeWorkspace(entries);
  await git(ws.root, ["init", "-q", "-b", "main"]);
  let day = 1;
  for (const commit of commits) {
    for (const [path, content] of Object.entries(commit.files)) {
      const target = join(ws.root, path);
      if (content === null) await Deno.remove(target);
      else {
        await Deno.mkdir(join(target, ".."), { recursive: true });
        await Deno.writeTextFile(target, content);
      }
    }
    const date = commit.date ??
      new Date(Date.UTC(2026, 0, day++, 10)).toISOString().replace(".000Z", "+00:00");
    await git(ws.root, ["add", "-A"]);
    await git(ws.root, ["commit", "-q", "--allow-empty", "-m", commit.message], {
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
      ...(commit.author ? { GIT_AUTHOR_NAME: commit.author } : {}),
    });
  }
  return Object.assign(ws, {
    git: (args: string[], env?: Record<string, string>) => git(ws.root, args, env),
    sha: async (rev: string) => (await git(ws.root, ["rev-parse", rev])).trim(),
  });
}

/** Four commits on `main` touching `a.txt` and `src/b.txt`, tagged `v1` at the second. */
export async function makeSmallHistory(): Promise<TempRepository> {
  const repo = await makeRepository([
    { files: { "a.txt": "one\n" }, message: "first: add a" },
    { files: { "src/b.txt": "b1\n" }, message: "second: add b" },
    { files: { "a.txt": "one\ntwo\n" }, message: "third: grow a" },
    { files: { "src/b.txt": "b2\n" }, message: "fourth: change b" },
  ]);
  await repo.git(["tag", "v1", "HEAD~2"]);
  return repo;
}

/** A shaped tool result as tests read it (a -32602 case fails the test). */
export interface Shaped {
  isError?: boolean;
  content?: unknown[];
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** Asserts `result` is a shaped result (not a -32602 case) and returns it. */
export function shaped(result: unknown): Shaped {
  if (result && typeof result === "object" && "invalidParams" in result) {
    throw new Error(
      `expected a tool result, got -32602: ${(result as { invalidParams: string }).invalidParams}`,
    );
  }
  return result as Shaped;
}

/** The `structuredContent` of a successful result (fails on a refusal). */
export function structured<T = Record<string, unknown>>(result: unknown): T {
  const r = shaped(result);
  if (r.isError) throw new Error(`expected success, got: ${JSON.stringify(r.content)}`);
  return r.structuredContent as T;
}
