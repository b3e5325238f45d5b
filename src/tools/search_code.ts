/**
 * `search_code`: lines matching a literal or a regular expression across
 * the workspace (or one directory or file), with ripgrep's file selection
 * (the walker and its policy, `src/access/walk.ts`), results grouped by
 * file within the response budget, and a cursor to continue. Schema,
 * handler, result.
 *
 * How a file is searched: its bytes are read into the walker's reused
 * buffer — for a literal, or a regex with a required literal, the memory of
 * a WebAssembly prefilter that settles from the bytes alone every file that
 * is binary or cannot match (`./literal_prefilter.ts`, ADR-103, ADR-104) —
 * and viewed as a latin1 string (one character per byte, so an
 * index is a byte offset); a literal is found with `String.indexOf`, a
 * regular expression with V8's default engine over windows of whole lines
 * (the `--enable-experimental-regexp-engine-on-excessive-backtracks` flag
 * turns a runaway match linear; `./search_matcher.ts`, ADR-066). A candidate is confirmed on its own line, so a
 * match never spans lines; only matching and context lines are decoded
 * (UTF-8). A pattern with non-ASCII characters searches the decoded text
 * instead. A pattern that cannot run in linear time (a backreference, a
 * lookaround) is refused `bad_pattern` — tested by compiling it with the
 * `l` flag, which needs `--enable-experimental-regexp-engine`.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { z } from "zod";
import { toolBudget } from "../contract/budget.ts";
import { refusal, ToolRefusal } from "../contract/refusal.ts";
import type { RawToolResult, TextPart, WithheldSecret } from "../contract/result.ts";
import { EscapedNames } from "../contract/text.ts";
import type { ResolvedPath } from "../access/resolve.ts";
import { GlobError, globToRegExpSource } from "../access/ignore.ts";
import { latin1Text, READ_FAILURES, viewOf, Walker, type WalkFile } from "../access/walk.ts";
import {
  BINARY,
  LiteralPrefilter,
  NONE,
  prefilterable,
  type PrefilterAnswer,
} from "./literal_prefilter.ts";
import { secretMarker } from "../secrets/cut.ts";
import type { ToolContext, ToolDefinition } from "./types.ts";
import { compactHeap } from "../contract/compact.ts";
import { type SearchCodeInput, searchCodeSpec } from "./search_code_spec.ts";
import {
  comparePositions,
  compareWalkOrder,
  HELPER,
  PRIMARY,
  SearchShare,
  type Side,
  type WalkPosition,
} from "./search_share.ts";
import {
  compileMatcher,
  linearEngineAvailable,
  type Matcher,
  type MatchOut,
  type MatchSecret,
  type OutputMode,
  searchText,
  SECRETS_SHOWN,
} from "./search_matcher.ts";

export { linearEngineAvailable, MAX_LINE_CHARS } from "./search_matcher.ts";
export { MAX_GLOBS } from "./search_code_spec.ts";

/** How often (in files) progress is reported. */
const PROGRESS_EVERY = 256;
/**
 * How often (in files a thread searched in one call) the thread's heap is
 * collected (ADR-118): a full scan's garbage is promoted faster than V8's
 * incremental marking reclaims it. ~2 collections a thread in a full scan.
 */
const COMPACT_EVERY_FILES = 16_384;

type SearchCodeArgs = z.infer<typeof SearchCodeInput>;
interface FileOut {
  path: string;
  count?: number;
  matches?: MatchOut[];
}

interface CursorPayload {
  /** The query's fingerprint. */
  q: string;
  /** The file to continue from, relative to the walk's start. */
  f: string;
  /** True: continue at that file (skipping `m` matches already returned); false: after it. */
  i: boolean;
  /** Matches of that file already returned. */
  m: number;
}

/** File globs: a file passes when it matches some include (or there is none) and no `!` exclude. */
function compileGlobs(globs: readonly string[]): (path: string, name: string) => boolean {
  if (globs.length === 0) return () => true;
  const include: ((path: string, name: string) => boolean)[] = [];
  const exclude: ((path: string, name: string) => boolean)[] = [];
  for (const raw of globs) {
    const negated = raw.startsWith("!");
    const glob = negated ? raw.slice(1) : raw;
    const anchored = glob.includes("/");
    let re: RegExp;
    try {
      const source = globToRegExpSource(glob.startsWith("/") ? glob.slice(1) : glob);
      // Linear-time engine where available: no glob can backtrack exponentially.
      re = linearEngineAvailable() ? new RegExp(source, "sl") : new RegExp(source, "s");
    } catch (error) {
      if (!(error instanceof GlobError) && !(error instanceof SyntaxError)) throw error;
      throw new ToolRefusal(
        "invalid_arguments",
        `file_glob ${JSON.stringify(raw.slice(0, 80))} is not a valid glob: ${
          (error as Error).message
        }.`,
      );
    }
    const test = anchored
      ? (path: string) => re.test(path)
      : (_: string, name: string) => re.test(name);
    (negated ? exclude : include).push(test);
  }
  return (path, name) =>
    (include.length === 0 || include.some((t) => t(path, name))) &&
    !exclude.some((t) => t(path, name));
}

/** One file's matches, as found. */
interface FileResult {
  readonly path: string;
  /** Relative to the walk's start: its place in walk order (ADR-064's merge). */
  readonly walkPath: string;
  /** Matches of it passed over (a continued page). */
  readonly skip: number;
  /** Matching lines in the file (all of them, whatever was kept). */
  count: number;
  readonly matches: MatchOut[];
  /** True when the file has matches after the kept ones (the page ended inside it). */
  more: boolean;
}

async function fingerprint(args: SearchCodeArgs, target: ResolvedPath): Promise<string> {
  const key = JSON.stringify([
    args.pattern,
    target.relative,
    args.regex ?? false,
    args.case_sensitive ?? null,
    args.file_glob ?? [],
    args.context_lines ?? 0,
    args.output_mode ?? "content",
  ]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  return Array.from(new Uint8Array(digest).slice(0, 12), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** What a search needs besides the walk: decided once per call, by each thread alike. */
interface Prepared {
  readonly mode: OutputMode;
  readonly context: number;
  readonly maxResults: number;
  readonly matcher: Matcher;
  readonly globs: (path: string, name: string) => boolean;
  readonly target: ResolvedPath;
  readonly query: string;
  readonly resume: CursorPayload | undefined;
  /** Room for the results: the response budget less the header, the counts and the cursor. */
  readonly budget: number;
}

/** The call's arguments turned into a search, or the refusal of its cursor. */
async function prepare(
  args: SearchCodeArgs,
  ctx: ToolContext,
): Promise<Prepared | { refused: RawToolResult }> {
  const mode: OutputMode = args.output_mode ?? "content";
  const context = mode === "content" ? args.context_lines ?? 0 : 0;
  const maxResults = Math.min(args.max_results ?? 100, ctx.limits.maxSearchResults);
  const matcher = compileMatcher(args);
  const globs = compileGlobs(args.file_glob ?? []);
  const target = ctx.workspace.resolve(args.path ?? "");
  const query = await fingerprint(args, target);

  let resume: CursorPayload | undefined;
  if (args.cursor !== undefined) {
    const opened = await ctx.cursors.open(args.cursor);
    if (!opened.ok) return { refused: opened.result };
    resume = opened.payload as CursorPayload;
    if (
      resume === null || typeof resume !== "object" || resume.q !== query ||
      typeof resume.f !== "string" || typeof resume.i !== "boolean" ||
      !Number.isInteger(resume.m) || resume.m < 0
    ) {
      return {
        refused: {
          kind: "invalid_params",
          message:
            "Invalid cursor: it belongs to a different search; repeat the call without cursor.",
        },
      };
    }
  }
  const budget = toolBudget(ctx.limits) - 1_500;
  return { mode, context, maxResults, matcher, globs, target, query, resume, budget };
}

/**
 * The depth (below the walk's start) of the directories two threads claim whole, subtree and
 * all (ADR-064); shallower directories are listed by both and their files claimed one
 * directory at a time. Three, not two (ADR-084): on Linux `arch/arm` (4,689 files before the
 * first 100 `EXPORT_SYMBOL_GPL`) was one claim, searched by one thread while the other went past
 * the page's end.
 */
const SPLIT_DEPTH = 3;

/** The slashes in `walkPath`: a file's directory's depth below the walk's start (which is 0). */
function depthOf(walkPath: string): number {
  let n = 0;
  for (let i = walkPath.indexOf("/"); i >= 0; i = walkPath.indexOf("/", i + 1)) n++;
  return n;
}

/**
 * After how many files searched without a full page a walk asks for a second thread (ADR-064,
 * ADR-084): 64 since ADR-106, about 2 ms of one thread's work on a quiet machine. The helper
 * needs a few ms to be lent, prepare and walk to where the primary is, and until it joins the
 * primary searches alone: at 512 that was the first 13–47 ms of every long search.
 */
export const ASSIST_AFTER_FILES = 64;

async function searchCode(args: SearchCodeArgs, ctx: ToolContext): Promise<RawToolResult> {
  const prepared = await prepare(args, ctx);
  if ("refused" in prepared) return prepared.refused;
  const { mode, target, query } = prepared;
  let scan: ThreadScan;
  if (!target.info.isDirectory) {
    scan = await searchOneFile(prepared, ctx);
  } else if (ctx.assist === undefined) {
    scan = scanTree(prepared, ctx, undefined, PRIMARY);
  } else {
    const share = new SearchShare();
    let answer: Promise<unknown> | undefined;
    const own = scanTree(prepared, ctx, share, PRIMARY, () => {
      answer = ctx.assist!("search_code", args, share.buffer);
    });
    if (answer !== undefined && share.close()) {
      // The helper joined: it owns directories only it has searched.
      const theirs = await answer;
      if (theirs === undefined) {
        return refusal(
          "internal_error",
          "The worker that helped this search was lost; repeat the call.",
        );
      }
      scan = mergeScans(own, decodeScan(theirs as EncodedScan), prepared);
    } else {
      scan = own;
    }
  }
  ctx.progress(scan.scanned, scan.scanned);

  const next = scan.truncated ? scan.end : undefined;
  const nextCursor = next !== undefined
    ? await ctx.cursors.sign({ q: query, ...next } satisfies CursorPayload)
    : undefined;
  return render({
    mode,
    files: scan.files,
    total: mode === "content" ? scan.files.reduce((n, f) => n + f.matches.length, 0) : 0,
    scanned: scan.scanned,
    skipped: {
      binary: scan.skipped.binary,
      too_large: scan.skipped.too_large,
      unreadable: scan.skipped.unreadable + scan.errors + scan.changed,
    },
    truncated: scan.truncated,
    timedOut: scan.timedOut,
    nextCursor,
  });
}

/** The second thread of a search (ADR-064): walks alongside the first, searches what it claims. */
async function assistSearch(
  args: SearchCodeArgs,
  ctx: ToolContext,
  shared: SharedArrayBuffer,
): Promise<EncodedScan | undefined> {
  const share = new SearchShare(shared);
  const prepared = await prepare(args, ctx);
  if ("refused" in prepared || !prepared.target.info.isDirectory) return undefined;
  if (!share.join()) return encodeScan(emptyScan());
  return encodeScan(scanTree(prepared, ctx, share, HELPER));
}

/** One thread's part of a search: its results in walk order, and where they stop being whole. */
interface ThreadScan {
  files: FileResult[];
  scanned: number;
  skipped: { binary: number; too_large: number; unreadable: number };
  /** The walker's unreadable entries, and directories dropped because a folder on their path was swapped. */
  errors: number;
  changed: number;
  /** True: results may go on after `end` (where the next page starts; none: nothing was covered). */
  truncated: boolean;
  timedOut: boolean;
  end: WalkPosition | undefined;
  /** A helper the pool recalled: whole up to its published end, the primary does the rest. */
  handedBack: boolean;
}

function emptyScan(): ThreadScan {
  return {
    files: [],
    scanned: 0,
    skipped: { binary: 0, too_large: 0, unreadable: 0 },
    errors: 0,
    changed: 0,
    truncated: false,
    timedOut: false,
    end: undefined,
    handedBack: false,
  };
}

/** A thread scan as it crosses to the other thread: the secrets each match shows travel beside it. */
interface EncodedScan {
  readonly scan: ThreadScan;
  readonly secrets: (MatchSecret[] | undefined)[][];
}

function encodeScan(scan: ThreadScan): EncodedScan {
  return { scan, secrets: scan.files.map((f) => f.matches.map((m) => SECRETS_SHOWN.get(m))) };
}

function decodeScan(encoded: EncodedScan): ThreadScan {
  const { scan, secrets } = encoded;
  scan.files.forEach((f, i) =>
    f.matches.forEach((m, k) => {
      const shown = secrets[i]?.[k];
      if (shown) SECRETS_SHOWN.set(m, shown);
    })
  );
  return scan;
}

/** One file, named explicitly: searched whatever the ignore files say (as ripgrep does). */
async function searchOneFile(p: Prepared, ctx: ToolContext): Promise<ThreadScan> {
  const scan = emptyScan();
  const { target, resume } = p;
  const name = target.relative.slice(target.relative.lastIndexOf("/") + 1);
  if (!p.globs(name, name) || (resume && !resume.i)) return scan;
  let bytes: Uint8Array;
  try {
    ({ bytes } = await ctx.workspace.readRegularFile(target, ctx.limits.maxSearchFileBytes));
  } catch (error) {
    if (!(error instanceof ToolRefusal)) throw error;
    if (error.code === "binary_file") scan.skipped.binary++;
    else if (error.code === "too_large") scan.skipped.too_large++;
    else throw error;
    return scan;
  }
  scan.scanned = 1;
  const page = new Page(p, ctx, scan);
  page.consider(
    target.relative,
    name,
    viewOf(bytes),
    resume?.m ?? 0,
    new TextDecoder("latin1").decode(bytes),
  );
  page.commit(true);
  if (page.next) {
    scan.truncated = true;
    scan.end = page.next;
  }
  return scan;
}

/**
 * One thread's page: the results of the directory being walked (provisional until the walker
 * confirms it), the committed ones, what they cost, and where the next page starts.
 */
class Page {
  spent = 0;
  total = 0;
  pending: FileResult[] = [];
  pendingTotal = 0;
  next: WalkPosition | undefined;
  timedOut = false;
  /** Where binary files are counted: the counts of the directory being walked. */
  here = { scanned: 0, binary: 0, too_large: 0, unreadable: 0 };
  /** The committed results counted up to and including each of `scan.files` (ADR-084). */
  readonly upTo: number[] = [];
  /** What was spent when the walker last confirmed: a batch read again spends it once (ADR-139). */
  #committedSpent = 0;

  constructor(
    readonly p: Prepared,
    readonly ctx: ToolContext,
    readonly scan: ThreadScan,
    readonly prefilter?: LiteralPrefilter,
  ) {}

  /** The committed results of files before `walkPath` in walk order. */
  committedBefore(walkPath: string): number {
    const files = this.scan.files;
    let lo = 0, hi = files.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareWalkOrder(files[mid].walkPath, walkPath) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : this.upTo[lo - 1];
  }

  produced(): number {
    return this.p.mode === "content"
      ? this.total + this.pendingTotal
      : this.scan.files.length + this.pending.length;
  }

  /**
   * Whether the prefilter's `answer` settles a file without its text: binary (counted) or
   * without the literal (ADR-103); what the search would find is the same.
   */
  settledBy(answer: PrefilterAnswer): boolean {
    if (answer === BINARY) {
      this.here.binary++;
      return true;
    }
    return answer === NONE;
  }

  /**
   * {@linkcode consider} for the `length` bytes the walker just read into its buffer: when
   * that buffer is the prefilter's memory, the prefilter is asked of them in place, and a file
   * it settles needs no view of its bytes (ADR-120).
   */
  considerRead(
    path: string,
    walkPath: string,
    walker: Walker,
    length: number,
    skip: number,
  ): boolean {
    const prefilter = this.prefilter;
    if (prefilter !== undefined && walker.buffer === prefilter.buffer) {
      if (this.settledBy(prefilter.scanInPlace(length))) return true;
      const bytes = walker.bytes(length);
      return this.consider(path, walkPath, bytes, skip, latin1Text(bytes));
    }
    return this.consider(path, walkPath, walker.bytes(length), skip);
  }

  /**
   * Searches one file's bytes; false when the page is full (and `next` says where to go on).
   * `latin1` is the bytes as a latin1 string, made here from them when not given. With a
   * prefilter, a file the prefilter finds binary or without the literal is settled from its
   * bytes alone, without the string (ADR-103): what follows would have found the same.
   */
  consider(
    path: string,
    walkPath: string,
    bytes: Buffer,
    skip: number,
    latin1?: string,
  ): boolean {
    const { mode, maxResults, budget } = this.p;
    if (latin1 === undefined && this.prefilter !== undefined) {
      if (this.settledBy(this.prefilter.scan(bytes))) return true;
    }
    latin1 ??= latin1Text(bytes);
    if (latin1.indexOf("\0") >= 0) {
      this.here.binary++;
      return true;
    }
    const room = mode === "content" ? maxResults - this.produced() : Infinity;
    const found = searchText(
      bytes,
      latin1,
      this.p.matcher,
      mode,
      this.p.context,
      skip,
      room,
      this.ctx,
    );
    if (found.count <= skip) return true;
    let kept = found.matches;
    let cost = fileCost(path, mode, found.count);
    let cut = false;
    for (let n = 0; n < kept.length; n++) {
      const c = matchCost(kept[n]);
      if (this.spent + cost + c > budget) {
        kept = kept.slice(0, n);
        cut = true;
        break;
      }
      cost += c;
    }
    const result = { path, walkPath, skip, count: found.count, matches: kept, more: false };
    if (cut || this.spent + cost > budget) {
      if (mode === "content" && kept.length > 0) {
        result.more = true;
        this.pending.push(result);
        this.pendingTotal += kept.length;
        this.spent += cost;
      }
      this.next = { f: walkPath, i: true, m: skip + (mode === "content" ? kept.length : 0) };
      return false;
    }
    this.spent += cost;
    this.pending.push(result);
    this.pendingTotal += mode === "content" ? kept.length : 1;
    if (found.more) {
      // More matches than room, or the stop flag rose inside this file: continue at it.
      result.more = true;
      this.timedOut = found.stopped && this.ctx.stop.reason() === "timed_out";
      this.next = { f: walkPath, i: true, m: skip + kept.length };
      return false;
    }
    if (this.produced() >= maxResults) {
      this.next = { f: walkPath, i: false, m: 0 };
      return false;
    }
    return true;
  }

  /** The walker is done with a directory: keep its results if confirmed, count it once. */
  commit(confirmed: boolean, again = false): void {
    if (again) {
      // The batch comes again (ADR-139): what its files set is set back to the last commit,
      // where the page was not full (else the walk had ended there).
      this.spent = this.#committedSpent;
      this.next = undefined;
      this.timedOut = false;
    }
    if (confirmed) {
      this.scan.files.push(...this.pending);
      this.total += this.pendingTotal;
      for (const f of this.pending) {
        const before = this.upTo.length > 0 ? this.upTo[this.upTo.length - 1] : 0;
        this.upTo.push(before + (this.p.mode === "content" ? f.matches.length : 1));
      }
    }
    if (!again) {
      const { scan, here } = this;
      scan.scanned += here.scanned;
      scan.skipped.binary += here.binary;
      scan.skipped.too_large += here.too_large;
      scan.skipped.unreadable += here.unreadable;
    }
    this.here = { scanned: 0, binary: 0, too_large: 0, unreadable: 0 };
    this.pending = [];
    this.pendingTotal = 0;
    if (!confirmed) this.spent = this.#committedSpent;
    this.#committedSpent = this.spent;
  }
}

/**
 * Walks the search's directory on one thread. Alone (`share` undefined) it searches every
 * file; with a share, only the directories this side claims first, passing the others' files
 * over unopened (ADR-064) and, since ADR-094, before their policy. `askForHelp` is called once,
 * when the walk looks long.
 */
function scanTree(
  p: Prepared,
  ctx: ToolContext,
  share: SearchShare | undefined,
  side: Side,
  askForHelp?: () => void,
): ThreadScan {
  const scan = emptyScan();
  const { resume, target } = p;
  const literal = p.matcher.literal;
  // This walk's own prefilter: the walker reads into its memory (ADR-103).
  const prefilter = literal !== undefined && prefilterable(literal.text)
    ? new LiteralPrefilter(literal.text, literal.fold, ctx.limits.maxSearchFileBytes)
    : undefined;
  const page = new Page(p, ctx, scan, prefilter);
  const walker = new Walker(ctx.workspace.walkPolicy, ctx.workspace.policy.root, target, {
    ...(prefilter !== undefined ? { buffer: prefilter.buffer } : {}),
    maxFiles: ctx.limits.maxWalkFiles,
    maxBytes: ctx.limits.maxWalkBytes,
    maxFileBytes: ctx.limits.maxSearchFileBytes,
    stop: ctx.stop,
    ...(resume ? { resumeAfter: { path: resume.f, inclusive: resume.i } } : {}),
    ...(share !== undefined
      ? { enter: (walkPath: string) => enter(walkPath), files: (first: string) => filesOf(first) }
      : {}),
  });
  /**
   * Which directories this side enters: above the split depth all, at it those it claims;
   * below it all (they are in a subtree this side entered). A recalled helper enters no new
   * subtree, but one it claimed comes back whole when a batch in it is walked again (ADR-139),
   * and so do the directories above that lead to it.
   */
  const enter = (walkPath: string): boolean => {
    if (full) return false;
    const depth = depthOf(walkPath) + 1;
    if (depth > SPLIT_DEPTH) return true;
    if (!leaving && side === HELPER && ctx.recalled?.()) {
      // Between subtrees: everything it claimed is searched; the primary takes the rest.
      leaving = true;
      scan.handedBack = true;
    }
    if (leaving) {
      if (depth === SPLIT_DEPTH) return claimed.has(walkPath);
      // Above the split depth: a directory whose files it claimed, or one that leads to one
      // of those or to a subtree it claimed.
      if (claimed.has(walkPath)) return true;
      const prefix = walkPath + "/";
      for (const mine of claimed) if (mine.startsWith(prefix)) return true;
      return false;
    }
    if (depth < SPLIT_DEPTH) return true;
    if (share!.claim("t\0" + walkPath, side) !== side) return false;
    if (side === HELPER) claimed.add(walkPath);
    return true;
  };
  /**
   * The subtrees a helper claimed, and the directories above the split depth whose files it
   * claimed: to enter them again if recalled meanwhile (ADR-139).
   */
  const claimed = new Set<string>();
  /**
   * Whether the files of the directory whose first file the policy lets through is `first` are
   * this side's, asked by the walker at that file (ADR-094, ADR-101: never with a refused name,
   * which would become a published front): below the split depth they are (the subtree was
   * claimed whole), above it the first side to ask claims them; the rest of the other's are
   * passed over unasked. Every directory with files also publishes this side's front and reads the other's
   * end and front (ADR-084), the other's directories included, so leaving their files out
   * delays no decision to stop.
   */
  const filesOf = (first: string): boolean => {
    if (full) return false;
    const theirs = share!.endOf(other);
    if (theirs !== undefined && compareWalkOrder(first, theirs.f) > 0) {
      // The other side stopped before here: nothing from here on can be on this page.
      scan.truncated = true;
      page.next = theirs;
      full = true;
      return false;
    }
    const mine = depthOf(first) >= SPLIT_DEPTH ||
      share!.claim("f\0" + parentOf(first), side) === side;
    if (mine && side === HELPER && depthOf(first) < SPLIT_DEPTH) claimed.add(parentOf(first));
    // Everything this side owns before here is committed: say so, and see whether the two
    // sides' results before the other's front already fill the page (ADR-084).
    share!.publishFront(side, first, page.total);
    if (frontFills(first)) return false;
    return mine;
  };
  /** The other side's front as last read, and the sequence word it was read at (ADR-106). */
  let seenFront: { f: string; count: number } | undefined;
  let seenSeq = 0;
  /**
   * Whether the two sides' results before the other's front fill the page, this side being at
   * or past that front at `at` (ADR-084); if so the page ends there. Asked at every file, not
   * only at a directory's first (ADR-106): a thread past the page's end in a long directory
   * stops as soon as the other publishes the front that decides it. The other's count is
   * tested first (one shared word); its path is read again only when its sequence moved.
   */
  const frontFills = (at: string): boolean => {
    if (page.total + share!.frontCount(other) < p.maxResults) return false;
    const seq = share!.frontSeq(other);
    if (seq !== seenSeq) {
      const front = share!.frontOf(other);
      if (front === undefined) return false; // being written: asked again at the next file
      seenFront = front;
      seenSeq = seq;
    }
    const front = seenFront;
    if (
      front === undefined ||
      compareWalkOrder(front.f, at) > 0 ||
      page.committedBefore(front.f) + front.count < p.maxResults
    ) return false;
    // Every directory before the other's front is searched (each side is past it and has
    // committed what it owns there), and they hold a full page: the page ends before it.
    // Results of this side's directory in progress are not counted (not yet committed), so
    // the count is a lower bound, and the page's end is exact all the same.
    scan.truncated = true;
    page.next = { f: front.f, i: true, m: 0 };
    full = true;
    return true;
  };
  const other: Side = side === PRIMARY ? HELPER : PRIMARY;
  let full = false;
  let lastWalked: string | undefined;
  let reported = 0;
  let searched = 0;
  /** A helper the pool recalled: it enters nothing more and claims nothing more. */
  let leaving = false;
  /** The last file walked when the walker last confirmed, and the shared counts added since. */
  let committedWalked: string | undefined;
  /**
   * A batch left for a later page (`rewalkCut`), or one a recalled helper walks again
   * (`rewalking`): either way, this thread's part is not whole up to where it left (ADR-139).
   */
  let rewalkCut = false, rewalking = false;
  let walkedSince = 0, bytesSince = 0;
  /**
   * The first file the walker gave since the last `directory_done`; and, when a batch that
   * held this thread's first files is left for later, where its part ends: before that file.
   */
  let firstSince: string | undefined, cutBefore: string | undefined;
  for (const event of walker.walk()) {
    if (event.kind === "directory_done") {
      // A batch that comes again, or one left unconfirmed because the walk has ended (a stop or
      // a cap, so it cannot come again now): this page ends before it, so a later one searches it.
      const retried = event.again || (!event.confirmed && walker.ended !== undefined);
      page.commit(event.confirmed, retried);
      if (retried) {
        // The page was not full at the last commit (the walk would have ended there), and what
        // the batch's files counted in the shared caps is taken back, so they count once.
        full = false;
        scan.truncated = false;
        lastWalked = committedWalked;
        share?.uncount(walkedSince, bytesSince);
        if (!event.again) rewalkCut = true;
        else rewalking = true;
        if (committedWalked === undefined) cutBefore ??= firstSince;
      } else committedWalked = lastWalked;
      walkedSince = bytesSince = 0;
      firstSince = undefined;
      if (full) break;
      continue;
    }
    firstSince ??= event.walkPath;
    if (full) continue;
    const file: WalkFile = event;
    if (share !== undefined) {
      // Asked at every file, so a long directory is left as soon as the other side stops.
      const theirs = share.endOf(other);
      if (theirs !== undefined && compareWalkOrder(file.walkPath, theirs.f) > 0) {
        // The other side stopped before here (its page is full, or the budget or a cap ended
        // it, or the two pages together fill it before here): nothing from here on can be
        // returned on this page.
        scan.truncated = true;
        page.next = theirs;
        full = true;
        continue;
      }
      if (frontFills(file.walkPath)) continue;
    }
    walkedSince++;
    if (share !== undefined && share.countWalked() > ctx.limits.maxWalkFiles) {
      // The file cap counts both threads' files: this one was not searched; the next page
      // starts at it (not "after the last walked", which a helper may not have).
      scan.truncated = true;
      page.next = { f: file.walkPath, i: true, m: 0 };
      full = true;
      continue;
    }
    if (!p.globs(file.walkPath, file.name)) {
      lastWalked = file.walkPath;
      continue;
    }
    // The length alone, no record or view per file (ADR-120): most files are settled by the
    // prefilter from it, in the memory the walker read them into.
    const length = walker.readLength(file);
    if (length < 0) {
      const reason = READ_FAILURES[~length];
      if (reason === "capped") {
        // The byte cap: this file was not read; the next page starts at it.
        scan.truncated = true;
        page.next = { f: file.walkPath, i: true, m: 0 };
        full = true;
        continue;
      }
      if (reason === "too_large") page.here.too_large++;
      else if (reason !== "special") page.here.unreadable++;
      lastWalked = file.walkPath;
      continue;
    }
    bytesSince += length;
    if (share !== undefined && share.addBytes(length) + length > ctx.limits.maxWalkBytes) {
      // The byte cap counts both threads' reads.
      scan.truncated = true;
      page.next = { f: file.walkPath, i: true, m: 0 };
      full = true;
      continue;
    }
    page.here.scanned++;
    searched++;
    if (searched % COMPACT_EVERY_FILES === 0) compactHeap();
    const progress = share !== undefined ? share.countScanned() : scan.scanned + page.here.scanned;
    if (side === PRIMARY && progress - reported >= PROGRESS_EVERY) {
      reported = progress;
      ctx.progress(progress);
    }
    if (askForHelp !== undefined && searched === ASSIST_AFTER_FILES) askForHelp();
    const skip = resume && resume.i && file.walkPath === resume.f ? resume.m : 0;
    lastWalked = file.walkPath;
    if (!page.considerRead(file.path, file.walkPath, walker, length, skip)) {
      scan.truncated = true;
      full = true;
    }
  }
  page.commit(false);
  scan.timedOut = page.timedOut;
  if (walker.ended !== undefined && !full) {
    scan.truncated = true;
    scan.timedOut = walker.ended === "timed_out";
    page.next = lastWalked !== undefined
      ? { f: lastWalked, i: false, m: 0 }
      : cutBefore !== undefined
      // At the resume point itself, the matches it skipped there are still skipped.
      ? { f: cutBefore, i: true, m: resume?.i && resume.f === cutBefore ? resume.m : 0 }
      : resume
      ? { f: resume.f, i: resume.i, m: resume.m }
      : undefined;
  }
  // A helper that left between subtrees has searched all it claimed: nothing of it is cut.
  // Unless the walk ended before a batch of what it claimed came again (ADR-139): then its end
  // stands, and the merge cuts there like any thread's.
  if (leaving && !rewalkCut && !(rewalking && walker.ended !== undefined)) scan.truncated = false;
  else if (leaving) scan.handedBack = false;
  scan.end = scan.truncated ? page.next : undefined;
  scan.errors = walker.stats.errors;
  scan.changed = walker.stats.changed;
  if (share !== undefined && scan.truncated && scan.end !== undefined) {
    share.publishEnd(side, scan.end);
  }
  return scan;
}

/**
 * The two threads' results as one page: in walk order, up to the earlier of their ends, and
 * within the page's limits (each thread applied them to its own results alone, so the page
 * always fills before either thread's end).
 */
function mergeScans(a: ThreadScan, b: ThreadScan, p: Prepared): ThreadScan {
  const { mode, maxResults, budget } = p;
  let cut: WalkPosition | undefined;
  let cutAtStart = false;
  let cutTimedOut = false;
  for (const s of [a, b]) {
    if (!s.truncated || s.handedBack) continue;
    if (s.end === undefined) {
      cutAtStart = true;
      cutTimedOut ||= s.timedOut;
    } else if (cut === undefined || comparePositions(s.end, cut) < 0) {
      cut = s.end;
      cutTimedOut = s.timedOut;
    }
  }
  const merged: FileResult[] = [];
  if (!cutAtStart) {
    let i = 0, k = 0;
    while (i < a.files.length || k < b.files.length) {
      const takeA = k >= b.files.length ||
        (i < a.files.length && compareWalkOrder(a.files[i].walkPath, b.files[k].walkPath) < 0);
      const f = takeA ? a.files[i++] : b.files[k++];
      if (cut !== undefined && compareWalkOrder(f.walkPath, cut.f) > 0) continue;
      merged.push(f);
    }
  }
  const out = emptyScan();
  out.scanned = a.scanned + b.scanned;
  out.skipped = {
    binary: a.skipped.binary + b.skipped.binary,
    too_large: a.skipped.too_large + b.skipped.too_large,
    unreadable: a.skipped.unreadable + b.skipped.unreadable,
  };
  // Each walker counts the directories it entered (both, above the split depth).
  out.errors = a.errors + b.errors;
  out.changed = a.changed + b.changed;
  let spent = 0, total = 0;
  const stop = (end: WalkPosition, timedOut = false) => {
    out.truncated = true;
    out.end = end;
    out.timedOut = timedOut;
  };
  for (const f of merged) {
    let kept = f.matches;
    let more = f.more;
    if (mode === "content" && kept.length > maxResults - total) {
      kept = kept.slice(0, maxResults - total);
      more = true;
    }
    let cost = fileCost(f.path, mode, f.count);
    let over = false;
    for (let n = 0; n < kept.length; n++) {
      const c = matchCost(kept[n]);
      if (spent + cost + c > budget) {
        kept = kept.slice(0, n);
        over = true;
        break;
      }
      cost += c;
    }
    const atCut = cut !== undefined && compareWalkOrder(f.walkPath, cut.f) === 0;
    if (over || spent + cost > budget) {
      if (mode === "content" && kept.length > 0) out.files.push({ ...f, matches: kept });
      stop({ f: f.walkPath, i: true, m: f.skip + (mode === "content" ? kept.length : 0) });
      break;
    }
    spent += cost;
    out.files.push(kept === f.matches ? f : { ...f, matches: kept });
    total += mode === "content" ? kept.length : 1;
    if (more) {
      stop(
        { f: f.walkPath, i: true, m: f.skip + kept.length },
        atCut && kept.length === f.matches.length && cutTimedOut,
      );
      break;
    }
    if (total >= maxResults) {
      stop({ f: f.walkPath, i: false, m: 0 });
      break;
    }
  }
  if (!out.truncated && (cut !== undefined || cutAtStart)) {
    out.truncated = true;
    out.end = cut;
    out.timedOut = cutTimedOut;
  }
  return out;
}

function parentOf(relative: string): string {
  const slash = relative.lastIndexOf("/");
  return slash < 0 ? "" : relative.slice(0, slash);
}

/** What one file costs in the budget besides its matches: its path in both halves. */
function fileCost(path: string, mode: OutputMode, count: number): number {
  return 2 * path.length + 40 + (mode === "count" ? 2 * String(count).length + 12 : 0);
}

/**
 * What one match costs in the budget: its JSON and its text line, context included, and
 * what withholding the secrets it shows may add in both halves.
 */
function matchCost(match: MatchOut): number {
  let context = 0;
  for (const line of match.before ?? []) context += 2 * line.length + 16;
  for (const line of match.after ?? []) context += 2 * line.length + 16;
  let withheld = 0;
  for (const p of SECRETS_SHOWN.get(match) ?? []) {
    withheld += 2 * Math.max(0, secretMarker(p.rule).length - (p.end - p.start));
  }
  return 2 * match.text.length + 60 + context + withheld;
}

interface Rendered {
  mode: OutputMode;
  files: FileResult[];
  total: number;
  scanned: number;
  skipped: { binary: number; too_large: number; unreadable: number };
  truncated: boolean;
  timedOut: boolean;
  nextCursor: string | undefined;
}

function render(r: Rendered): RawToolResult {
  const { mode, files } = r;
  const total = mode === "count" ? files.reduce((n, f) => n + f.count, 0) : r.total;
  const what = mode === "content"
    ? `${total} matching lines in ${files.length} files`
    : mode === "count"
    ? `${total} matching lines in ${files.length} files`
    : `${files.length} files with matches`;
  const skips = [
    ...(r.skipped.binary ? [`${r.skipped.binary} binary`] : []),
    ...(r.skipped.too_large ? [`${r.skipped.too_large} too large`] : []),
    ...(r.skipped.unreadable ? [`${r.skipped.unreadable} unreadable`] : []),
  ];
  const header = `search_code: ${what}; ${r.scanned} files searched` +
    (skips.length ? ` (skipped: ${skips.join(", ")})` : "") +
    (r.timedOut ? "; stopped at the time budget" : "") +
    (r.truncated ? (r.nextCursor ? "; more with next_cursor" : "; more results were cut") : "") +
    ".";
  const lines: string[] = [];
  // The text part's length so far: where the next line starts in it.
  let offset = 0;
  const push = (line: string) => {
    lines.push(line);
    offset += line.length + 1;
  };
  const withheld = new Map<
    string,
    WithheldSecret & { pieces: WithheldSecret["pieces"][number][] }
  >();
  /** Where the secrets `m` (match `mi` of file `fi`) shows lie; `at(key, k)` is where its line starts in the text, if it is written there. */
  const withhold = (
    fi: number,
    mi: number,
    m: MatchOut,
    at: (key: string, k: number) => number | undefined,
  ) => {
    for (const p of SECRETS_SHOWN.get(m) ?? []) {
      const id = `${fi}:${p.id}`;
      const secret = withheld.get(id) ?? { rule: p.rule, pieces: [] };
      withheld.set(id, secret);
      const field = ["files", fi, "matches", mi, p.key, ...(p.key === "text" ? [] : [p.k])];
      secret.pieces.push({ at: { field }, start: p.start, end: p.end });
      const lineAt = at(p.key, p.k);
      if (lineAt !== undefined) {
        secret.pieces.push({ at: { part: 1 }, start: lineAt + p.start, end: lineAt + p.end });
      }
    }
  };
  const names = new EscapedNames();
  for (const [fi, file] of files.entries()) {
    const path = names.escape(file.path);
    if (mode === "files_with_matches") {
      push(path);
      continue;
    }
    if (mode === "count") {
      push(`${path}:${file.count}`);
      continue;
    }
    push(path);
    let shown = 0; // last line number written, so context is not repeated
    for (const [mi, m] of file.matches.entries()) {
      const written = new Map<string, number>(); // "key k" → where its text starts
      const write = (key: string, k: number, prefix: string, line: string) => {
        written.set(`${key} ${k}`, offset + prefix.length);
        push(prefix + line);
      };
      const before = m.before ?? [];
      for (let k = 0; k < before.length; k++) {
        const n = m.line - before.length + k;
        if (n > shown) write("before", k, `${n}-`, before[k]);
      }
      if (m.line > shown) write("text", 0, `${m.line}:`, m.text);
      const after = m.after ?? [];
      for (let k = 0; k < after.length; k++) write("after", k, `${m.line + 1 + k}-`, after[k]);
      shown = m.line + after.length;
      withhold(fi, mi, m, (key, k) => written.get(`${key} ${k}`));
    }
  }
  const parts: TextPart[] = [{ text: header, untrusted: false }];
  if (lines.length > 0) {
    parts.push({
      text: lines.join("\n"),
      untrusted: true,
      label: "search-results",
      escaped: names.list,
    });
  }
  return {
    kind: "ok",
    parts,
    ...(withheld.size ? { withheld: [...withheld.values()] } : {}),
    structured: {
      output_mode: mode,
      files: files.map((f) => ({
        path: f.path,
        ...(mode === "count" ? { count: f.count } : {}),
        ...(mode === "content" ? { matches: f.matches } : {}),
      })),
      total_matches: total,
      files_scanned: r.scanned,
      skipped: r.skipped,
      truncated: r.truncated,
      timed_out: r.timedOut,
      ...(r.nextCursor ? { next_cursor: r.nextCursor } : {}),
    },
  };
}

/** The `search_code` tool: its spec (`search_code_spec.ts`, ADR-117) and its handler. */
export const searchCodeTool: ToolDefinition = {
  ...searchCodeSpec,
  run: searchCode as ToolDefinition["run"],
  assist: assistSearch as ToolDefinition["assist"],
};
