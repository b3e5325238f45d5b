/**
 * The repository the git tools read: the one whose `.git` is at the
 * workspace root, checked to keep its history inside the workspace before
 * git is asked anything, and the few questions asked of it before a log or
 * a diff (which commit a revision names, the merge base of a range, which
 * filter drivers its configuration defines).
 *
 * A workspace that is only a sub-folder of a larger repository is refused
 * (`not_a_repository`; ADR-029): `GIT_CEILING_DIRECTORIES` keeps git from
 * finding the enclosing repository, and this module looks only at the root.
 *
 * @module
 */

import { isAbsolute, join, resolve as resolvePath } from "node:path";
import { ToolRefusal } from "../contract/refusal.ts";
import type { StopSignal } from "../contract/stop.ts";
import { quoteName, workspacePhrase } from "../contract/text.ts";
import { CappedOutput, type GitRun, GitRunner } from "./git.ts";
import { filterOverrides } from "./git_environment.ts";
import { isWithin } from "./resolve.ts";

/** The refusals opening a repository and resolving revisions can produce. */
export const GIT_REFUSALS = [
  "not_a_repository",
  "unsafe_repository",
  "bad_revision",
  "git_unavailable",
  "git_failed",
] as const;

/** How long before the call's budget the git child is killed, at most. */
const DEADLINE_MARGIN_MS = 1_000;

/** The `Date.now()` at which a call that starts now must have stopped git. */
export function gitDeadline(timeoutMs: number, now: number = Date.now()): number {
  return now + timeoutMs - Math.min(DEADLINE_MARGIN_MS, Math.floor(timeoutMs / 5));
}

/** A checked repository at the workspace root, for one call. */
export class GitRepository {
  readonly runner: GitRunner;
  readonly stop: StopSignal;
  readonly deadline: number;
  readonly #ws: string;

  constructor(runner: GitRunner, stop: StopSignal, deadline: number) {
    this.runner = runner;
    this.stop = stop;
    this.deadline = deadline;
    this.#ws = workspacePhrase(runner.workspaceName);
  }

  /**
   * Checks the repository's layout (see {@linkcode checkRepositoryLayout}),
   * then returns it.
   */
  static open(runner: GitRunner, stop: StopSignal, deadline: number): GitRepository {
    checkRepositoryLayout(runner.root, workspacePhrase(runner.workspaceName));
    return new GitRepository(runner, stop, deadline);
  }

  /**
   * The full SHA of the commit `rev` names, resolved once with
   * `git rev-parse --verify --end-of-options <rev>^{commit}`, or `null`
   * when it names none. `rev` has passed the revision pattern.
   */
  async commitOf(rev: string): Promise<string | null> {
    const out = new CappedOutput(4096);
    const run = await this.run(
      ["rev-parse", "--verify", "--quiet", "--end-of-options", `${rev}^{commit}`],
      out,
    );
    const sha = new TextDecoder().decode(out.bytes()).trim();
    if (run.code !== 0 || !/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(sha)) {
      this.#failIfNotRepository(run);
      return null;
    }
    return sha;
  }

  /** Like {@linkcode commitOf}, but an unknown revision is a `bad_revision` refusal. */
  async requireCommit(rev: string, given: string = rev): Promise<string> {
    const sha = await this.commitOf(rev);
    if (sha === null) {
      throw new ToolRefusal(
        "bad_revision",
        `The revision ${quoteName(given)} does not name a commit in the ${this.#ws}.`,
      );
    }
    return sha;
  }

  /** The merge base of two resolved commits (the first, if there are several). */
  async mergeBase(a: string, b: string, given: string): Promise<string> {
    const out = new CappedOutput(4096);
    const run = await this.run(["merge-base", "--end-of-options", a, b], out);
    const sha = new TextDecoder().decode(out.bytes()).trim().split("\n")[0];
    if (run.code !== 0 || !/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(sha)) {
      throw new ToolRefusal(
        "bad_revision",
        `The range ${quoteName(given)} has no merge base in the ${this.#ws}.`,
      );
    }
    return sha;
  }

  /**
   * The configuration overrides that switch off every content filter the
   * repository's configuration (includes followed) defines: needed before
   * any diff that reads the working tree, which would run them.
   */
  async filterOverrides(): Promise<[string, string][]> {
    const out = new CappedOutput(1024 * 1024, 0);
    const run = await this.run(["config", "--null", "--name-only", "--list"], out);
    if (out.capped || (run.code !== 0 && run.code !== 1)) {
      throw this.failure(run, "its configuration could not be listed");
    }
    const names = new TextDecoder().decode(out.bytes()).split("\0").filter((n) => n !== "");
    return filterOverrides(names);
  }

  /** Runs git in this repository under the call's stop signal and deadline. */
  run(
    args: readonly string[],
    out: { consume: CappedOutput["consume"] },
    overrides: readonly (readonly [string, string])[] = [],
    explicitPathspecs = false,
  ): Promise<GitRun> {
    return this.runner.run(args, out.consume, {
      stop: this.stop,
      deadline: this.deadline,
      overrides,
      explicitPathspecs,
    });
  }

  /**
   * The refusal for a git run that failed: the stop reason when it was
   * stopped, `not_a_repository` / `unsafe_repository` when git says so, else
   * `git_failed`. git's own message is never echoed (it can name paths).
   */
  failure(run: GitRun, what: string): ToolRefusal {
    if (run.killed === "cancelled" || run.killed === "timed_out") {
      return new ToolRefusal(
        run.killed,
        `git was stopped: the call was ${run.killed.replace("_", " ")}.`,
      );
    }
    if (run.killed === "deadline") {
      return new ToolRefusal("timed_out", "git ran up to the call's time budget and was stopped.");
    }
    this.#failIfNotRepository(run);
    return new ToolRefusal("git_failed", `git failed in the ${this.#ws}: ${what}.`);
  }

  #failIfNotRepository(run: GitRun): void {
    if (run.killed !== undefined && run.killed !== "enough") throw this.failure(run, "stopped");
    if (/not a git repository/i.test(run.stderr)) throw notARepository(this.#ws);
    if (/dubious ownership|unsafe repository/i.test(run.stderr)) {
      throw new ToolRefusal(
        "unsafe_repository",
        `The repository in the ${this.#ws} belongs to another user; git refuses to read it.`,
      );
    }
  }
}

function notARepository(ws: string): ToolRefusal {
  return new ToolRefusal(
    "not_a_repository",
    `There is no git repository at the root of the ${ws} (an enclosing repository is not used).`,
  );
}

/**
 * Checks, with the tool worker's own (workspace-scoped) reads, that the
 * repository keeps its history inside the workspace. git follows all of
 * these wherever they lead, outside Deno's read grant:
 *
 * - `.git` must exist (else `not_a_repository`). A `.git` file
 *   (`gitdir: …`) or a `.git` symlink must lead inside the workspace;
 * - the git directory must hold `HEAD`;
 * - `commondir` (a linked worktree's shared directory) must lead inside;
 * - every line of `objects/info/alternates` must lead inside;
 * - no symlink among the entries of the git directory, `objects/`,
 *   `objects/info/`, `objects/pack/` or `refs/` may lead outside.
 *
 * Anything leading outside, or that cannot be read to tell, is
 * `unsafe_repository`.
 */
export function checkRepositoryLayout(root: string, ws: string): string {
  const unsafe = (what: string) =>
    new ToolRefusal(
      "unsafe_repository",
      `The repository in the ${ws} keeps ${what} outside the workspace (or where it cannot be checked).`,
    );
  const dotGit = join(root, ".git");
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(dotGit);
  } catch {
    throw notARepository(ws);
  }
  let gitDir = dotGit;
  if (info.isSymlink) {
    gitDir = insideOrNull(root, dotGit) ?? (() => {
      throw unsafe("its .git (a link)");
    })();
  } else if (info.isFile) {
    let text: string;
    try {
      text = Deno.readTextFileSync(dotGit);
    } catch {
      throw unsafe("its git directory (.git is a file that cannot be read)");
    }
    const match = text.match(/^gitdir: *(.+?)\s*$/m);
    if (!match) throw notARepository(ws);
    const target = isAbsolute(match[1]) ? match[1] : resolvePath(root, match[1]);
    gitDir = insideOrNull(root, target) ?? (() => {
      throw unsafe("its git directory (named by a .git file)");
    })();
  } else if (!info.isDirectory) {
    throw notARepository(ws);
  }
  try {
    Deno.lstatSync(join(gitDir, "HEAD"));
  } catch {
    throw notARepository(ws);
  }

  try {
    checkGitDirectory(root, gitDir, unsafe);
  } catch (error) {
    if (error instanceof ToolRefusal) throw error;
    throw unsafe("its git directory");
  }
  return gitDir;
}

/** The checks inside the git directory (see {@linkcode checkRepositoryLayout}). */
function checkGitDirectory(
  root: string,
  gitDir: string,
  unsafe: (what: string) => ToolRefusal,
): void {
  const commondir = readOptional(join(gitDir, "commondir"));
  let commonDir = gitDir;
  if (commondir !== null) {
    const line = commondir.trim();
    const target = isAbsolute(line) ? line : resolvePath(gitDir, line);
    commonDir = insideOrNull(root, target) ?? (() => {
      throw unsafe("its shared git directory (commondir)");
    })();
  }
  for (const dir of new Set([gitDir, commonDir])) {
    const objects = join(dir, "objects");
    const alternates = readOptional(join(objects, "info", "alternates"));
    if (alternates !== null) {
      for (const raw of alternates.split("\n")) {
        const line = raw.trim();
        if (line === "" || line.startsWith("#")) continue;
        const target = isAbsolute(line) ? line : resolvePath(objects, line);
        if (insideOrNull(root, target) === null) throw unsafe("objects (alternates)");
      }
    }
    for (
      const sub of [dir, objects, join(objects, "info"), join(objects, "pack"), join(dir, "refs")]
    ) {
      if (!linksStayInside(root, sub)) throw unsafe("part of its git directory (a link)");
    }
  }
}

/** The real path of `path` when it exists and lies inside `root`, else `null`. */
function insideOrNull(root: string, path: string): string | null {
  try {
    const real = Deno.realPathSync(path);
    return isWithin(root, real) ? real : null;
  } catch {
    return null;
  }
}

/** A small file's text, or `null` when there is none (other errors are thrown). */
function readOptional(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** Whether every symlink directly in `dir` (when it is a directory) leads inside `root`. */
function linksStayInside(root: string, dir: string): boolean {
  const entries: Deno.DirEntry[] = [];
  try {
    if (!Deno.statSync(dir).isDirectory) return true;
    for (const entry of Deno.readDirSync(dir)) entries.push(entry);
  } catch (error) {
    return error instanceof Deno.errors.NotFound;
  }
  return entries.every((entry) =>
    !entry.isSymlink || insideOrNull(root, join(dir, entry.name)) !== null
  );
}
