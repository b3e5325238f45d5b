/**
 * The workspace as tools see it: the only object through which a tool
 * touches the filesystem. Paths go through {@linkcode resolveInWorkspace};
 * files are opened non-blocking and without following a final symlink, the
 * handle is checked to be a regular file and the very file resolution
 * examined (so nothing swapped in between is read), and sizes are capped
 * before and while reading. After a file is read or a directory listed, the
 * path is confirmed to still run through the directories resolution examined
 * (so nothing reached through a folder swapped during the call is returned).
 *
 * @module
 */

import {
  changedDuringCall,
  type ContainmentPolicy,
  isWithin,
  refusalFor,
  resolveInWorkspace,
} from "./resolve.ts";
import type { ResolvedPath } from "./resolve.ts";
import { ToolRefusal } from "../contract/refusal.ts";
import { workspacePhrase } from "../contract/text.ts";
import { type SkipReason, WalkPolicy } from "./walk_policy.ts";
import type { IgnoreRule } from "./ignore.ts";
import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  openSync,
  readSync,
  type Stats,
} from "node:fs";

/** How many bytes at the start of a file are scanned for NUL to call it binary. */
export const BINARY_SNIFF_BYTES = 8192;

/** Bytes read from a regular file, with what is worth reporting about it. */
export interface FileBytes {
  /** The file's bytes; empty when `reused` (they were not read). */
  readonly bytes: Uint8Array;
  /** The hard-link count; above 1 the same bytes are reachable by other names. */
  readonly linkCount: number;
  /**
   * The opened file's identity (device, inode, size, mtime, ctime, link count) when it
   * may key a cache of what was made from these bytes: its last change (`ctime`) ended
   * {@linkcode QUIET_MS} before the call began, the caller's `reuse` answered `"keep"`,
   * and it had not changed when the read ended. Absent otherwise (ADR-081).
   */
  readonly identity?: string;
  /** True when the caller's `reuse` answered `"reuse"`: nothing was read (ADR-081). */
  readonly reused?: boolean;
}

/** One entry of a directory, described without following links. */
export interface DirectoryEntry {
  readonly name: string;
  readonly type: "directory" | "file" | "symlink" | "other";
  /** Size in bytes for files; absent otherwise. */
  readonly size?: number;
  /** For symlinks: whether the target resolves to a place inside the workspace. */
  readonly linkTargetInside?: boolean;
  /** Whether a repository walk (search) would descend into this directory. */
  readonly walkable?: boolean;
  /** For directories not walked: why, and the ignore rule that decided it if one did. */
  readonly notWalked?: { readonly reason: SkipReason; readonly rule?: IgnoreRule };
}

/** A directory's entries, denied ones counted but not named. */
export interface DirectoryListing {
  readonly entries: DirectoryEntry[];
  readonly deniedCount: number;
  readonly hiddenCount: number;
  /**
   * Changes when entries are added, removed or renamed: guards pagination
   * cursors. Made from the sorted names alone (not the directory's mtime), so
   * two checkouts of the same tree agree and a cursor one instance issued is
   * redeemed by another (ADR-042).
   */
  readonly fingerprint: string;
}

/**
 * Open flags for reading. `Deno.open` takes no numeric flags (an unknown
 * option is silently ignored), so files are opened through `node:fs`, which
 * passes them to the OS. O_NONBLOCK holds under a path-scoped read grant;
 * O_NOFOLLOW does not always (Deno 2.9 drops it there), which is why the
 * opened file is also checked to be the very file resolution examined.
 */
const OPEN_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) |
  (fsConstants.O_NOFOLLOW ?? 0);

/**
 * How many randomly chosen probes confirm a path when a directory on it
 * changed lately (see `Workspace.#confirm`). A swap survives each with a
 * probability of about one half at most, so 32 leave it about 2^-32 per call.
 */
export const SWAP_PROBES = 32;

/**
 * A directory on the path counts as quiet when the second of its last status
 * change (`ctime`, which nobody can set back) ended at least this long before
 * resolution began: then no entry in it was added, removed or renamed during
 * the call. The margin covers file times lagging the clock by a timer tick
 * and small clock adjustments; it assumes file times come from this machine's
 * clock (a network filesystem's server clock far behind ours would break it).
 */
export const QUIET_MS = 1_000;

/** The contained workspace: resolve, read and list, nothing else. */
export class Workspace {
  readonly policy: ContainmentPolicy;
  /** What a repository walk enters: the one policy the walker asks too. */
  readonly walkPolicy: WalkPolicy;
  readonly #ws: string;

  constructor(policy: ContainmentPolicy, walkPolicy: WalkPolicy = new WalkPolicy(policy.denylist)) {
    this.policy = policy;
    this.walkPolicy = walkPolicy;
    this.#ws = workspacePhrase(policy.workspaceName);
  }

  /** Resolves a user's path (see {@linkcode resolveInWorkspace}). */
  resolve(userPath: string): ResolvedPath {
    return resolveInWorkspace(this.policy, userPath);
  }

  /**
   * Reads a regular file of at most `maxBytes`. Refuses directories, special
   * files (without blocking on them), oversize files (by size first, then
   * while reading, in case the file grew) and binary files.
   */
  readRegularFile(target: ResolvedPath, maxBytes: number): Promise<FileBytes> {
    try {
      return Promise.resolve(this.readRegularFileSync(target, maxBytes));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * {@linkcode readRegularFile} without the promise: the same checks, the same refusals.
   * With `reuse`, a quiet file's identity as resolution's `lstat` saw it is offered to it
   * (ADR-098; a regular file within the cap). `"reuse"`: nothing is opened or read, the swap
   * confirmation still runs against what resolution examined, and the answer is `reused`
   * with empty bytes. `"keep"`: opened and read, and the identity is returned only if the
   * opened handle gave the same identity before the read and again after it. `"read"`:
   * read as without `reuse` (ADR-081).
   */
  readRegularFileSync(
    target: ResolvedPath,
    maxBytes: number,
    reuse?: (identity: string) => "reuse" | "keep" | "read",
  ): FileBytes {
    if (target.info.isDirectory) {
      throw new ToolRefusal("not_a_file", `That path is a directory in the ${this.#ws}.`);
    }
    if (!target.info.isFile) {
      throw new ToolRefusal(
        "special_file",
        `That path is not a regular file (FIFO, socket or device) in the ${this.#ws}.`,
      );
    }
    if (target.info.size > maxBytes) throw this.#tooLarge(maxBytes);
    // A cached answer needs no handle (ADR-098): what it serves was read through one that
    // passed every check below, from this very inode with this very identity, and a quiet
    // inode cannot change without its ctime showing it. What resolution examined is what the
    // confirmation checks the path still leads to, exactly as it checks a read's handle
    // (whose device and inode must equal resolution's anyway).
    const identity = reuse && quietIdentity(target.info, target.pinnedAt);
    const wanted = identity ? reuse!(identity) : "read";
    if (wanted === "reuse") {
      // And more than a read's check: the path must still lead to a regular file of that very
      // identity, not only that inode number (a FIFO or file made after a removal may reuse it).
      const same = () => this.#sameIdentity(target.absolute, identity!);
      this.#confirm(target, same, same);
      return {
        bytes: new Uint8Array(0),
        linkCount: target.info.nlink ?? 1,
        identity,
        reused: true,
      };
    }
    // Synchronous calls: a tool worker runs one call at a time, so nothing waits behind them,
    // and each async `node:fs` call costs a promise round trip through the event loop (about
    // 140 µs of CPU for open, stat, read and close against about 33 µs synchronously, ADR-074).
    let fd: number;
    try {
      fd = openSync(target.absolute, OPEN_FLAGS);
    } catch (error) {
      if (
        error instanceof Error && /too many (levels of )?symbolic links|ELOOP/i.test(error.message)
      ) {
        // Resolution ended on a real file; a link here means it was swapped since.
        throw this.#changedDuringCall();
      }
      throw refusalFor(error, this.#ws);
    }
    try {
      const info: Stats = fstatSync(fd);
      if (!info.isFile()) {
        throw new ToolRefusal(
          "special_file",
          `That path is not a regular file (FIFO, socket or device) in the ${this.#ws}.`,
        );
      }
      // The path was checked, then opened: if anything on it was swapped in
      // between (a link, a directory, another file), this is not that file.
      if (
        target.info.ino !== null &&
        (info.dev !== target.info.dev || info.ino !== target.info.ino)
      ) {
        throw this.#changedDuringCall();
      }
      if (info.size > maxBytes) throw this.#tooLarge(maxBytes);
      // Kept only when the handle's identity is the one a later call will be offered.
      const keep = wanted === "keep" && identityOf(statFields(info)) === identity;
      const chunks: Uint8Array[] = [];
      let total = 0;
      // One read usually takes the whole file: the buffer is sized to it (plus one byte to see
      // the end), within the cap.
      const buffer = new Uint8Array(Math.min(Math.max(info.size + 1, 4096), maxBytes + 1));
      while (true) {
        const n = readSync(fd, buffer, 0, buffer.length, null);
        if (n === 0) break;
        total += n;
        if (total > maxBytes) throw this.#tooLarge(maxBytes);
        chunks.push(buffer.slice(0, n));
      }
      // The handle is the file resolution examined, but resolution may have
      // examined it through a directory swapped for a link during the walk.
      this.#confirm(target, () => this.#sameAs(target.absolute, info));
      const bytes = concat(chunks, total);
      if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
        throw new ToolRefusal(
          "binary_file",
          `That file looks binary (NUL bytes in its first ${BINARY_SNIFF_BYTES} bytes) in the ${this.#ws}.`,
        );
      }
      // Still the same file as when it was opened: what was read may key a cache.
      const unchanged = keep && identityOf(statFields(fstatSync(fd))) === identity;
      return unchanged ? { bytes, linkCount: info.nlink, identity } : {
        bytes,
        linkCount: info.nlink,
      };
    } finally {
      closeSync(fd);
    }
  }

  /** Lists a directory: links are described, never followed; denied names are counted only. */
  async listDirectory(target: ResolvedPath, includeHidden: boolean): Promise<DirectoryListing> {
    if (!target.info.isDirectory) {
      throw new ToolRefusal("not_a_directory", `That path is not a directory in the ${this.#ws}.`);
    }
    const entries: DirectoryEntry[] = [];
    let deniedCount = 0;
    let hiddenCount = 0;
    const names: string[] = [];
    const walk = this.walkPolicy.stackFor(this.policy.root, target.relative);
    try {
      for await (const dirEntry of Deno.readDir(target.absolute)) {
        const name = dirEntry.name;
        names.push(name);
        if (this.policy.denylist.deniesEntry(target.relative, name)) {
          deniedCount++;
          continue;
        }
        if (!includeHidden && name.startsWith(".")) {
          hiddenCount++;
          continue;
        }
        const entry = await this.#describe(target.absolute, name);
        if (entry.type !== "directory") entries.push(entry);
        else {
          const path = target.relative === "" ? name : target.relative + "/" + name;
          const verdict = walk.blocked ?? this.walkPolicy.verdict(walk.stack, path, name, true);
          entries.push(
            verdict.walk ? { ...entry, walkable: true } : {
              ...entry,
              walkable: false,
              notWalked: {
                reason: verdict.reason,
                ...(verdict.rule ? { rule: verdict.rule } : {}),
              },
            },
          );
        }
      }
    } catch (error) {
      throw refusalFor(error, this.#ws);
    }
    // Deno.readDir takes a path, not a handle: a folder on the path swapped for
    // a link around it would list another directory's names. What was read can
    // only be told apart by reading it again.
    names.sort();
    this.#confirm(target, () => sameNames(target.absolute, names));
    entries.sort((a, b) => {
      const ad = a.type === "directory" ? 0 : 1;
      const bd = b.type === "directory" ? 0 : 1;
      return ad - bd || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    });
    return { entries, deniedCount, hiddenCount, fingerprint: namesFingerprint(names) };
  }

  async #describe(dir: string, name: string): Promise<DirectoryEntry> {
    const path = dir + "/" + name;
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(path);
    } catch {
      return { name, type: "other" };
    }
    if (info.isSymlink) {
      let inside = false;
      try {
        inside = isWithin(this.policy.root, await Deno.realPath(path));
      } catch { /* dangling or looping: not inside */ }
      return { name, type: "symlink", linkTargetInside: inside };
    }
    if (info.isDirectory) {
      return { name, type: "directory" };
    }
    if (info.isFile) return { name, type: "file", size: info.size };
    return { name, type: "other" };
  }

  #changedDuringCall(): ToolRefusal {
    return changedDuringCall(this.#ws);
  }

  /**
   * Refuses unless the path still runs through the directories resolution
   * examined (`ResolvedPath.ancestors`) and still leads to what was read,
   * which `content` checks (a file's identity; a listing's names).
   *
   * Deno has no handle-relative calls (`openat`), so no check by path is
   * atomic with the open or the read: a directory swapped for a link to
   * outside just before it and back just after passes any one check. Two
   * things still hold. If no directory on the way had an entry changed since
   * the call began (`ctime`, see {@linkcode QUIET_MS}), nothing on the path
   * was swapped, and one pass is proof: the usual case, a few `lstat`s.
   * Otherwise {@linkcode SWAP_PROBES} probes follow, each chosen at random:
   * either `content` (passes only while a swapped path is in its swapped
   * state, since that is what was read) or the directory chain (passes only
   * while it is in its original state). The swapper cannot see which comes
   * next, so whatever its timing each probe stops a swap with probability
   * about one half. A genuine call under such a swap is refused too: retry.
   */
  #confirm(
    target: ResolvedPath,
    content: () => boolean,
    leadsToTarget: () => boolean = () => this.#sameAs(target.absolute, target.info),
  ): void {
    try {
      const chain = this.#chain(target, leadsToTarget);
      if (chain === "quiet") return;
      if (chain === "changed") throw this.#changedDuringCall();
      const bits = crypto.getRandomValues(new Uint8Array(SWAP_PROBES / 8));
      for (let i = 0; i < SWAP_PROBES; i++) {
        const probeContent = ((bits[i >> 3] >> (i & 7)) & 1) === 1;
        if (probeContent ? !content() : this.#chain(target, leadsToTarget) === "changed") {
          throw this.#changedDuringCall();
        }
      }
    } catch (error) {
      if (error instanceof ToolRefusal) throw error;
      throw this.#changedDuringCall();
    }
  }

  /**
   * Checks by `lstat`, the target first and then each directory deepest
   * first, that the path still holds what resolution examined; "quiet" when
   * in addition no directory on the way had an entry changed since the call
   * began. Deepest first: a directory is judged quiet only after everything
   * below it was checked, so a swap in it before then would show in its
   * `ctime`. `leadsToTarget` checks the target (by default: the same device and inode).
   */
  #chain(target: ResolvedPath, leadsToTarget: () => boolean): "changed" | "recent" | "quiet" {
    if (!leadsToTarget()) return "changed";
    let quiet = true;
    const since = target.pinnedAt - QUIET_MS;
    for (let i = target.ancestors.length - 1; i >= 0; i--) {
      const ancestor = target.ancestors[i];
      const dir = Deno.lstatSync(ancestor.path);
      if (!dir.isDirectory || dir.dev !== ancestor.dev || dir.ino !== ancestor.ino) {
        return "changed";
      }
      // Deno reports ctime in whole seconds: the change may be up to one later.
      if (dir.ctime === null || dir.ctime.getTime() + 1000 > since) quiet = false;
    }
    return quiet ? "quiet" : "recent";
  }

  /** Whether `path` (not followed) is the file `info` describes. */
  #sameAs(path: string, info: { dev: number; ino: number | null }): boolean {
    const now = Deno.lstatSync(path);
    return now.dev === info.dev && now.ino === info.ino;
  }

  /** Whether `path` (not followed) is a regular file whose identity is `identity`. */
  #sameIdentity(path: string, identity: string): boolean {
    const now = Deno.lstatSync(path);
    return now.isFile && identityOf(infoFields(now)) === identity;
  }

  #tooLarge(maxBytes: number): ToolRefusal {
    return new ToolRefusal(
      "too_large",
      `That file is larger than the ${maxBytes}-byte limit of the ${this.#ws}.`,
    );
  }
}

/** The fields of a file's status that make its identity, from `lstat` or `fstat` alike. */
interface StatFields {
  readonly dev: number;
  readonly ino: number | null;
  readonly size: number;
  readonly mtimeMs: number | null;
  readonly ctimeMs: number | null;
  readonly nlink: number | null;
}

/** A node `fstat`'s identity fields. */
function statFields(info: Stats): StatFields {
  return info;
}

/** A Deno `lstat`'s identity fields (the same numbers node's `fstat` gives: ADR-098). */
function infoFields(info: Deno.FileInfo): StatFields {
  return {
    dev: info.dev,
    ino: info.ino,
    size: info.size,
    mtimeMs: info.mtime?.getTime() ?? null,
    ctimeMs: info.ctime?.getTime() ?? null,
    nlink: info.nlink,
  };
}

/** A file's identity: what changes whenever its bytes, its name count or its place do. */
function identityOf(info: StatFields): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.nlink}`;
}

/**
 * The identity of a file whose last status change ended at least {@linkcode QUIET_MS}
 * before `since` (when the call began), else `undefined`. Every write, truncation, rename
 * onto it, link count change and `utime` sets `ctime` to the clock, which nobody can set
 * back; a change in the same clock tick as the one recorded could leave it unchanged, so a
 * file changed lately is not offered. Deno reports `ctime` in whole seconds: the change
 * may be up to one later (ADR-081).
 */
function quietIdentity(info: Deno.FileInfo, since: number): string | undefined {
  // No inode number or no ctime (a platform that reports neither): never offered.
  if (info.ino === null || info.ctime === null || info.nlink === null) return undefined;
  if (!(info.ctime.getTime() + 1000 <= since - QUIET_MS)) return undefined;
  return identityOf(infoFields(info));
}

/** Whether the directory at `path` holds exactly `sorted` (the names, sorted). */
function sameNames(path: string, sorted: readonly string[]): boolean {
  const now: string[] = [];
  for (const entry of Deno.readDirSync(path)) now.push(entry.name);
  if (now.length !== sorted.length) return false;
  now.sort();
  return now.every((name, i) => name === sorted[i]);
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/**
 * A listing's fingerprint: the count and two 32-bit FNV-1a-style hashes
 * (different offsets and multipliers) of the sorted names, each followed by a NUL. The same names give
 * the same fingerprint on any machine and any checkout.
 */
export function namesFingerprint(sortedNames: readonly string[]): string {
  let a = 0x811c9dc5, b = 0x2f6a1c3b;
  for (const name of sortedNames) {
    for (let i = 0; i <= name.length; i++) {
      const unit = i < name.length ? name.charCodeAt(i) : 0;
      a = Math.imul(a ^ unit, 0x01000193);
      b = Math.imul(b ^ unit, 0x5bd1e995);
    }
  }
  return `${sortedNames.length}:${(a >>> 0).toString(36)}${(b >>> 0).toString(36)}`;
}
