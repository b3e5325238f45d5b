/**
 * What a tool worker is told once at start to build its tool context:
 * plain data, structured-cloned to each worker.
 *
 * @module
 */

/** Limits a tool enforces, fixed at start from configuration. */
export interface ToolLimits {
  /** Largest file `read_file` reads (`MCP_SANDBOX__MAX_FILE_BYTES`). */
  readonly maxFileBytes: number;
  /** Most lines one `read_file` returns (`MCP_SANDBOX__MAX_LINES`). */
  readonly maxLines: number;
  /** Entries per `list_directory` page (`MCP_SANDBOX__LIST_PAGE_SIZE`). */
  readonly listPageSize: number;
  /**
   * The response budget (`MCP_SERVER__MAX_RESULT_CHARS`): the most characters
   * one result may hold, its text and its structured half together. A tool
   * that would return more returns less, sets `truncated`, and says how to
   * continue.
   */
  readonly maxResultChars: number;
  /**
   * The time budget of one call (`MCP_SANDBOX__TOOL_TIMEOUT_MS`). A tool that
   * starts a child process (git) kills it before the budget runs out.
   */
  readonly timeoutMs: number;
  /** Largest file `search_code` searches; larger ones are skipped and counted (`MCP_SEARCH__MAX_FILE_BYTES`). */
  readonly maxSearchFileBytes: number;
  /** The cap on `search_code`'s `max_results` (`MCP_SEARCH__MAX_RESULTS`). */
  readonly maxSearchResults: number;
  /** Most files one walk visits (`MCP_SEARCH__MAX_FILES`). */
  readonly maxWalkFiles: number;
  /** Most bytes one walk reads (`MCP_SEARCH__MAX_BYTES`). */
  readonly maxWalkBytes: number;
  /**
   * The bound of each tool worker's cache of processed reads, in bytes
   * (`MCP_SANDBOX__READ_CACHE_BYTES`); 0 turns it off; absent, the default (ADR-081).
   */
  readonly readCacheBytes?: number;
}

/** Everything a tool worker needs to build its tool context. */
export interface ToolSettings {
  /** The workspace root with every symlink resolved. */
  readonly root: string;
  /** The workspace as configured (absolute paths under it are accepted too). */
  readonly configuredRoot: string;
  /** The folder name messages use for the workspace. */
  readonly workspaceName: string;
  /** Whether a symlink as the final component is followed (inside targets only). */
  readonly followSymlinks: boolean;
  /** Names denied on top of the built-in denylist. */
  readonly denyExtra: readonly string[];
  /**
   * Whose path rules containment applies (`src/access/path_semantics.ts`).
   * Absent in every configuration (the host's rules apply); tests set it to
   * run Windows or macOS rules on any OS.
   */
  readonly pathSemantics?: "posix" | "windows" | "darwin";
  /** Directory names a walk never enters (`MCP_SEARCH__SKIP_DIRS`). */
  readonly skippedDirs: readonly string[];
  /** Limits fixed at start. */
  readonly limits: ToolLimits;
  /** Key for pagination cursors (random per start, or shared by configuration). */
  readonly cursorKey: Uint8Array;
  /**
   * The absolute path of the git program, found at start on the server's
   * PATH (a tool worker holds no env permission to look it up), or `null`
   * when there is none: the git tools then refuse `git_unavailable`.
   */
  readonly gitBinary: string | null;
}
