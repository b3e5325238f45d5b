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
 * - Reads ({@linkcode Walker.read}) open without blocking (and ask not to
 *   follow a final link, which Deno 2.9.6 ignores under a read grant), and
 *   read into one reused buffer, at most the size cap. The swap race is
 *   handled per batch of directories, not per file: after the files of up to
 *   {@linkcode BATCH_DIRECTORIES} directories (or {@linkcode BATCH_FILES}
 *   files) are read, the chains of those directories up to the root are
 *   checked once, each directory on them looked at once (ADR-139). When none
 *   changed lately (nearly always), that is the proof and the reads needed no
 *   `fstat`; a directory that had changed by the time it was entered is read
 *   the careful way (`fstat`: a regular file, its inode recorded) and checked
 *   alone, with random probes as in `Workspace` (see `workspace.ts`); when a
 *   directory on the chains changed while a batch was read the fast way,
 *   `directory_done` says `again` and the batch's directories come again,
 *   each read the careful way (ADR-054). A batch that fails is reported with
 *   `confirmed: false` and the caller drops what it read since the last
 *   `directory_done`: what a read returns is provisional until then.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { closeSync, constants as fsConstants, fstatSync, openSync, readSync } from "node:fs";
import type { ResolvedPath } from "./resolve.ts";
import type { StopSignal } from "../contract/stop.ts";
import { IgnoreStack } from "./ignore.ts";
import { IGNORE_LEVEL_NAMES, type WalkPolicy } from "./walk_policy.ts";
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
  /**
   * Asked just before each directory below the start is entered (its path
   * relative to the walk's start); false passes it and its subtree over,
   * uncounted. Two threads sharing one walk use it to split the tree
   * (`search_code`, ADR-064). Default: every directory is entered.
   */
  readonly enter?: (walkPath: string) => boolean;
  /**
   * Asked once per directory listing, at its first regular file past the
   * resume point that the policy walks (with that file's path relative to
   * the walk's start; never a name the policy refuses, such as a denied one:
   * ADR-101); false passes the directory's remaining files over, unasked of
   * the policy, unyielded and uncounted (and those refused before it
   * uncounted too), while its subdirectories are still walked. Two threads
   * sharing one walk use it to leave the files of a directory the other side
   * owns (ADR-094). Default: every file.
   */
  readonly files?: (firstFile: string) => boolean;
  /**
   * The reused buffer {@linkcode Walker.read} reads into, instead of one of its own (the
   * literal prefilter's memory, so the bytes need no copy: ADR-103). Read from at its start;
   * one shorter than `maxFileBytes` + 1 is replaced by a larger one of the walker's when a
   * file needs it, as its own buffer would be.
   */
  readonly buffer?: Uint8Array;
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

/**
 * The end of a batch of directories (one or more, ADR-139): whether what was read since the
 * last `directory_done` is confirmed.
 */
export interface WalkDirectoryDone {
  readonly kind: "directory_done";
  /** The batch's last directory, relative to the workspace root. */
  readonly path: string;
  /** False: a directory on their paths was swapped while they were read; drop what they gave. */
  readonly confirmed: boolean;
  /**
   * True (with `confirmed: false`): a directory on their paths changed while
   * their files were read the fast way; they come again next, read the
   * careful way. Whatever was counted for them is to be counted once (the
   * walker's own counts are set back).
   */
  readonly again: boolean;
}

/** What a walk yields. */
export type WalkEvent = WalkFile | WalkDirectoryDone;

/** What a read gives: the bytes (a view of the walker's reused buffer), or why not. */
export type ReadOutcome =
  | { readonly ok: true; readonly bytes: Buffer }
  | {
    readonly ok: false;
    /** `capped`: the walk's byte cap is reached; the walk ends and the file was not read. */
    readonly reason: ReadFailure;
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
  /** A hint: no directory on the chain had changed lately when it was entered. */
  quiet: boolean;
  /** Read its files the careful way (`fstat` and a record each): its fast pass was not confirmed. */
  careful: boolean;
  /** The check of chains ({@linkcode chainState}) that last looked at it: each looks once. */
  checked: number;
}

/**
 * Directories read the fast way whose chains are checked together, once, after the last of
 * them is read (ADR-139): each directory on their chains is looked at once for all of them,
 * where one check per directory looked at the shared ones again and again.
 */
interface Batch {
  readonly nodes: DirNode[];
  /** The earliest of their entry times less {@linkcode QUIET_MS}: the window the chain must be quiet since. */
  since: number;
  /** Files yielded, and files read, in them. */
  files: number;
  reads: number;
  /** Directories entered since the batch opened, its first included: read the careful way if it fails. */
  entered: number;
  /**
   * To walk them again: the walk's stack is cut back to `mark` entries and `popped` (the
   * directories taken from below the mark since the batch opened, its first one first) put
   * back, each with the device and inode it had when taken (none, for one not entered
   * before: a directory entered through a swapped parent recorded the wrong one); the counts
   * are set back to `stats`, those before its first directory was entered.
   */
  mark: number;
  readonly popped: Taken[];
  readonly stats: WalkStats;
  /** Its one directory was read the careful way (a careful directory is checked alone). */
  readonly careful: boolean;
}

/** A directory as it was taken from the walk's stack: what it had recorded then. */
interface Taken {
  readonly node: DirNode;
  readonly dev: number;
  readonly ino: number | null;
}

/** A batch is checked once it holds this many directories with reads, or this many files. */
export const BATCH_DIRECTORIES = 8;
export const BATCH_FILES = 512;

/** One directory entry as the walk uses it, read once from Deno's (ADR-095). */
interface Entry {
  readonly name: string;
  readonly kind: number;
}

const FILE = 0, DIRECTORY = 1, SYMLINK = 2, OTHER = 3;

interface ReadRecord {
  readonly absolute: string;
  readonly dev: number;
  readonly ino: number;
}

const OPEN_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) |
  (fsConstants.O_NOFOLLOW ?? 0);

const DEFAULT_MAX_FILE_BYTES = 512 * 1024;

/** Why {@linkcode Walker.readLength} did not read a file, by the one's complement of its result. */
export const READ_FAILURES = ["too_large", "special", "changed", "unreadable", "capped"] as const;
/** Why a file was not read: one of {@linkcode READ_FAILURES}. */
type ReadFailure = (typeof READ_FAILURES)[number];
/** {@linkcode Walker.readLength}'s result for `reason`, taken from the list, not kept by hand. */
const failure = (reason: ReadFailure) => ~READ_FAILURES.indexOf(reason);
const TOO_LARGE = failure("too_large"), SPECIAL = failure("special"), CHANGED = failure("changed");
const UNREADABLE = failure("unreadable"), CAPPED = failure("capped");

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
  #buffer: Uint8Array;
  #view: Buffer;
  #batch: ReadRecord[] = [];
  /** Files read in the current directory. */
  #readsHere = 0;
  /** Whether reads in the current directory record what they opened (see {@linkcode read}). */
  #careful = true;
  /** Directories still to be read the careful way: those of a batch that failed (ADR-139). */
  #carefulLeft = 0;

  /** A walk of `start` (a resolved directory) of the workspace at `root` under `policy`. */
  constructor(policy: WalkPolicy, root: string, start: ResolvedPath, options: WalkOptions = {}) {
    this.#policy = policy;
    this.#root = root;
    this.#start = start;
    this.#options = options;
    this.#maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.#buffer = options.buffer ?? new Uint8Array(64 * 1024);
    this.#view = viewOf(this.#buffer);
  }

  /** Walks the tree, yielding files and the end of each batch of directories that yielded files. */
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
        quiet: true,
        careful: false,
        checked: 0,
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
      quiet: true,
      careful: false,
      checked: 0,
    }];
    const { maxFiles = Infinity, stop, enter, files } = this.#options;
    const inclusive = this.#options.resumeAfter?.inclusive ?? false;

    /** The directories read the fast way whose chains await their one check (ADR-139). */
    let batch: Batch | undefined;
    while (pending.length > 0 || batch !== undefined) {
      const reason = stop?.reason();
      if (reason) {
        this.ended = reason;
        if (batch !== undefined) yield* this.#checkBatch(batch, pending);
        return;
      }
      if (pending.length === 0) {
        // The tree is walked: the last batch is checked, and may come again.
        const again = yield* this.#checkBatch(batch!, pending);
        batch = undefined;
        if (again) continue;
        return;
      }
      const node = pending.pop()!;
      const taken: Taken = { node, dev: node.dev, ino: node.ino };
      if (batch !== undefined && pending.length < batch.mark) {
        // From below the stack the batch opened on: put back if the batch is walked again.
        batch.popped.push(taken);
        batch.mark = pending.length;
      }
      if (enter !== undefined && node.walkRelative !== "" && !enter(node.walkRelative)) continue;
      /** The counts before this directory, for a batch it opens (and may walk again). */
      let before = batch === undefined ? { ...this.stats } : undefined;
      const since = Date.now() - QUIET_MS;
      const entries: Entry[] = [];
      // Only these names matter to the level: the ignore files and `.git`.
      const names = new Set<string>();
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
        node.quiet = (node.parent?.quiet ?? true) && info.ctime !== null &&
          info.ctime.getTime() + 1000 <= since;
        // Each of Deno's entries is read once (ADR-095): they are dictionary-mode objects, and
        // the sort and the loop below would otherwise look their properties up again and again.
        for (const e of Deno.readDirSync(node.absolute)) {
          const name = e.name;
          entries.push({
            name,
            kind: e.isSymlink ? SYMLINK : e.isDirectory ? DIRECTORY : e.isFile ? FILE : OTHER,
          });
          // All of them start with a dot: most names are told apart by their first character.
          if (name.charCodeAt(0) === 0x2e && IGNORE_LEVEL_NAMES.has(name)) names.add(name);
        }
      } catch {
        this.stats.errors++;
        continue;
      }
      this.stats.directories++;
      // The directories of a batch that failed are walked again the careful way (ADR-139).
      this.#careful = node.careful || !node.quiet || this.#carefulLeft > 0;
      if (this.#carefulLeft > 0) this.#carefulLeft--;
      if (batch !== undefined) {
        batch.entered++;
        if (this.#careful) {
          // A careful directory is checked alone: the fast ones before it are checked first.
          const again = yield* this.#checkBatch(batch, pending);
          batch = undefined;
          if (again) continue; // this directory comes again too, in the batch's order
          // A careful batch is never walked again: these counts are not set back to.
          before = { ...this.stats };
        }
      }
      const { level, errors } = this.#policy.readLevel(node.absolute, node.relative, names);
      this.stats.errors += errors;
      const dirStack = node.stack.push(level);
      // The ignore rules that can match here, found once for all the entries.
      const policy = this.#policy.inDirectory(dirStack, node.relative);
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

      // On the resume path: the component at this depth, and whether it is the last.
      const resumeName = node.resume?.[0];
      const resumeHere = node.resume !== undefined && node.resume.length === 1;
      const subdirs: DirNode[] = [];
      let yielded = 0;
      /** Whether this listing's files are this walk's (`files`, asked at the first one). */
      let filesHere: boolean | undefined = files === undefined ? true : undefined;
      /** Files refused here before `filesHere` was decided: counted if they are this walk's. */
      const early = { denied: 0, ignored: 0, hidden: 0, skippedDirs: 0 };
      this.#batch = [];
      this.#readsHere = 0;
      const prefix = node.relative === "" ? "" : node.relative + "/";
      const walkPrefix = node.walkRelative === "" ? "" : node.walkRelative + "/";
      const absolutePrefix = node.absolute + "/";
      for (const entry of entries) {
        const name = entry.name;
        const kind = entry.kind;
        if (kind === SYMLINK) {
          if (!this.#policy.denylist.deniesEntry(node.relative, name)) this.stats.symlinks++;
          else this.stats.denied++;
          continue;
        }
        const isDir = kind === DIRECTORY;
        if (kind === OTHER) {
          this.stats.special++;
          continue;
        }
        if (resumeName !== undefined) {
          // Files come before subdirectories: on the way down, every file here precedes the resume point.
          if (!isDir && !resumeHere) continue;
          if (!isDir && (inclusive ? name < resumeName : name <= resumeName)) continue;
          if (isDir && resumeName !== undefined && name < resumeName && !resumeHere) continue;
        }
        if (!isDir && filesHere === false) continue;
        const verdict = policy.verdict(name, isDir);
        if (!verdict.walk) {
          // A file refused before `files` decided whose this listing's files are is counted
          // once it is decided, by the side they belong to only.
          const stats = !isDir && filesHere === undefined ? early : this.stats;
          if (verdict.reason === "denied") stats.denied++;
          else if (verdict.reason === "ignored") stats.ignored++;
          else if (verdict.reason === "hidden") stats.hidden++;
          else stats.skippedDirs++;
          continue;
        }
        if (!isDir && filesHere === undefined) {
          // Asked at the first file the policy walks, never with a name it refuses: what
          // `files` is given is published to the other thread and may end a page (ADR-101).
          filesHere = files!(walkPrefix + name);
          if (filesHere) {
            this.stats.denied += early.denied;
            this.stats.ignored += early.ignored;
            this.stats.hidden += early.hidden;
          }
          if (!filesHere) continue;
        }
        const path = prefix + name;
        // One string for both when the walk starts at the root (a full scan): one join less.
        const walkPath = walkPrefix === prefix ? path : walkPrefix + name;
        if (isDir) {
          subdirs.push({
            absolute: absolutePrefix + name,
            relative: path,
            walkRelative: walkPath,
            parent: node,
            stack: dirStack,
            resume: !resumeHere && name === resumeName ? node.resume!.slice(1) : undefined,
            dev: 0,
            ino: null,
            quiet: false,
            careful: false,
            checked: 0,
          });
          continue;
        }
        const end = this.ended ?? stop?.reason() ??
          (this.stats.files >= maxFiles ? "files" : undefined);
        if (end) {
          this.ended = end;
          batch = this.#joinBatch(batch, taken, since, yielded, before, pending);
          if (batch !== undefined) yield* this.#checkBatch(batch, pending);
          return;
        }
        this.stats.files++;
        yielded++;
        yield { kind: "file", path, walkPath, name, absolute: absolutePrefix + name };
      }
      batch = this.#joinBatch(batch, taken, since, yielded, before, pending);
      if (
        batch !== undefined &&
        (this.#careful || this.ended !== undefined || batch.nodes.length >= BATCH_DIRECTORIES ||
          batch.files >= BATCH_FILES)
      ) {
        const again = yield* this.#checkBatch(batch, pending);
        batch = undefined;
        // Its directories come again, read the careful way; their subdirectories are listed then.
        if (again) continue;
      }
      if (this.ended) return;
      for (let i = subdirs.length - 1; i >= 0; i--) pending.push(subdirs[i]);
    }
  }

  /**
   * `batch` with `taken`'s directory (just walked, `yielded` files) in it: a new batch when
   * none is open, opened on the stack as it is now (it popped, its subdirectories not yet pushed) with
   * `before`, the counts before `node` was entered. A directory that yielded nothing read
   * nothing and needs no check: `batch` as it was.
   */
  #joinBatch(
    batch: Batch | undefined,
    taken: Taken,
    since: number,
    yielded: number,
    before: WalkStats | undefined,
    pending: DirNode[],
  ): Batch | undefined {
    if (yielded === 0) return batch;
    batch ??= {
      nodes: [],
      since,
      files: 0,
      reads: 0,
      entered: 1,
      mark: pending.length,
      popped: [taken],
      stats: before ?? { ...this.stats },
      careful: this.#careful,
    };
    batch.nodes.push(taken.node);
    batch.since = Math.min(batch.since, since);
    batch.files += yielded;
    batch.reads += this.#readsHere;
    this.#readsHere = 0;
    return batch;
  }

  /**
   * Checks `batch`'s chains once (confirming its reads, if any) and says so; returns true
   * when its directories are to be walked again the careful way, after putting the walk's
   * stack and counts back as they were when it opened.
   */
  *#checkBatch(batch: Batch, pending: DirNode[]): Generator<WalkEvent, boolean, void> {
    const careful = batch.careful;
    const confirmed = batch.reads === 0 || this.#confirm(batch.nodes, batch.since, careful);
    const again = !confirmed && !careful && this.ended === undefined;
    this.#batch = [];
    const last = batch.nodes[batch.nodes.length - 1];
    if (again) {
      pending.length = batch.mark;
      for (let i = batch.popped.length - 1; i >= 0; i--) {
        const { node, dev, ino } = batch.popped[i];
        node.dev = dev;
        node.ino = ino;
        pending.push(node);
      }
      Object.assign(this.stats, batch.stats);
      this.#carefulLeft = batch.entered;
    } else if (!confirmed) this.stats.changed += batch.nodes.length;
    yield { kind: "directory_done", path: last.relative, confirmed, again };
    return again;
  }

  /**
   * Reads the file just yielded, into the walker's reused buffer: valid
   * until the next read. Without following a final link, without blocking,
   * at most `maxFileBytes`.
   *
   * Two ways. In a directory whose chain of directories had not changed
   * lately when it was entered (nearly always), the file is opened and read,
   * nothing more: the chain's check after the directory's reads (quiet, or
   * the directory is read again the careful way) proves no entry was
   * replaced, so the regular file the listing named is what was read. In
   * the careful way, `fstat` checks the handle is a regular file within the
   * size cap and records its device and inode for the probes. (`fstatSync`
   * of `node:fs` costs ~40 µs a call on Deno 2.9.6, most of a read.)
   *
   * A read that fills less than the room it was given ends the file: a
   * regular file reads short only at its end (POSIX; a file growing
   * meanwhile gives what it held at that moment), so the second read that
   * only saw the end is not made (ADR-068). What makes "regular file" true is
   * the same proof as above; anything else read (a FIFO or device swapped
   * in) belongs to a directory that is not confirmed, whatever the read gave.
   * A filesystem that reads short in mid-file (some FUSE and network
   * mounts) would have the rest of such a file unsearched, never more read.
   */
  read(file: WalkFile): ReadOutcome {
    const n = this.readLength(file);
    return n >= 0 ? { ok: true, bytes: this.bytes(n) } : { ok: false, reason: READ_FAILURES[~n] };
  }

  /**
   * {@linkcode read} without a record or a view per file (ADR-120): the number of bytes read
   * into {@linkcode buffer}, or, when the file was not read, the one's complement of the index
   * of its reason in {@linkcode READ_FAILURES} (a negative number). A literal search asks its
   * prefilter of most files from their length alone and never needs a view of their bytes.
   */
  readLength(file: WalkFile): number {
    let fd: number;
    try {
      fd = openSync(file.absolute, OPEN_FLAGS);
    } catch (error) {
      const code = (error as { code?: string }).code;
      return code === "ELOOP" ? CHANGED : UNREADABLE;
    }
    try {
      const maxBytes = this.#options.maxBytes ?? Infinity;
      let record: ReadRecord | undefined;
      if (this.#careful) {
        const info = fstatSync(fd);
        if (!info.isFile()) {
          this.stats.special++;
          return SPECIAL;
        }
        if (info.size > this.#maxFileBytes) {
          this.stats.tooLarge++;
          return TOO_LARGE;
        }
        if (this.stats.bytes + info.size > maxBytes) {
          this.ended = "bytes";
          return CAPPED;
        }
        this.#grow(info.size + 1);
        record = { absolute: file.absolute, dev: info.dev, ino: info.ino };
      }
      let total = 0;
      while (true) {
        if (total === this.#buffer.length) {
          if (total > this.#maxFileBytes) break;
          this.#grow(total + 1);
        }
        const room = this.#buffer.length - total;
        const n = readSync(fd, this.#buffer, total, room, null);
        total += n;
        // A regular file reads short only at its end: no second read to see it (ADR-068).
        if (n < room) break;
      }
      if (total > this.#maxFileBytes) {
        this.stats.tooLarge++;
        return TOO_LARGE;
      }
      if (this.stats.bytes + total > maxBytes) {
        this.ended = "bytes";
        return CAPPED;
      }
      this.stats.bytes += total;
      this.#readsHere++;
      if (record) this.#batch.push(record);
      return total;
    } catch {
      // Reported by the outcome, as a failed open is: the caller counts it (once, and not at
      // all when a changed directory is read again), so not in `stats.errors` as well.
      return UNREADABLE;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The reused buffer the last read went into (its first {@linkcode readLength} bytes are the
   * file's): the one given in the options, or the walker's own once a file needed more room.
   */
  get buffer(): Uint8Array {
    return this.#buffer;
  }

  /** The first `n` bytes of {@linkcode buffer} as a `Buffer` view, valid until the next read. */
  bytes(n: number): Buffer {
    return this.#view.subarray(0, n);
  }

  /** Grows the reused buffer (doubling, keeping its bytes) to at least `size`, at most the cap + 1. */
  #grow(size: number): void {
    if (this.#buffer.length >= size) return;
    let next = this.#buffer.length;
    while (next < size) next *= 2;
    const grown = new Uint8Array(Math.min(next, this.#maxFileBytes + 1));
    grown.set(this.#buffer);
    this.#buffer = grown;
    this.#view = viewOf(grown);
  }

  /**
   * Whether what was read in `nodes` came through the directories recorded:
   * one pass over their chains when none of those directories changed since
   * shortly before the first of them was entered, else (a careful batch, one
   * directory) random probes as in `Workspace` — each either "every file read
   * still sits at its path" (passes only in the state that was read) or "the
   * chain of directories is the recorded one" (passes only in the original
   * state).
   */
  #confirm(nodes: readonly DirNode[], since: number, careful: boolean): boolean {
    try {
      const first = chainState(nodes, since);
      if (first === "quiet") return true;
      // Reads made the fast way recorded nothing to probe.
      if (first === "changed" || !careful) return false;
      const bits = crypto.getRandomValues(new Uint8Array(SWAP_PROBES / 8));
      for (let i = 0; i < SWAP_PROBES; i++) {
        const probeContent = ((bits[i >> 3] >> (i & 7)) & 1) === 1;
        if (
          probeContent ? !this.#batch.every(stillThere) : chainState(nodes, since) === "changed"
        ) {
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

/** A `Buffer` over exactly the bytes of `array` (which may be a window of a larger memory). */
export function viewOf(array: Uint8Array): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

function stillThere(record: ReadRecord): boolean {
  const now = Deno.lstatSync(record.absolute);
  return now.dev === record.dev && now.ino === record.ino;
}

/** Tells one check of chains from the next ({@linkcode DirNode.checked}). */
let chainChecks = 0;

/**
 * Each directory on the chains of `nodes` is still the one recorded, each looked at once
 * (the chain of each from itself up, until a directory this check already saw); quiet when
 * none changed since `since`. Every `lstat` here comes after every read it vouches for.
 */
function chainState(nodes: readonly DirNode[], since: number): "changed" | "recent" | "quiet" {
  const check = ++chainChecks;
  let quiet = true;
  for (const node of nodes) {
    for (let n: DirNode | undefined = node; n !== undefined && n.checked !== check; n = n.parent) {
      n.checked = check;
      const info = Deno.lstatSync(n.absolute);
      if (!info.isDirectory || info.dev !== n.dev || info.ino !== n.ino) return "changed";
      // Deno reports ctime in whole seconds: the change may be up to one later.
      if (info.ctime === null || info.ctime.getTime() + 1000 > since) quiet = false;
    }
  }
  return quiet ? "quiet" : "recent";
}

function parentOf(relative: string): string {
  const slash = relative.lastIndexOf("/");
  return slash < 0 ? "" : relative.slice(0, slash);
}
