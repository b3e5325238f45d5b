/**
 * Containment, the first layer: the one place a user's path string becomes
 * a filesystem path. The string is first read by the platform's path rules
 * (`path_semantics.ts`: separators, spellings refused outright). Every
 * component is resolved on the real filesystem (symlinks included, `..`
 * taken physically), and the result must be the
 * workspace root or lie under it by path components. Nothing else in the
 * program turns a string into a path. The result is then looked up once more
 * from the root and every directory on it recorded, for the check after the
 * open or read that no folder on the path was swapped during the call
 * (`Workspace` in `workspace.ts`).
 *
 * @module
 */

import { isAbsolute, relative as relativePath, sep } from "node:path";
import type { Denylist } from "./denylist.ts";
import {
  absoluteComponents,
  hazardRefusal,
  hostSemantics,
  type PathSemantics,
} from "./path_semantics.ts";
import { type RefusalCode, ToolRefusal } from "../contract/refusal.ts";
import { workspacePhrase } from "../contract/text.ts";

/** The refusals resolving a path can produce: every path-taking tool can answer these. */
export const PATH_REFUSALS = [
  "invalid_path",
  "outside_workspace",
  "denied_path",
  "not_found",
  "not_a_directory",
  "symlink_not_followed",
  "symlink_loop",
  "unreadable",
] as const satisfies readonly RefusalCode[];

export { PATH_LIMITS } from "./path_semantics.ts";

/** What containment knows about the workspace; fixed at start. */
export interface ContainmentPolicy {
  /** The workspace root with every symlink resolved. */
  readonly root: string;
  /** The workspace as configured (may differ from `root` by symlinks); absolute paths under it are accepted. */
  readonly configuredRoot: string;
  /** The folder name messages use for the workspace. */
  readonly workspaceName: string;
  /** Names never served. */
  readonly denylist: Denylist;
  /** Whether a symlink as the final component is followed (to an inside target only). */
  readonly followSymlinks: boolean;
  /**
   * How a requested path is read (separators, the spellings refused before
   * the filesystem is asked). Default: the host's ({@linkcode hostSemantics});
   * tests inject Windows and macOS semantics on any OS.
   */
  readonly semantics?: PathSemantics;
}

/** A path that passed containment: real, inside, not denied. */
export interface ResolvedPath {
  /** The real absolute path. Never shown to a client. */
  readonly absolute: string;
  /** The path relative to the root, `/`-separated; `""` is the root itself. */
  readonly relative: string;
  /** `lstat` of the real path (never a symlink). */
  readonly info: Deno.FileInfo;
  /**
   * Every directory from the root down to the parent of `absolute`, each
   * `lstat`ed before the entry in it was looked up: what a check after the
   * open or read compares against, to notice a directory on the path
   * swapped during the call (see {@linkcode pin}).
   */
  readonly ancestors: readonly Ancestor[];
  /** `Date.now()` just before the first of those `lstat`s. */
  readonly pinnedAt: number;
}

/** A directory on the way to a resolved path, as resolution saw it. */
export interface Ancestor {
  /** The directory's real absolute path. */
  readonly path: string;
  readonly dev: number;
  readonly ino: number | null;
}

/** Whether `candidate` is `root` or lies under it, compared by whole path components. */
export function isWithin(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const rel = relativePath(root, candidate);
  return rel !== "" && !isAbsolute(rel) && rel !== ".." && !rel.startsWith(".." + sep);
}

/**
 * Resolves `userPath` inside the workspace, or throws a {@linkcode ToolRefusal}.
 * `""` and `"."` are the root. Absolute paths are accepted only when they name
 * a place under the workspace.
 */
export function resolveInWorkspace(policy: ContainmentPolicy, userPath: string): ResolvedPath {
  const refuse = (code: ConstructorParameters<typeof ToolRefusal>[0], message: string) =>
    new ToolRefusal(code, message);
  const ws = workspacePhrase(policy.workspaceName);
  const semantics = policy.semantics ?? hostSemantics();
  // Malformed and platform-ambiguous spellings are refused before anything
  // else (the rules and their order: `REQUEST_RULES` in path_semantics.ts).
  const verdict = semantics.checkRequestedPath(userPath);
  if (!verdict.ok) throw new ToolRefusal(verdict.code, verdict.message);

  let components: readonly string[] = verdict.components;
  if (verdict.volume !== undefined) {
    // The root must be a literal prefix of the given components (volume
    // first), and the rest is walked like a relative path: `..` after it
    // stays physical (never normalised away lexically, which would skip the
    // symlink it follows).
    const given = [verdict.volume, ...verdict.components];
    const base = [policy.root, policy.configuredRoot]
      .map((r) => absoluteComponents(semantics, r))
      .find((prefix) => prefix !== undefined && prefix.every((c, i) => c === given[i]));
    if (base === undefined) {
      throw refuse("outside_workspace", `That absolute path is not inside the ${ws}.`);
    }
    components = given.slice(base.length);
  }

  let current = policy.root;
  // The path as given so far (`..` taken lexically): a path pattern such as
  // `gh/hosts.yml` is denied whether the folders it names are real or links.
  const given: string[] = [];
  // While the walk goes down from the root through real directories only (no `..`, no link
  // followed), its own `lstat`s are the ones `pin` would make, in the same order: each
  // directory examined before the entry in it is looked up. They are recorded as they come,
  // and `pin` runs only for a path that took a link or a `..` (ADR-099).
  let plain = true;
  let pinnedAt = 0;
  const ancestors: Ancestor[] = [];
  /** The `lstat` of `current` while the walk is plain; the root's is taken before its entry. */
  let info: Deno.FileInfo | undefined;
  for (let i = 0; i < components.length; i++) {
    const component = components[i];
    const last = i === components.length - 1;
    if (component === "..") {
      if (current === policy.root) {
        throw refuse("outside_workspace", `The path climbs above the ${ws}.`);
      }
      current = current.slice(0, current.lastIndexOf(sep)) || sep;
      given.pop();
      plain = false;
      continue;
    }
    // Denied entries are refused before the filesystem is asked (the folder
    // so far, as given and as resolved, and the name decide it), and a link
    // is refused as soon as it leads into a denied place: whether something
    // exists under a denied name is never told apart from "denied". The two
    // folders are one string on a path without links: asked once then.
    const asGiven = given.join("/");
    const asResolved = relativeOf(policy.root, current);
    if (
      policy.denylist.deniesEntry(asGiven, component) ||
      (asResolved !== asGiven && policy.denylist.deniesEntry(asResolved, component))
    ) {
      throw refuse("denied_path", `That path is on the denylist of the ${ws}.`);
    }
    // An 8.3 short name (`GIT~1`) may alias another entry's long name: it is
    // taken only when the folder lists it as a long name itself. Asked after
    // the denylist, so a denied name is `denied_path` whether it exists or not.
    if (semantics.mayAlias(component) && !listsName(current, component, ws)) {
      const short = hazardRefusal("short_name");
      throw refuse(short.code, short.message);
    }
    given.push(component);
    const next = current === sep ? sep + component : current + sep + component;
    if (plain && info === undefined) {
      pinnedAt = Date.now();
      info = lstatOrRefuse(current, ws);
      plain = info.isDirectory;
    }
    if (plain) ancestors.push({ path: current, dev: info!.dev, ino: info!.ino });
    info = lstatOrRefuse(next, ws);
    if (!info.isSymlink) {
      if (!last && !info.isDirectory) {
        throw refuse("not_a_directory", `A component of the path is not a directory in the ${ws}.`);
      }
      current = next;
      continue;
    }
    plain = false;
    if (last && !policy.followSymlinks) {
      throw refuse(
        "symlink_not_followed",
        `The path names a symbolic link, and links are not followed in the ${ws}.`,
      );
    }
    const target = realPathOrRefuse(next, ws);
    if (!isWithin(policy.root, target)) {
      throw refuse("outside_workspace", `The path leads through a link to outside the ${ws}.`);
    }
    if (policy.denylist.deniesPath(relativeOf(policy.root, target))) {
      throw refuse("denied_path", `That path is on the denylist of the ${ws}.`);
    }
    current = target;
  }

  const relative = relativeOf(policy.root, current);
  if (policy.denylist.deniesPath(relative)) {
    throw refuse("denied_path", `That path is on the denylist of the ${ws}.`);
  }
  if (plain && info !== undefined) {
    return { absolute: current, relative, info, ancestors, pinnedAt };
  }
  const pinnedAgainAt = Date.now();
  const pinned = pin(policy.root, current, ws);
  return { absolute: current, relative, ...pinned, pinnedAt: pinnedAgainAt };
}

/**
 * `absolute` (the root or a place under it) as a `/`-separated workspace-relative path.
 * A path the walk built (the root, a separator, then names none of which is empty, `.` or
 * `..`) is the rest after the root as it is: `path.relative`, which normalises both sides,
 * would answer the same at several times the cost, and it ran once per component and once
 * at the end of every resolution. Anything else takes `path.relative`.
 */
export function relativeOf(root: string, absolute: string): string {
  if (absolute === root) return "";
  const prefix = root.endsWith(sep) ? root : root + sep;
  if (absolute.startsWith(prefix)) {
    const names = absolute.slice(prefix.length).split(sep);
    if (names.every((name) => name !== "" && name !== "." && name !== "..")) {
      return names.join("/");
    }
  }
  return relativePath(root, absolute).split(sep).join("/");
}

/**
 * Looks the resolved path up once more from the root, a component at a
 * time, recording each directory before the entry in it is looked up. The
 * walk above is not atomic: a directory it examined may since have been
 * swapped for a link, and every later `lstat` follows whatever the path holds
 * at that moment. Here each directory must still be one (a link now is a
 * change), and what is recorded lets the caller check, after its open or
 * read, that the path still runs through the same directories.
 */
function pin(
  root: string,
  absolute: string,
  ws: string,
): { info: Deno.FileInfo; ancestors: Ancestor[] } {
  const ancestors: Ancestor[] = [];
  let path = root;
  if (absolute !== root) {
    for (const component of relativePath(root, absolute).split(sep)) {
      const dir = lstatOrRefuse(path, ws);
      if (!dir.isDirectory) throw changedDuringCall(ws);
      ancestors.push({ path, dev: dir.dev, ino: dir.ino });
      path = path === sep ? sep + component : path + sep + component;
    }
  }
  const info = lstatOrRefuse(path, ws);
  if (info.isSymlink) throw changedDuringCall(ws);
  return { info, ancestors };
}

/** The refusal for a path found changed during a call: a folder or file on it was swapped. */
export function changedDuringCall(ws: string): ToolRefusal {
  return new ToolRefusal(
    "unreadable",
    `The path changed while it was being read in the ${ws}.`,
    "Something replaced the file or a folder on its path during the call; retry it.",
  );
}

/** Whether the directory `dir` holds an entry spelled exactly `name` (as its long name). */
function listsName(dir: string, name: string, ws: string): boolean {
  try {
    for (const entry of Deno.readDirSync(dir)) if (entry.name === name) return true;
    return false;
  } catch (error) {
    throw refusalFor(error, ws);
  }
}

function lstatOrRefuse(path: string, ws: string): Deno.FileInfo {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    throw refusalFor(error, ws);
  }
}

function realPathOrRefuse(path: string, ws: string): string {
  try {
    return Deno.realPathSync(path);
  } catch (error) {
    throw refusalFor(error, ws);
  }
}

/** Maps a filesystem error to a refusal whose message names no path. */
export function refusalFor(error: unknown, ws: string): ToolRefusal {
  if (error instanceof ToolRefusal) return error;
  // node:fs (used to open files) reports errno codes rather than Deno's error classes.
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Deno.errors.NotFound || code === "ENOENT") {
    return new ToolRefusal("not_found", `Nothing exists at that path in the ${ws}.`);
  }
  if (error instanceof Deno.errors.NotADirectory) {
    return new ToolRefusal(
      "not_a_directory",
      `A component of the path is not a directory in the ${ws}.`,
    );
  }
  if (error instanceof Deno.errors.FilesystemLoop) {
    return new ToolRefusal("symlink_loop", `The path contains a symlink cycle in the ${ws}.`);
  }
  if (error instanceof Deno.errors.NotCapable) {
    return new ToolRefusal("outside_workspace", `That path is not inside the ${ws}.`);
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return new ToolRefusal("unreadable", `The operating system refused access in the ${ws}.`);
  }
  if (error instanceof Error && /name too long/i.test(error.message)) {
    return new ToolRefusal("invalid_path", "The path is too long for the filesystem.");
  }
  return new ToolRefusal("unreadable", `That path could not be read in the ${ws}.`);
}
