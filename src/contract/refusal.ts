/**
 * Refusals: the stable, documented ways a tool call says "no". A refusal is
 * a tool result (`isError: true`), never a protocol error, and its message
 * names at most the workspace folder — never a resolved path. There is one
 * constructor, {@linkcode refusal}; a handler throws {@linkcode ToolRefusal}
 * and the tool runtime turns it into that result.
 *
 * @module
 */

/** Every refusal code a client can rely on. Add, never rename. */
export const REFUSAL_CODES = [
  "invalid_arguments",
  "invalid_path",
  "outside_workspace",
  "denied_path",
  "not_found",
  "not_a_file",
  "not_a_directory",
  "symlink_not_followed",
  "symlink_loop",
  "special_file",
  "too_large",
  "binary_file",
  "bad_pattern",
  "unreadable",
  "timed_out",
  "cancelled",
  "busy",
  "internal_error",
  "not_a_repository",
  "unsafe_repository",
  "bad_revision",
  "git_unavailable",
  "git_failed",
] as const;

/** A stable refusal code. */
export type RefusalCode = typeof REFUSAL_CODES[number];

/** What to do about each refusal, so every message carries a remedy. */
export const DEFAULT_REMEDIES: Readonly<Record<RefusalCode, string>> = {
  invalid_arguments: "Fix the arguments to match the tool's input schema (see tools/list).",
  invalid_path:
    "Give a path relative to the workspace root, each name spelled in full: no NUL bytes or over-long components, and no drive-relative, device, stream or 8.3 short names on Windows.",
  outside_workspace: "Use a path inside the workspace; list_directory with no path shows the root.",
  denied_path:
    "This path holds credentials or repository internals and is never served; choose another file.",
  not_found: "Check the spelling; list_directory shows what exists.",
  not_a_file: "Use list_directory for directories; read_file reads regular files.",
  not_a_directory: "Use read_file for files; list_directory lists directories.",
  symlink_not_followed:
    "Read the link's target by its own path, or set MCP_SANDBOX__FOLLOW_SYMLINKS=true (targets must still be inside the workspace).",
  symlink_loop: "The path contains a symlink cycle; use a path without it.",
  special_file: "Only regular files are read; FIFOs, sockets and devices are never opened.",
  too_large: "Read a smaller file, or raise MCP_SANDBOX__MAX_FILE_BYTES if the operator allows it.",
  binary_file: "This file looks binary (it has NUL bytes); only text files are returned.",
  bad_pattern:
    "Fix the regular expression, or search for a literal (regex: false); backreferences and lookaround are not supported.",
  unreadable: "The operating system refused to read this path; check its permissions.",
  timed_out:
    "The call ran past its time budget and was stopped; narrow the request or raise MCP_SANDBOX__TOOL_TIMEOUT_MS.",
  cancelled: "The client cancelled this call; nothing was returned.",
  busy: "Too many calls are waiting for a tool worker; retry once earlier calls have answered.",
  internal_error: "The server hit an unexpected error; retry, and report it if it persists.",
  not_a_repository:
    "The git tools need a git repository at the workspace root; open the repository's top folder as the workspace.",
  unsafe_repository:
    "The git tools serve only a repository kept inside the workspace; open the repository that owns the history itself.",
  bad_revision:
    "Give a branch, tag, commit SHA or HEAD-relative name (HEAD~1), or a range A..B / A...B; git_log lists commits.",
  git_unavailable: "Install git on the server's PATH and restart the server.",
  git_failed: "git could not answer this request; check the arguments, or narrow the request.",
};

/**
 * Codes any tool can answer, whatever its arguments: schema failures, the
 * budget, cancellation, the queue, and crashes. A tool lists only the codes
 * its own handler produces in `ToolDefinition.refusals`.
 */
export const UNIVERSAL_REFUSALS: readonly RefusalCode[] = [
  "invalid_arguments",
  "timed_out",
  "cancelled",
  "busy",
  "internal_error",
];

/** A refusal: a stable code, a message that names no resolved path, and a remedy. */
export interface RawRefusal {
  readonly kind: "refused";
  readonly error: RefusalCode;
  readonly message: string;
  readonly remedy: string;
}

/** The one constructor of a refusal result. The remedy defaults to the code's. */
export function refusal(
  code: RefusalCode,
  message: string,
  remedy: string = DEFAULT_REMEDIES[code],
): RawRefusal {
  return { kind: "refused", error: code, message, remedy };
}

/** A tool's refusal, thrown inside a handler and turned into an `isError` result. */
export class ToolRefusal extends Error {
  /** Always `"ToolRefusal"`. */
  override name = "ToolRefusal";
  /** The stable code clients branch on. */
  readonly code: RefusalCode;
  /** What the caller can do about it. */
  readonly remedy: string;
  /** A refusal with `code`, a message that names no resolved path, and a remedy (default per code). */
  constructor(code: RefusalCode, message: string, remedy: string = DEFAULT_REMEDIES[code]) {
    super(message);
    this.code = code;
    this.remedy = remedy;
  }

  /** This refusal as a raw result. */
  toResult(): RawRefusal {
    return refusal(this.code, this.message, this.remedy);
  }
}
