/**
 * The one walker of the workspace, for `search_code` now and `find_symbol`
 * and `project_overview` later. In the manner of Deno std's `fs/walk.ts`:
 * one call, {@linkcode Walker.walk}, with options and defaults
 * ({@linkcode WalkOptions}).
 *
 * - Depth first, one directory at a time: its files in name order, then its
 *   subdirectories in name order. The order is stable, so a walk can resume
 *   after a given file (`resumeAfter`), which is how a capped call
 *   continues.
 * - Never follows a symbolic link (files or directories); FIFOs, sockets and
 *   devices are counted, never opened. Every entry is asked of the one
 *   {@linkcode WalkPolicy} (denylist, skipped trees, ignore files, hidden).
 * - Per-entry errors (an unreadable directory, a file that vanished) are
 *   counted and the walk goes on.
 * - Caps on files walked and bytes read end the walk early, and it says so.
 * - Reads ({@linkcode Walker.read}) open without following a final link and
 *   without blocking, check the handle is a regular file of at most the
 *   size cap, and read into one reused buffer. The swap race is handled per
 *   directory, not per file: after a directory's files are read, its chain of
 *   directories up to the root is checked once (a few `lstat`s); when a
 *   directory on it changed lately, random probes follow as in
 *   `Workspace` (see `workspace.ts`). A directory that fails is reported
 *   with `confirmed: false` and the caller drops what it read there.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { closeSync, constants as fsConstants, fstatSync, openSync, readSync } from "node:fs";
import type { ResolvedPath } from "./resolve.ts";
import type { StopSignal } from "../contract/stop.ts";
import { IgnoreStack } from "./ignore.ts";
import type { WalkPolicy } from "./walk_policy.ts";
import { QUIET_MS, SWAP_PROBES } from "./workspace.ts";

/** Options of one walk. */
export interface WalkOptions {
  /** Most files to yield; the walk then ends with `capped: "files"`. Default unlimited. */
  readonly maxFiles?: number;
  /** Most bytes {@linkcode Walker.read} may read in all; then `capped: "bytes"`. Default unlimited. */
  readonly maxBytes?: number;
  /** Largest file {@linkcode Walker.read} reads; larger ones are `too_large`. Default 512 KiB. */
  readonly maxFileBytes?: number;
  /**
   * Resume after this file (relative to the walk's start, `/`-separated):
   * everything up to and including it in walk order is skipped. With
   * `inclusive`, the file itself is yielded again.
   */
  readonly resumeAfter?: { readonly path: string; readonly inclusive?: boolean };
  /** Checked before every directory and file; a raised flag ends the walk (`stopped`). */
  readonly stop?: StopSignal;
}

/** A file the walk reached. */
export interface WalkFile {
  readonly kind: "file";
  /** Relative to the workspace root. */
  readonly path: string;
  /** Relative to the walk's start (what `resumeAfter` takes). */
  readonly walkPath: string;
  readonly name: string;
  /** Never shown to a client. */
  readonly absolute: string;
}

/** The end of a directory's files: whether what was read in it is confirmed. */
export interface WalkDirectoryDone {
  readonly kind: "directory_done";
  /** Relative to the workspace root. */
  readonly path: string;
  /** False: a directory on its path was swapped while it was read; drop what it gave. */
  readonly confirmed: boolean;
}

/** What a walk yields. */
export type WalkEvent = WalkFile | WalkDirectoryDone;

/** What a read gives: the bytes (a view of the walker's reused buffer), or why not. */
export type ReadOutcome =
  | { readonly ok: true; readonly bytes: Buffer }
  | {
    readonly ok: false;
    /** `capped`: the walk's byte cap is reached; the walk ends and the file was not read. */
    readonly reason: "too_large" | "special" | "changed" | "unreadable" | "capped";
  };

/** Counts of one walk. */
export interface WalkStats {
  /** Files yielded. */
  files: number;
  /** Directories entered. */
  directories: number;
  /** Bytes read by {@linkcode Walker.read}. */
  bytes: number;
  /** Entries skipped by the policy, by reason. */
  denied: number;
  ignored: number;
  hidden: number;
  skippedDirs: number;
  /** Symbolic links, never followed. */
  symlinks: number;
  /** FIFOs, sockets, devices. */
  special: number;
  /** Files over the size cap. */
  tooLarge: number;
  /** Directories or files that could not be read, ignore files included. */
  errors: number;
  /** Directories whose reads were dropped because a folder on their path was swapped. */
  changed: number;
}

/** Why a walk ended before the tree did. */
export type WalkEnd = "files" | "bytes" | "cancelled" | "timed_out";

interface DirNode {
  readonly absolute: string;
  readonly relative: string;
  readonly walkRelative: string;
  readonly parent: DirNode | undefined;
  readonly stack: IgnoreStack;
  readonly resume: readonly string[] | undefined;
  dev: number;
  ino: number | null;
}

interface ReadRecord {
  readonly absolute: string;
  readonly dev: number;
  readonly ino: number;
}

const OPEN_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) |
  (fsConstants.O_NOFOLLOW ?? 0);

const DEFAULT_MAX_FILE_BYTES = 512 * 1024;

/** One walk of a directory of the workspace. */
export class Walker {
  readonly stats: WalkStats = {
    files: 0,
    directories: 0,
    bytes: 0,
    denied: 0,
    ignored: 0,
    hidden: 0,
    skippedDirs: 0,
    symlinks: 0,
    special: 0,
    tooLarge: 0,
    errors: 0,
    changed: 0,
  };
  /** Set when the walk ended early, and why. */
  ended: WalkEnd | undefined;

  readonly #policy: WalkPolicy;
  readonly #root: string;
  readonly #start: ResolvedPath;
  readonly #options: WalkOptions;
  readonly #maxFileBytes: number;
  #buffer = new Uint8Array(64 * 1024);
  #view = Buffer.from(this.#buffer.buffer);
  #batch: ReadRecord[] = [];

  /** A walk of `start` (a resolved directory) of the workspace at `root` under `policy`. */
  constructor(policy: WalkPolicy, root: string, start: ResolvedPath, options: WalkOptions = {}) {
    this.#policy = policy;
    this.#root = root;
    this.#start = start;
    this.#options = options;
    this.#maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  }

  /** Walks the tree, yielding files and the end of each directory that had files. */
  *walk(): Generator<WalkEvent, void, void> {
    const start = this.#start;
    // The start's chain: the directories resolution recorded, then the start itself.
    let chain: DirNode | undefined;
    for (const a of start.ancestors) {
      chain = {
        absolute: a.path,
        relative: "",
        walkRelative: "",
        parent: chain,
        stack: IgnoreStack.EMPTY,
        resume: undefined,
        dev: a.dev,
        ino: a.ino,
      };
    }
    const stack = start.relative === ""
      ? IgnoreStack.EMPTY
      : this.#policy.stackFor(this.#root, parentOf(start.relative)).stack;
    const resume = this.#options.resumeAfter?.path.split("/").filter((c) => c !== "");
    const pending: DirNode[] = [{
      absolute: start.absolute,
      relative: start.relative,
      walkRelative: "",
      parent: chain,
      stack,
      resume: resume && resume.length > 0 ? resume : undefined,
      dev: start.info.dev,
      ino: start.info.ino,
    }];
    const { maxFiles = Infinity, stop } = this.#options;
    const inclusive = this.#options.resumeAfter?.inclusive ?? false;

    while (pending.length > 0) {
      const reason = stop?.reason();
      if (reason) return void (this.ended = reason);
      const node = pending.pop()!;
      const since = Date.now() - QUIET_MS;
      let entries: Deno.DirEntry[];
      try {
        const info = Deno.lstatSync(node.absolute);
        if (!info.isDirectory) {
          this.stats.changed++;
          continue;
        }
        if (node.ino !== null && (info.ino !== node.ino || info.dev !== node.dev)) {
          this.stats.changed++;
          continue;
        }
        node.dev = info.dev;
        node.ino = info.ino;
        entries = Array.from(Deno.readDirSync(node.absolute));
      } catch {
        this.stats.errors++;
        continue;
      }
      this.stats.directories++;
      const names = new Set(entries.map((e) => e.name));
      const { level, errors } = this.#policy.readLevel(node.absolute, node.relative, names);
      this.stats.errors += errors;
      const dirStack = node.stack.push(level);
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

      // On the resume path: the component at this depth, and whether it is the last.
      const resumeName = node.resume?.[0];
      const resumeHere = node.resume !== undefined && node.resume.length === 1;
      const subdirs: DirNode[] = [];
      this.#batch = [];
      for (const entry of entries) {
        const name = entry.name;
        const path = node.relative === "" ? name : node.relative + "/" + name;
        if (entry.isSymlink) {
          if (!this.#policy.denylist.deniesEntry(node.relative, name)) this.stats.symlinks++;
          else this.stats.denied++;
          continue;
        }
        if (!entry.isFile && !entry.isDirectory) {
          this.stats.special++;
          continue;
        }
        const isDir = entry.isDirectory;
        if (resumeName !== undefined) {
          // Files come before subdirectories: on the way down, every file here precedes the resume point.
          if (!isDir && !resumeHere) continue;
          if (!isDir && (inclusive ? name < resumeName : name <= resumeName)) continue;
          if (isDir && resumeName !== undefined && name < resumeName && !resumeHere) continue;
        }
        const verdict = this.#policy.verdict(dirStack, path, name, isDir);
        if (!verdict.walk) {
          if (verdict.reason === "denied") this.stats.denied++;
          else if (verdict.reason === "ignored") this.stats.ignored++;
          else if (verdict.reason === "hidden") this.stats.hidden++;
          else this.stats.skippedDirs++;
          continue;
        }
        const walkPath = node.walkRelative === "" ? name : node.walkRelative + "/" + name;
        if (isDir) {
          subdirs.push({
            absolute: node.absolute + "/" + name,
            relative: path,
            walkRelative: walkPath,
            parent: node,
            stack: dirStack,
            resume: !resumeHere && name === resumeName ? node.resume!.slice(1) : undefined,
            dev: 0,
            ino: null,
          });
          continue;
        }
        const end = this.ended ?? stop?.reason() ??
          (this.stats.files >= maxFiles ? "files" : undefined);
        if (end) {
          this.ended = end;
          yield* this.#finishDirectory(node, since);
          return;
        }
        this.stats.files++;
        yield { kind: "file", path, walkPath, name, absolute: node.absolute + "/" + name };
      }
      yield* this.#finishDirectory(node, since);
      if (this.ended) return;
      for (let i = subdirs.length - 1; i >= 0; i--) pending.push(subdirs[i]);
    }
  }

  /**
   * Reads the file just yielded, into the walker's reused buffer: valid
   * until the next read. Without following a final link, without blocking,
   * regular files only, at most `maxFileBytes`.
   */
  read(file: WalkFile): ReadOutcome {
    let fd: number;
    try {
      fd = openSync(file.absolute, OPEN_FLAGS);
    } catch (error) {
      const code = (error as { code?: string }).code;
      return { ok: false, reason: code === "ELOOP" ? "changed" : "unreadable" };
    }
    try {
      const info = fstatSync(fd);
      if (!info.isFile()) {
        this.stats.special++;
        return { ok: false, reason: "special" };
      }
      if (info.size > this.#maxFileBytes) {
        this.stats.tooLarge++;
        return { ok: false, reason: "too_large" };
      }
      const maxBytes = this.#options.maxBytes ?? Infinity;
      if (this.stats.bytes + info.size > maxBytes) {
        this.ended = "bytes";
        return { ok: false, reason: "capped" };
      }
      if (this.#buffer.length < info.size + 1) {
        let size = this.#buffer.length;
        while (size < info.size + 1) size *= 2;
        this.#buffer = new Uint8Array(Math.min(size, this.#maxFileBytes + 1));
        this.#view = Buffer.from(this.#buffer.buffer);
      }
      let total = 0;
      while (total < this.#buffer.length) {
        const n = readSync(fd, this.#buffer, total, this.#buffer.length - total, null);
        if (n === 0) break;
        total += n;
      }
      if (total > this.#maxFileBytes) {
        this.stats.tooLarge++;
        return { ok: false, reason: "too_large" };
      }
      this.stats.bytes += total;
      this.#batch.push({ absolute: file.absolute, dev: info.dev, ino: info.ino });
      return { ok: true, bytes: this.#view.subarray(0, total) };
    } catch {
      this.stats.errors++;
      return { ok: false, reason: "unreadable" };
    } finally {
      closeSync(fd);
    }
  }

  *#finishDirectory(node: DirNode, since: number): Generator<WalkEvent, void, void> {
    if (this.#batch.length === 0) return;
    const confirmed = this.#confirm(node, since);
    if (!confirmed) this.stats.changed++;
    this.#batch = [];
    yield { kind: "directory_done", path: node.relative, confirmed };
  }

  /**
   * Whether what was read in `node` came through the directories recorded:
   * one pass when none of them changed since shortly before the directory
   * was entered, else random probes as in `Workspace` — each either "every
   * file read still sits at its path" (passes only in the state that was
   * read) or "the chain of directories is the recorded one" (passes only in
   * the original state).
   */
  #confirm(node: DirNode, since: number): boolean {
    try {
      const first = chainState(node, since);
      if (first === "quiet") return true;
      if (first === "changed") return false;
      const bits = crypto.getRandomValues(new Uint8Array(SWAP_PROBES / 8));
      for (let i = 0; i < SWAP_PROBES; i++) {
        const probeContent = ((bits[i >> 3] >> (i & 7)) & 1) === 1;
        if (probeContent ? !this.#batch.every(stillThere) : chainState(node, since) === "changed") {
          return false;
        }
      }
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * The bytes as a latin1 string: one character per byte, so an index in it
 * is a byte offset (Node's `Buffer#latin1Slice`, the fastest way there).
 */
export function latin1Text(bytes: Buffer): string {
  return (bytes as unknown as { latin1Slice(start: number, end: number): string }).latin1Slice(
    0,
    bytes.length,
  );
}

function stillThere(record: ReadRecord): boolean {
  const now = Deno.lstatSync(record.absolute);
  return now.dev === record.dev && now.ino === record.ino;
}

/** Deepest first: each directory is still the one recorded; quiet when none changed since `since`. */
function chainState(node: DirNode, since: number): "changed" | "recent" | "quiet" {
  let quiet = true;
  for (let n: DirNode | undefined = node; n !== undefined; n = n.parent) {
    const info = Deno.lstatSync(n.absolute);
    if (!info.isDirectory || info.dev !== n.dev || info.ino !== n.ino) return "changed";
    // Deno reports ctime in whole seconds: the change may be up to one later.
    if (info.ctime === null || info.ctime.getTime() + 1000 > since) quiet = false;
  }
  return quiet ? "quiet" : "recent";
}

function parentOf(relative: string): string {
  const slash = relative.lastIndexOf("/");
  return slash < 0 ? "" : relative.slice(0, slash);
}
