/**
 * Path semantics: what a client's path string means on the platform the
 * server runs on, and which spellings name the same file. Two questions,
 * answered here and nowhere else:
 *
 * - **What does a requested path say?** {@linkcode PathSemantics.checkRequestedPath}
 *   splits it into components by the platform's separators (`/` on posix and
 *   macOS; `/` and `\` on Windows) and refuses, with a typed verdict, the
 *   spellings whose meaning containment cannot know or check: NUL bytes,
 *   over-long paths and components everywhere; on Windows also device and
 *   verbatim namespaces (`\\.\`, `\\?\`, `\??\`), drive-relative (`C:x`) and
 *   drive-less rooted (`\x`) paths, alternate data streams (`file::$DATA`),
 *   characters Windows forbids, reserved device names (`CON`, `nul.txt`,
 *   `COM1`), names ending in a dot or a space (Windows strips them, so
 *   `.env ` would open `.env`) and 8.3 short names (`GIT~1`, an alias of a
 *   long name nobody can see in the string); on macOS a `..namedfork`
 *   component (a resource fork). The order of these rules is
 *   {@linkcode REQUEST_RULES}, written once.
 * - **Which names are the same name?** {@linkcode denyKeys}: the forms the
 *   denylist compares, on every platform — case folded, Unicode
 *   compatibility-normalised (NFKC, which also covers the NFC/NFD spellings
 *   APFS and HFS+ treat as one, and the Kelvin sign K that case-folds to
 *   `k`), the code points HFS+ ignores removed, trailing dots and spaces
 *   stripped (as Windows does), and split at `\` too. One fold everywhere
 *   because a server cannot know the filesystem under a path (a Linux host
 *   may serve an ext4 case-folding directory, a vfat, exFAT, NTFS or SMB
 *   mount): a name the fold joins to a denied one is denied even where the
 *   filesystem would keep them apart, which costs nothing real.
 *
 * The semantics of the host is {@linkcode hostSemantics}; tests inject the
 * others to run Windows and macOS rules on any OS (ADR-048).
 *
 * @module
 */

import type { RefusalCode } from "../contract/refusal.ts";

/** The three path dialects containment knows. */
export type PathFlavor = "posix" | "windows" | "darwin";

/** How far a path may go before it is refused as malformed. */
export const PATH_LIMITS = { maxLength: 4096, maxComponentBytes: 255 };

/** Why a requested path was refused before the filesystem was asked. */
export type PathHazard =
  | "nul_byte"
  | "too_long"
  | "long_component"
  | "device_namespace"
  | "drive_relative"
  | "rooted_without_drive"
  | "stream"
  | "illegal_character"
  | "reserved_name"
  | "trailing_dot_or_space"
  | "short_name"
  | "named_fork";

/** The verdict on a requested path: its components, or the hazard that refuses it. */
export type PathVerdict =
  | {
    readonly ok: true;
    /**
     * For an absolute path, its volume: `""` for a posix `/`, `"C:"` for a
     * drive (upper case), `"//server/share"` for a UNC share (as spelled);
     * `undefined` for a relative path.
     */
    readonly volume: string | undefined;
    /** The components after the volume, `""` and `.` dropped, `..` kept (containment takes it physically). */
    readonly components: readonly string[];
  }
  | {
    readonly ok: false;
    readonly hazard: PathHazard;
    readonly code: RefusalCode;
    /** Names no path: safe to show (the remedy is the code's default). */
    readonly message: string;
  };

/** A platform's path semantics. */
export interface PathSemantics {
  readonly flavor: PathFlavor;
  /** Characters that separate components in a requested path. */
  readonly separators: readonly string[];
  /** Parses a requested path, or says which rule refuses it (in {@linkcode REQUEST_RULES} order). */
  checkRequestedPath(path: string): PathVerdict;
  /**
   * Whether a component (one that passed {@linkcode checkRequestedPath}) is
   * shaped like an 8.3 short name (`GIT~1`), which may be an alias of another
   * entry's long name. Containment accepts such a component only where the
   * folder lists it as a long name, exactly; else it refuses with
   * {@linkcode hazardRefusal}`("short_name")`. Always false off Windows.
   */
  mayAlias(component: string): boolean;
}

/**
 * Every rule a requested path meets before containment asks the filesystem,
 * in the order they apply: the first that matches decides. A rule applies to
 * the flavors listed.
 */
export const REQUEST_RULES: readonly {
  readonly hazard: PathHazard;
  readonly flavors: readonly PathFlavor[];
  readonly message: string;
}[] = [
  {
    hazard: "nul_byte",
    flavors: ["posix", "windows", "darwin"],
    message: "The path contains a NUL byte.",
  },
  {
    hazard: "too_long",
    flavors: ["posix", "windows", "darwin"],
    message: `The path is longer than ${PATH_LIMITS.maxLength} characters.`,
  },
  {
    hazard: "device_namespace",
    flavors: ["windows"],
    message: "The path is in a Windows device or verbatim namespace (\\\\.\\, \\\\?\\, \\??\\).",
  },
  {
    hazard: "drive_relative",
    flavors: ["windows"],
    message:
      "The path is relative to a drive's current folder (like C:x), which the server cannot know.",
  },
  {
    hazard: "rooted_without_drive",
    flavors: ["windows"],
    message:
      "The path starts at the root of the current drive (like \\x), which the server cannot know.",
  },
  {
    hazard: "long_component",
    flavors: ["posix", "windows", "darwin"],
    message: `A path component is longer than ${PATH_LIMITS.maxComponentBytes} bytes.`,
  },
  {
    hazard: "stream",
    flavors: ["windows"],
    message: "A path component names an alternate data stream or a drive (it contains a colon).",
  },
  {
    hazard: "illegal_character",
    flavors: ["windows"],
    message:
      'A path component contains a character Windows does not allow in names (<>"|?* or a control character).',
  },
  {
    hazard: "reserved_name",
    flavors: ["windows"],
    message: "A path component is a Windows device name (CON, PRN, AUX, NUL, COM1, LPT1, …).",
  },
  {
    hazard: "trailing_dot_or_space",
    flavors: ["windows"],
    message:
      "A path component ends in a dot or a space, which Windows strips, so it would name another file.",
  },
  // Decided by containment, after the denylist, against the folder's names (`mayAlias`).
  {
    hazard: "short_name",
    flavors: ["windows"],
    message:
      "A path component is an 8.3 short name (like GIT~1), an alias whose long name cannot be checked.",
  },
  {
    hazard: "named_fork",
    flavors: ["darwin"],
    message: "A path component is ..namedfork, which opens a file's resource fork on macOS.",
  },
];

const RULE_MESSAGE = new Map(REQUEST_RULES.map((r) => [r.hazard, r.message]));

/** The refusal verdict of one hazard. */
export function hazardRefusal(hazard: PathHazard): PathVerdict & { readonly ok: false } {
  return {
    ok: false,
    hazard,
    code: "invalid_path",
    message: RULE_MESSAGE.get(hazard)!,
  };
}

/** The Windows names that open a device whatever folder or extension they carry. */
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)$/i;
// deno-lint-ignore no-control-regex
const WINDOWS_ILLEGAL = /[<>"|?*\x00-\x1f]/;
/** An 8.3 short name: a base of at most 8 characters ending `~` and digits, an extension of at most 3. */
const SHORT_NAME = /^[^.~]{0,7}~[0-9]{1,7}(\.[^.]{0,3})?$/;
const ENCODER = new TextEncoder();

function componentHazard(flavor: PathFlavor, c: string): PathHazard | undefined {
  if (ENCODER.encode(c).length > PATH_LIMITS.maxComponentBytes) return "long_component";
  if (c === "." || c === "..") return undefined;
  if (flavor === "darwin") return c.toLowerCase() === "..namedfork" ? "named_fork" : undefined;
  if (flavor !== "windows") return undefined;
  if (c.includes(":")) return "stream";
  if (WINDOWS_ILLEGAL.test(c)) return "illegal_character";
  // Windows takes the part before the first dot, trailing spaces dropped: `nul.txt`, `NUL .x`.
  const base = c.split(".")[0].replace(/ +$/, "");
  if (RESERVED.test(base)) return "reserved_name";
  if (/[. ]$/.test(c)) return "trailing_dot_or_space";
  return undefined;
}

/** Whether `c` has the shape of an 8.3 short name (a base of at most 8 characters). */
function shortNameShaped(c: string): boolean {
  if (!c.includes("~") || !SHORT_NAME.test(c)) return false;
  const dot = c.lastIndexOf(".");
  return (dot < 0 ? c.length : dot) <= 8;
}

function splitComponents(path: string, separators: RegExp): string[] {
  return path.split(separators).filter((c) => c !== "" && c !== ".");
}

function verdictFor(
  flavor: PathFlavor,
  volume: string | undefined,
  rest: string,
  separators: RegExp,
): PathVerdict {
  const components = splitComponents(rest, separators);
  for (const c of components) {
    const hazard = componentHazard(flavor, c);
    if (hazard !== undefined) return hazardRefusal(hazard);
  }
  return { ok: true, volume, components };
}

function common(path: string): PathVerdict | undefined {
  if (path.includes("\0")) return hazardRefusal("nul_byte");
  if (path.length > PATH_LIMITS.maxLength) return hazardRefusal("too_long");
  return undefined;
}

function slashSemantics(flavor: "posix" | "darwin"): PathSemantics {
  return {
    flavor,
    separators: ["/"],
    mayAlias: () => false,
    checkRequestedPath(path) {
      const early = common(path);
      if (early) return early;
      const absolute = path.startsWith("/");
      return verdictFor(flavor, absolute ? "" : undefined, path, /\//);
    },
  };
}

/** Linux and the other Unix systems: `/` only; `\` is an ordinary character. */
export const POSIX: PathSemantics = slashSemantics("posix");

/** macOS: posix separators; a resource fork component is refused. */
export const DARWIN: PathSemantics = slashSemantics("darwin");

/** Windows (Win32 paths): `/` and `\` separate; the namespace, stream, device-name and alias rules apply. */
export const WINDOWS: PathSemantics = {
  flavor: "windows",
  separators: ["/", "\\"],
  mayAlias: shortNameShaped,
  checkRequestedPath(path) {
    const early = common(path);
    if (early) return early;
    const sep = /[\\/]/;
    // `\\.\`, `\\?\` (either slash), and the NT object namespace `\??\`.
    if (/^[\\/][\\/][.?](?:[\\/]|$)/.test(path) || /^[\\/]\?\?(?:[\\/]|$)/.test(path)) {
      return hazardRefusal("device_namespace");
    }
    const unc = /^[\\/][\\/]([^\\/]+)[\\/]+([^\\/]+)(.*)$/s.exec(path);
    if (unc) {
      const volume = `//${unc[1]}/${unc[2]}`;
      for (const part of [unc[1], unc[2]]) {
        const hazard = componentHazard("windows", part);
        if (hazard !== undefined) return hazardRefusal(hazard);
      }
      return verdictFor("windows", volume, unc[3], sep);
    }
    if (/^[\\/][\\/]/.test(path)) return hazardRefusal("device_namespace");
    const drive = /^([A-Za-z]):(.*)$/s.exec(path);
    if (drive) {
      if (!sep.test(drive[2].charAt(0))) return hazardRefusal("drive_relative");
      return verdictFor("windows", drive[1].toUpperCase() + ":", drive[2], sep);
    }
    if (sep.test(path.charAt(0))) return hazardRefusal("rooted_without_drive");
    return verdictFor("windows", undefined, path, sep);
  },
};

/** The semantics of each flavor. */
export const SEMANTICS: Readonly<Record<PathFlavor, PathSemantics>> = {
  posix: POSIX,
  windows: WINDOWS,
  darwin: DARWIN,
};

/** The semantics of the platform this process runs on (`Deno.build.os`). */
export function hostSemantics(): PathSemantics {
  return Deno.build.os === "windows" ? WINDOWS : Deno.build.os === "darwin" ? DARWIN : POSIX;
}

/**
 * The components of an absolute host path (a workspace root) in the form
 * {@linkcode PathVerdict} gives an absolute request: volume first. Undefined
 * when `semantics` does not read it as absolute.
 */
export function absoluteComponents(semantics: PathSemantics, path: string): string[] | undefined {
  const verdict = semantics.checkRequestedPath(path);
  if (!verdict.ok || verdict.volume === undefined) return undefined;
  return [verdict.volume, ...verdict.components];
}

/** The code points HFS+ ignores when it compares names (as git's `is_hfs_dotgit` lists them). */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * One name (or a part of one) in the form the denylist compares: HFS+
 * ignorables removed, NFKC, then upper-cased and lower-cased (so `ſ`, `ı`
 * and the Kelvin sign meet `s`, `i` and `k`, as NTFS's upper-case table and
 * APFS's case folding join them), and NFKC again.
 */
export function foldName(name: string): string {
  if (!/[^\x20-\x7e]/.test(name)) return name.toLowerCase();
  return name.replace(HFS_IGNORABLE, "").normalize("NFKC").toUpperCase().toLowerCase()
    .normalize("NFKC");
}

/** `folded` without the trailing dots and spaces Windows strips; itself when nothing would be left. */
export function stripTrailing(folded: string): string {
  const stripped = folded.replace(/[. ]+$/, "");
  return stripped === "" ? folded : stripped;
}

/**
 * Every form of one path component the denylist compares: the folded name,
 * without its trailing dots and spaces, and the same for each part between
 * `\` (a separator on Windows, and on posix what an archive unpacked from
 * Windows leaves in a name like `conf\.env`). A component is denied when
 * any form is.
 */
export function denyKeys(name: string): string[] {
  const folded = foldName(name);
  const keys = [folded];
  const stripped = stripTrailing(folded);
  if (stripped !== folded) keys.push(stripped);
  if (name.includes("\\")) {
    for (const piece of name.split("\\")) {
      if (piece === "") continue;
      const f = foldName(piece);
      keys.push(f);
      const s = stripTrailing(f);
      if (s !== f) keys.push(s);
    }
  }
  return keys;
}
