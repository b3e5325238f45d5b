/**
 * The shared walker (`src/access/walk.ts`) as find_symbol and
 * project_overview use it: files under a path with their bytes, or why they
 * were not read, and the end of each directory with whether its reads are
 * confirmed (a directory swapped during the walk drops what it gave). A
 * single-file path is read through `Workspace.readRegularFile`. The walk
 * stops when `stop` says so (the tools pass the call's cooperative stop
 * flag, ADR-016): it ends, and the tool returns what it has.
 *
 * @module
 */

import type { Buffer } from "node:buffer";
import type { ResolvedPath } from "../access/resolve.ts";
import { Walker } from "../access/walk.ts";
import { ToolRefusal } from "../contract/refusal.ts";
import type { StopReason } from "../contract/stop.ts";
import type { ToolContext } from "./types.ts";

/** What a walk of sources yields. */
export type SourceEvent =
  | {
    readonly kind: "file";
    /** Relative to the workspace root. */
    readonly path: string;
    readonly name: string;
    /** The file's bytes (valid until the next event), or why it was not read. */
    readonly bytes?: Buffer | Uint8Array;
    readonly skipped?: "too_large" | "binary" | "unreadable";
    /** Its size in bytes when known. */
    readonly size?: number;
  }
  | {
    readonly kind: "directory_done";
    /** False: drop what was read since the last one (a directory on its path was swapped). */
    readonly confirmed: boolean;
    /**
     * True: those files come again next, read the careful way (ADR-139); what was counted for
     * them is to be counted once.
     */
    readonly again: boolean;
  };

/** Options of {@linkcode walkSources}. */
export interface SourceWalkOptions {
  /** Largest file read; larger ones are `too_large` (their size is still given). */
  readonly maxFileBytes: number;
  /** Asked before every directory and file. */
  readonly stop: () => StopReason | undefined;
  /** Whether to read a file at all (by name); unread files come without bytes. */
  readonly wants?: (path: string, name: string) => boolean;
  /** The walk's byte cap (default the configured `MCP_SEARCH__MAX_BYTES`). */
  readonly maxBytes?: number;
}

/** What a finished walk reports. */
export interface SourceWalkEnd {
  directories: number;
  /** Why the walk ended early: a cap (`files`, `bytes`) or a stop. */
  ended?: "files" | "bytes" | "cancelled" | "timed_out";
  errors: number;
}

/** The files under `target` (or `target` itself), read per {@linkcode SourceWalkOptions}. */
export async function* walkSources(
  ctx: ToolContext,
  target: ResolvedPath,
  options: SourceWalkOptions,
  end: SourceWalkEnd = { directories: 0, errors: 0 },
): AsyncGenerator<SourceEvent> {
  const wants = options.wants ?? (() => true);
  if (!target.info.isDirectory) {
    const name = target.relative.slice(target.relative.lastIndexOf("/") + 1);
    if (!wants(target.relative, name)) {
      yield { kind: "file", path: target.relative, name, size: target.info.size };
      return;
    }
    try {
      const { bytes } = await ctx.workspace.readRegularFile(target, options.maxFileBytes);
      yield { kind: "file", path: target.relative, name, bytes, size: bytes.length };
    } catch (error) {
      if (!(error instanceof ToolRefusal)) throw error;
      if (error.code === "too_large") {
        yield { kind: "file", path: target.relative, name, skipped: "too_large" };
      } else if (error.code === "binary_file") {
        yield { kind: "file", path: target.relative, name, skipped: "binary" };
      } else throw error;
    }
    yield { kind: "directory_done", confirmed: true, again: false };
    return;
  }
  const walker = new Walker(ctx.workspace.walkPolicy, ctx.workspace.policy.root, target, {
    maxFiles: ctx.limits.maxWalkFiles,
    maxBytes: options.maxBytes ?? ctx.limits.maxWalkBytes,
    maxFileBytes: options.maxFileBytes,
    stop: { reason: options.stop },
  });
  for (const event of walker.walk()) {
    if (event.kind === "directory_done") {
      yield { kind: "directory_done", confirmed: event.confirmed, again: event.again };
      continue;
    }
    if (!wants(event.path, event.name)) {
      yield { kind: "file", path: event.path, name: event.name };
      continue;
    }
    const read = walker.read(event);
    if (read.ok) {
      const binary = read.bytes.subarray(0, 8192).includes(0);
      yield binary
        ? {
          kind: "file",
          path: event.path,
          name: event.name,
          skipped: "binary",
          size: read.bytes.length,
        }
        : {
          kind: "file",
          path: event.path,
          name: event.name,
          bytes: read.bytes,
          size: read.bytes.length,
        };
      continue;
    }
    // The byte cap: the walker ends at its next entry, after checking what was read (ADR-139).
    if (read.reason === "capped") continue;
    if (read.reason === "special") continue;
    let size: number | undefined;
    if (read.reason === "too_large") {
      try {
        size = Deno.lstatSync(event.absolute).size;
      } catch { /* gone: no size */ }
    }
    yield {
      kind: "file",
      path: event.path,
      name: event.name,
      skipped: read.reason === "too_large" ? "too_large" : "unreadable",
      ...(size !== undefined ? { size } : {}),
    };
  }
  end.directories = walker.stats.directories;
  end.errors = walker.stats.errors;
  if (walker.ended) end.ended = walker.ended;
}

const DECODER = new TextDecoder();

/** Bytes as text (UTF-8, invalid sequences replaced). */
export function decodeText(bytes: Uint8Array): string {
  return DECODER.decode(bytes);
}
