/**
 * A minimal, private walk for find_symbol and project_overview, kept here
 * until the shared walker (issue 6, `src/access/walk.ts`) lands: it must then
 * be replaced by it. It never follows symlinks, skips denied and hidden
 * names and the generated and vendored trees, and stops between
 * directories when asked. It does not read ignore files, and its reads do
 * not carry `read_file`'s swap-race check (the shared walker's will).
 *
 * @module
 */

import type { ResolvedPath } from "../access/resolve.ts";
import type { Workspace } from "../access/workspace.ts";

/** Directories never walked (generated or vendored trees). */
const SKIPPED_DIRS = new Set([
  "node_modules",
  "dist",
  "build",
  "target",
  "vendor",
  "__pycache__",
  "coverage",
]);

/**
 * How long a find_symbol or project_overview call walks before it stops by
 * itself with what it has (`timed_out`), below the default 15 s tool budget:
 * a stand-in until the supervisor raises the shared stop flag at the budget.
 */
export const SOFT_DEADLINE_MS = 10_000;

/** A stop check that also ends the call at {@linkcode SOFT_DEADLINE_MS} from now. */
export function withDeadline(stop: () => boolean, ms = SOFT_DEADLINE_MS): () => boolean {
  const end = performance.now() + ms;
  return () => stop() || performance.now() > end;
}

/** A regular file met by the walk. */
export interface WalkedFile {
  /** Relative to the workspace root, `/`-separated. */
  readonly relative: string;
  readonly absolute: string;
  readonly size: number;
}

/** What a walk met besides files. */
export interface WalkStats {
  directories: number;
  /** True when `maxFiles` ended the walk early. */
  capped: boolean;
}

/**
 * The regular files under `target` (or `target` itself when it is a file),
 * in sorted order, directory by directory. `stop()` is asked between
 * directories; a true answer ends the walk.
 */
export function* walkFiles(
  workspace: Workspace,
  target: ResolvedPath,
  options: { maxFiles: number; stop: () => boolean },
  stats: WalkStats = { directories: 0, capped: false },
): Generator<WalkedFile> {
  if (!target.info.isDirectory) {
    if (target.info.isFile) {
      yield { relative: target.relative, absolute: target.absolute, size: target.info.size };
    }
    return;
  }
  const denylist = workspace.policy.denylist;
  const stack: [string, string][] = [[target.absolute, target.relative]];
  let files = 0;
  while (stack.length > 0) {
    if (options.stop()) return;
    const [dir, rel] = stack.pop()!;
    stats.directories++;
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: [string, string][] = [];
    for (const entry of entries) {
      const name = entry.name;
      if (name.startsWith(".") || entry.isSymlink || denylist.deniesName(name)) continue;
      const absolute = `${dir}/${name}`;
      const relative = rel ? `${rel}/${name}` : name;
      if (entry.isDirectory) {
        if (!SKIPPED_DIRS.has(name)) subdirs.push([absolute, relative]);
        continue;
      }
      if (!entry.isFile) continue;
      let size: number;
      try {
        size = Deno.lstatSync(absolute).size;
      } catch {
        continue;
      }
      if (++files > options.maxFiles) {
        stats.capped = true;
        return;
      }
      yield { relative, absolute, size };
    }
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]);
  }
}

/**
 * A walked file's text, or `undefined` when it cannot be read, is larger than
 * `maxBytes` or looks binary (a NUL byte in its first 8 KiB).
 */
export function readText(file: WalkedFile, maxBytes: number): string | undefined {
  if (file.size > maxBytes) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(file.absolute);
  } catch {
    return undefined;
  }
  if (bytes.length > maxBytes) return undefined;
  if (bytes.subarray(0, 8192).includes(0)) return undefined;
  return DECODER.decode(bytes);
}

const DECODER = new TextDecoder();
