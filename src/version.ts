/**
 * Identity of this program: its name, its version, and the protocol
 * revisions it speaks. One place, so `version`, `doctor`, `server/discover`
 * and `initialize` never disagree.
 *
 * @module
 */

import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";

/** The program's name as clients see it in `serverInfo`. */
export const SERVER_NAME = "devserver";

/** The program's version (kept equal to `deno.json`'s `version` by a test). */
export const SERVER_VERSION = "0.1.0";

/** The stateless protocol revision this server speaks natively. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** Every revision this server answers: the modern one first, then the handshake era's. */
export const SUPPORTED_VERSIONS: readonly string[] = [
  MODERN_PROTOCOL_VERSION,
  ...SUPPORTED_PROTOCOL_VERSIONS.filter((v: string) => v < MODERN_PROTOCOL_VERSION),
];

/** The handshake-era revisions served to clients that still send `initialize`. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_VERSIONS.slice(1);

/** The `_meta` key that carries a request's protocol revision (2026-07-28). */
export const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion";

/**
 * What a compiled binary knows about its own build, baked in by
 * `scripts/compile.ts` (a binary has no git checkout and no `deno.json` to
 * read): set once by the generated entry module before `main` runs (ADR-046);
 * `undefined` when the program runs from source.
 */
export interface BuildInfo {
  /** `git rev-parse HEAD` at build time, `-dirty` appended when the tree had changes. */
  readonly commit: string;
  /** The `deno compile --target` triple. */
  readonly target: string;
  /** The `--v8-flags=…` argument compiled in. */
  readonly v8Flags: string;
  /** The permission set compiled in (`deno.json` `permissions.devserver`). */
  readonly permissionSet: Readonly<Record<string, unknown>>;
}

let build: BuildInfo | undefined;

/** Records the build (the compiled entry calls this once, first). */
export function setBuildInfo(info: BuildInfo): void {
  build = Object.freeze({ ...info });
}

/** The build this binary was compiled as, or `undefined` when run from source. */
export function buildInfo(): BuildInfo | undefined {
  return build;
}
