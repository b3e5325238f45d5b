/**
 * The one answer to "would a repository walk visit this entry, and if not,
 * why": asked by the walker (`walk.ts`) for every entry and by
 * `list_directory` for its `walkable` flag. In order: the denylist; the
 * skipped trees (generated and vendored directories, configurable; like
 * ripgrep's `--glob '!name/'` overrides they win over ignore files); the
 * ignore files (`ignore.ts`), whose whitelist rules keep even a hidden
 * entry; then hidden names (a leading dot), skipped unless asked for.
 *
 * @module
 */

import { closeSync, constants as fsConstants, fstatSync, openSync, readSync } from "node:fs";
import type { Denylist } from "./denylist.ts";
import {
  DirectoryIgnore,
  IgnoreFile,
  type IgnoreFileKind,
  type IgnoreLevel,
  type IgnoreRule,
  IgnoreStack,
} from "./ignore.ts";

/** Directories a walk skips by default: generated, vendored and cache trees. */
export const DEFAULT_SKIPPED_DIRS: readonly string[] = [
  "node_modules",
  "dist",
  "build",
  "target",
  "vendor",
  ".venv",
  "venv",
  "__pycache__",
  ".cache",
  ".gradle",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".next",
];

/** The largest ignore file read; a larger one is skipped (counted as an error). */
export const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/** The entry names {@linkcode WalkPolicy.readLevel} looks at: the ignore files and `.git` (each starts with a dot, which the walker tests first). */
export const IGNORE_LEVEL_NAMES: ReadonlySet<string> = new Set([
  ".rgignore",
  ".ignore",
  ".gitignore",
  ".git",
]);

/** How a walk treats ignore files and hidden names. */
export interface WalkPolicyOptions {
  /** Directory names never entered (exact names). Default {@linkcode DEFAULT_SKIPPED_DIRS}. */
  readonly skippedDirs?: readonly string[];
  /** Visit names that start with a dot. Default false. */
  readonly includeHidden?: boolean;
  /** Honour `.gitignore`, `.ignore`, `.rgignore` and `.git/info/exclude`. Default true. */
  readonly ignoreFiles?: boolean;
  /**
   * Apply `.gitignore` and `.git/info/exclude` only inside a git repository
   * (a `.git` in the directory or one above it, within the workspace), as
   * ripgrep does. Default true.
   */
  readonly requireGit?: boolean;
}

/** Why an entry is not walked. */
export type SkipReason = "denied" | "skipped_dir" | "ignored" | "hidden";

/** The policy's answer for one entry. */
export type WalkVerdict =
  | { readonly walk: true; readonly rule?: IgnoreRule }
  | { readonly walk: false; readonly reason: SkipReason; readonly rule?: IgnoreRule };

const WALK: WalkVerdict = { walk: true };
const DENIED: WalkVerdict = { walk: false, reason: "denied" };
const SKIPPED: WalkVerdict = { walk: false, reason: "skipped_dir" };
const HIDDEN: WalkVerdict = { walk: false, reason: "hidden" };

const OPEN_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) |
  (fsConstants.O_NOFOLLOW ?? 0);

/** The walk policy of one workspace. */
export class WalkPolicy {
  readonly denylist: Denylist;
  readonly skippedDirs: ReadonlySet<string>;
  readonly includeHidden: boolean;
  readonly ignoreFiles: boolean;
  readonly requireGit: boolean;

  constructor(denylist: Denylist, options: WalkPolicyOptions = {}) {
    this.denylist = denylist;
    this.skippedDirs = new Set(options.skippedDirs ?? DEFAULT_SKIPPED_DIRS);
    this.includeHidden = options.includeHidden ?? false;
    this.ignoreFiles = options.ignoreFiles ?? true;
    this.requireGit = options.requireGit ?? true;
  }

  /** This policy with other options (the denylist is kept). */
  with(options: WalkPolicyOptions): WalkPolicy {
    return new WalkPolicy(this.denylist, {
      skippedDirs: options.skippedDirs ?? [...this.skippedDirs],
      includeHidden: options.includeHidden ?? this.includeHidden,
      ignoreFiles: options.ignoreFiles ?? this.ignoreFiles,
      requireGit: options.requireGit ?? this.requireGit,
    });
  }

  /**
   * Whether the entry `name` at workspace-relative `path` is walked, given
   * the ignore stack of its directory. The deciding ignore rule travels
   * with the answer. The same answer as {@linkcode inDirectory}'s, which a
   * walk uses to compile the rules once per directory.
   */
  verdict(stack: IgnoreStack, path: string, name: string, isDir: boolean): WalkVerdict {
    // The folder matters too: path patterns (`gh/hosts.yml`) deny a name only in its folder.
    const slash = path.lastIndexOf("/");
    const parent = slash < 0 ? "" : path.slice(0, slash);
    let last = this.#last;
    if (last === undefined || last.stack !== stack || last.dir !== parent) {
      last = { stack, dir: parent, policy: this.inDirectory(stack, parent) };
      this.#last = last;
    }
    return last.policy.verdict(name, isDir);
  }

  /** The last directory {@linkcode verdict} was asked about (a listing asks one many times). */
  #last: { stack: IgnoreStack; dir: string; policy: DirectoryPolicy } | undefined;

  /**
   * The policy for the entries of directory `dir` (workspace-relative),
   * whose ignore stack is `stack`: the ignore rules that can match there are
   * found once ({@linkcode IgnoreStack.inDirectory}), and each entry is then
   * decided from its name.
   */
  inDirectory(stack: IgnoreStack, dir: string): DirectoryPolicy {
    return new DirectoryPolicy(
      this,
      dir,
      this.ignoreFiles ? stack.inDirectory(dir, this.requireGit) : DirectoryIgnore.NONE,
    );
  }

  /**
   * The ignore level of directory `absolute` (workspace-relative `relative`)
   * whose entry names are `names`: the ignore files it holds, read now.
   * Returns the number of ignore files that could not be read alongside.
   */
  readLevel(absolute: string, relative: string, names: ReadonlySet<string>): {
    level: IgnoreLevel;
    errors: number;
  } {
    const hasGit = names.has(".git");
    const files: Partial<Record<IgnoreFileKind, IgnoreFile>> = {};
    let errors = 0;
    if (this.ignoreFiles) {
      const prefix = relative === "" ? "" : relative + "/";
      const read = (kind: IgnoreFileKind, file: string, source: string) => {
        const text = readSmallText(absolute + "/" + file);
        if (text === undefined) errors++;
        else files[kind] = new IgnoreFile(text, prefix + source);
      };
      for (const kind of [".rgignore", ".ignore", ".gitignore"] as const) {
        if (names.has(kind)) read(kind, kind, kind);
      }
      if (hasGit) {
        // Absent in most repositories (and in a worktree, where `.git` is a file): no error.
        const text = readSmallText(absolute + "/.git/info/exclude");
        if (text) files["info/exclude"] = new IgnoreFile(text, prefix + ".git/info/exclude");
      }
    }
    return { level: { dir: relative, hasGit, files }, errors };
  }

  /**
   * The ignore stack in force inside directory `relative` of the workspace
   * at `root`, read from the root down, and the first directory on the way
   * that a walk from the root would not enter (with why), if any.
   */
  stackFor(root: string, relative: string): { stack: IgnoreStack; blocked?: WalkVerdict } {
    let stack = IgnoreStack.EMPTY;
    let dir = "";
    const components = relative === "" ? [] : relative.split("/");
    for (let i = 0;; i++) {
      const absolute = dir === "" ? root : root + "/" + dir;
      let names: Set<string>;
      try {
        names = new Set(Array.from(Deno.readDirSync(absolute), (e) => e.name));
      } catch {
        return { stack };
      }
      stack = stack.push(this.readLevel(absolute, dir, names).level);
      if (i === components.length) return { stack };
      const name = components[i];
      const next = dir === "" ? name : dir + "/" + name;
      const verdict = this.verdict(stack, next, name, true);
      if (!verdict.walk) return { stack, blocked: verdict };
      dir = next;
    }
  }
}

/** The walk policy applied to the entries of one directory ({@linkcode WalkPolicy.inDirectory}). */
export class DirectoryPolicy {
  readonly #policy: WalkPolicy;
  readonly #dir: string;
  readonly #ignore: DirectoryIgnore;

  constructor(policy: WalkPolicy, dir: string, ignore: DirectoryIgnore) {
    this.#policy = policy;
    this.#dir = dir;
    this.#ignore = ignore;
  }

  /**
   * Whether the entry `name` of this directory is walked: the denylist, the
   * skipped trees, the ignore files (whose whitelist rules keep even a
   * hidden entry), then hidden names.
   */
  verdict(name: string, isDir: boolean): WalkVerdict {
    const policy = this.#policy;
    if (policy.denylist.deniesEntry(this.#dir, name)) return DENIED;
    if (isDir && policy.skippedDirs.has(name)) return SKIPPED;
    const match = this.#ignore.match(name, isDir);
    if (match !== undefined) {
      return match.ignored
        ? { walk: false, reason: "ignored", rule: match.rule }
        : { walk: true, rule: match.rule };
    }
    if (!policy.includeHidden && name.charCodeAt(0) === 0x2e) return HIDDEN;
    return WALK;
  }
}

/** Reads a small regular file as UTF-8 without following a final link; `undefined` when it cannot. */
function readSmallText(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > MAX_IGNORE_FILE_BYTES) return undefined;
    const buffer = new Uint8Array(info.size + 1);
    let total = 0;
    while (total < buffer.length) {
      const n = readSync(fd, buffer, total, buffer.length - total, null);
      if (n === 0) break;
      total += n;
    }
    if (total > info.size) return undefined;
    return new TextDecoder().decode(buffer.subarray(0, total));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
