/**
 * The catalogue of settings: every `MCP_<SECTION>__<FIELD>` variable the
 * program understands, with its type, default, bounds and one line of
 * documentation. `docs/configuration.md` and `.env.example` are checked
 * against this table by a test, so the three cannot drift apart.
 *
 * @module
 */

import { DEFAULT_SKIPPED_DIRS } from "../access/walk_policy.ts";

/** How a setting's text is turned into a value. */
export type SettingKind =
  | { type: "boolean" }
  | { type: "integer"; min: number; max: number }
  | { type: "enum"; values: readonly string[] }
  | { type: "path" }
  | { type: "host" }
  | { type: "secret"; minLength: number; maxLength: number }
  | {
    type: "list";
    maxItems: number;
    maxItemLength: number;
    /** What each entry is: a denylist pattern (the default), a host name, or an origin. */
    entries?: "pattern" | "host" | "origin";
  };

/** One setting: where it lives, what it accepts, what it is for. */
export interface SettingSpec {
  /** The environment variable, e.g. `MCP_SANDBOX__MAX_FILE_BYTES`. */
  readonly env: string;
  /** The key in {@linkcode Config}. */
  readonly key: keyof ConfigValues;
  /** How the text is parsed and bounded. */
  readonly kind: SettingKind;
  /** The default as it would be written in the environment ("" for "unset"). */
  readonly defaultText: string;
  /** One line for docs and `doctor`. */
  readonly doc: string;
}

/** The parsed, typed values of every setting. */
export interface ConfigValues {
  environment: "development" | "production";
  workspace: string;
  followSymlinks: boolean;
  maxFileBytes: number;
  maxLines: number;
  denyExtra: readonly string[];
  toolTimeoutMs: number;
  listPageSize: number;
  readCacheBytes: number;
  legacyClients: "serve" | "reject";
  maxLineBytes: number;
  maxResultChars: number;
  searchSkipDirs: readonly string[];
  searchMaxFileBytes: number;
  searchMaxResults: number;
  searchMaxFiles: number;
  searchMaxBytes: number;
  cursorKeyFile: string;
  transport: "stdio" | "http";
  httpHost: string;
  httpPort: number;
  httpAllowedHosts: readonly string[];
  httpAllowedOrigins: readonly string[];
  httpBearerToken: string;
  httpBearerTokenFile: string;
  httpMaxBodyBytes: number;
  httpRequestTimeoutMs: number;
  httpMaxConcurrentCalls: number;
  httpMaxQueuedCalls: number;
  httpShutdownMs: number;
  httpMetrics: boolean;
  redactSecrets: boolean;
  logLevel: "error" | "warn" | "info" | "debug";
  logFormat: "text" | "json";
  logArguments: "names" | "values";
}

const MIB = 1024 * 1024;

/** Every setting, in the order documentation lists them. */
export const SETTINGS: readonly SettingSpec[] = [
  {
    env: "MCP_ENVIRONMENT",
    key: "environment",
    kind: { type: "enum", values: ["development", "production"] },
    defaultText: "development",
    doc:
      "`production` refuses to start with unsafe settings (redaction off, symlink following on, a home directory or filesystem root as workspace).",
  },
  {
    env: "MCP_SANDBOX__WORKSPACE",
    key: "workspace",
    kind: { type: "path" },
    defaultText: "",
    doc:
      "The folder served. `--workspace` wins over it; unset means the current directory. Relative paths resolve against the directory the command was run from.",
  },
  {
    env: "MCP_SANDBOX__FOLLOW_SYMLINKS",
    key: "followSymlinks",
    kind: { type: "boolean" },
    defaultText: "false",
    doc:
      "Whether a symlink named as the last path component is followed (only ever to a target inside the workspace). Walks never descend symlinked directories.",
  },
  {
    env: "MCP_SANDBOX__MAX_FILE_BYTES",
    key: "maxFileBytes",
    kind: { type: "integer", min: 1, max: 64 * MIB },
    defaultText: String(MIB),
    doc: "Largest file `read_file` reads, checked before and while reading.",
  },
  {
    env: "MCP_SANDBOX__MAX_LINES",
    key: "maxLines",
    kind: { type: "integer", min: 1, max: 1_000_000 },
    defaultText: "4000",
    doc: "Most lines one `read_file` call returns; a longer range is cut and marked `truncated`.",
  },
  {
    env: "MCP_SANDBOX__DENY_EXTRA",
    key: "denyExtra",
    kind: { type: "list", maxItems: 256, maxItemLength: 256 },
    defaultText: "",
    doc:
      "Comma-separated extra patterns to deny, case-insensitive, with `*` and `?` globs: a name (`*.secret`) is matched on every path component, a path of names (`tools/token.txt`) on whole components at the end of a path. Extends the built-in denylist; nothing removes from it.",
  },
  {
    env: "MCP_SANDBOX__TOOL_TIMEOUT_MS",
    key: "toolTimeoutMs",
    kind: { type: "integer", min: 100, max: 600_000 },
    defaultText: "15000",
    doc:
      "Time budget of one tool call. At the budget the call is asked to stop and has 1 s to return what it has (a partial result marked `timed_out`); a worker that does not answer by then is abandoned and replaced, and the call answers `timed_out`.",
  },
  {
    env: "MCP_SANDBOX__LIST_PAGE_SIZE",
    key: "listPageSize",
    kind: { type: "integer", min: 1, max: 10_000 },
    defaultText: "500",
    doc: "Entries per `list_directory` page; the rest is reached with `cursor`.",
  },
  {
    env: "MCP_SANDBOX__READ_CACHE_BYTES",
    key: "readCacheBytes",
    kind: { type: "integer", min: 0, max: 1024 * MIB },
    defaultText: String(32 * MIB),
    doc:
      "Bound of each tool worker's cache of processed `read_file` results (keyed by the file's device, inode, size, mtime, ctime and link count; files changed in the last 2 s are never kept). `0` turns it off.",
  },
  {
    env: "MCP_SEARCH__SKIP_DIRS",
    key: "searchSkipDirs",
    kind: { type: "list", maxItems: 256, maxItemLength: 256 },
    defaultText: DEFAULT_SKIPPED_DIRS.join(","),
    doc:
      "Comma-separated directory names (exact, case-sensitive) that walks never enter: generated, vendored and cache trees. Set it empty to walk them (ignore files still apply).",
  },
  {
    env: "MCP_SEARCH__MAX_FILE_BYTES",
    key: "searchMaxFileBytes",
    kind: { type: "integer", min: 1, max: 64 * MIB },
    defaultText: String(512 * 1024),
    doc: "Largest file `search_code` searches; larger files are skipped and counted.",
  },
  {
    env: "MCP_SEARCH__MAX_RESULTS",
    key: "searchMaxResults",
    kind: { type: "integer", min: 1, max: 10_000 },
    defaultText: "1000",
    doc: "The cap on `search_code`'s `max_results` (matching lines, or files).",
  },
  {
    env: "MCP_SEARCH__MAX_FILES",
    key: "searchMaxFiles",
    kind: { type: "integer", min: 1, max: 100_000_000 },
    defaultText: "1000000",
    doc:
      "Most files one walk visits; a walk that reaches it returns what it found, marked `truncated`, with a cursor to continue.",
  },
  {
    env: "MCP_SEARCH__MAX_BYTES",
    key: "searchMaxBytes",
    kind: { type: "integer", min: 1 * MIB, max: 1024 * 1024 * MIB },
    defaultText: String(4096 * MIB),
    doc:
      "Most bytes one search reads; a search that reaches it returns what it found, marked `truncated`, with a cursor to continue.",
  },
  {
    env: "MCP_SERVER__LEGACY_CLIENTS",
    key: "legacyClients",
    kind: { type: "enum", values: ["serve", "reject"] },
    defaultText: "serve",
    doc:
      "`serve` answers clients that open with `initialize` (2025-era); `reject` answers them -32022 naming the supported revision.",
  },
  {
    env: "MCP_SERVER__MAX_LINE_BYTES",
    key: "maxLineBytes",
    kind: { type: "integer", min: 1024, max: 64 * MIB },
    defaultText: String(MIB),
    doc:
      "Longest JSON-RPC line accepted on stdio; a longer one is skipped without being buffered and answered -32700.",
  },
  {
    env: "MCP_SERVER__MAX_RESULT_CHARS",
    key: "maxResultChars",
    // Above the pipeline's reserve (PIPELINE_RESERVE_CHARS) with room for a tool's own text.
    kind: { type: "integer", min: 10_000, max: 1_000_000 },
    defaultText: "50000",
    doc:
      "The response budget: the most characters one tool result holds, its text and structured halves together. A result that would be larger is cut, marked `truncated`, and says how to continue. The default keeps a result under Claude Code's 25,000-token cap with margin.",
  },
  {
    env: "MCP_SERVER__CURSOR_KEY_FILE",
    key: "cursorKeyFile",
    kind: { type: "path" },
    defaultText: "",
    doc:
      "A file holding the key that signs pagination cursors (at least 32 bytes, read once at start). Unset means a fresh random key per start; identical instances behind a load balancer share one file so each accepts the others' cursors.",
  },
  {
    env: "MCP_SERVER__TRANSPORT",
    key: "transport",
    kind: { type: "enum", values: ["stdio", "http"] },
    defaultText: "stdio",
    doc:
      "How `serve` talks to its client: `stdio` (one client, started by the editor) or `http` (Streamable HTTP on `POST /mcp`). `--transport` wins over it.",
  },
  {
    env: "MCP_HTTP__HOST",
    key: "httpHost",
    kind: { type: "host" },
    defaultText: "127.0.0.1",
    doc:
      "The address HTTP mode listens on (an IP address or a host name). `--host` wins over it. A non-loopback address without a bearer token is warned about, and refused in production.",
  },
  {
    env: "MCP_HTTP__PORT",
    key: "httpPort",
    kind: { type: "integer", min: 0, max: 65535 },
    defaultText: "8080",
    doc:
      "The TCP port HTTP mode listens on; `0` takes any free port (the one bound is printed). `--port` wins over it.",
  },
  {
    env: "MCP_HTTP__ALLOWED_HOSTS",
    key: "httpAllowedHosts",
    kind: { type: "list", maxItems: 64, maxItemLength: 253, entries: "host" },
    defaultText: "",
    doc:
      "Comma-separated host names (without port) accepted in the `Host` header besides `localhost`, `127.0.0.1` and `[::1]`; any other is answered 403 (DNS-rebinding defence).",
  },
  {
    env: "MCP_HTTP__ALLOWED_ORIGINS",
    key: "httpAllowedOrigins",
    kind: { type: "list", maxItems: 64, maxItemLength: 300, entries: "origin" },
    defaultText: "",
    doc:
      "Comma-separated origins (`scheme://host[:port]`) accepted in the `Origin` header besides those on a localhost name; a request with any other `Origin` is answered 403. Requests without `Origin` (non-browser clients) pass.",
  },
  {
    env: "MCP_HTTP__BEARER_TOKEN",
    key: "httpBearerToken",
    kind: { type: "secret", minLength: 16, maxLength: 4096 },
    defaultText: "",
    doc:
      "When set, every `/mcp` and `/metrics` request must carry `Authorization: Bearer <token>` (compared in constant time; 401 otherwise). At least 16 characters. Required in production.",
  },
  {
    env: "MCP_HTTP__BEARER_TOKEN_FILE",
    key: "httpBearerTokenFile",
    kind: { type: "path" },
    defaultText: "",
    doc:
      "A file holding the bearer token (read once at start; a trailing newline is ignored), instead of `MCP_HTTP__BEARER_TOKEN`. Setting both is refused.",
  },
  {
    env: "MCP_HTTP__MAX_BODY_BYTES",
    key: "httpMaxBodyBytes",
    kind: { type: "integer", min: 1024, max: 64 * MIB },
    defaultText: String(MIB),
    doc:
      "Largest request body accepted; a larger one is answered 413, judged by `Content-Length` or counted as it streams, never buffered whole.",
  },
  {
    env: "MCP_HTTP__REQUEST_TIMEOUT_MS",
    key: "httpRequestTimeoutMs",
    kind: { type: "integer", min: 100, max: 600_000 },
    defaultText: "10000",
    doc:
      "Longest a request body may take to arrive in full; a slower one (a stalled or trickling client) is answered 408 and its connection closed.",
  },
  {
    env: "MCP_HTTP__MAX_CONCURRENT_CALLS",
    key: "httpMaxConcurrentCalls",
    kind: { type: "integer", min: 1, max: 4096 },
    // Two tool workers run the calls: eight in the SDK keep them fed, and the rest wait in our
    // queue, which holds less per call than the SDK's own state does (ADR-096).
    defaultText: "8",
    doc:
      "Most `tools/call` requests served at once over HTTP; more wait in a bounded queue (`MCP_HTTP__MAX_QUEUED_CALLS`), and beyond it one more is answered 503 with `Retry-After` at once.",
  },
  {
    env: "MCP_HTTP__MAX_QUEUED_CALLS",
    key: "httpMaxQueuedCalls",
    kind: { type: "integer", min: 0, max: 4096 },
    // 8 + 88: the 96 calls accepted at once before ADR-096 (32 + 64), so no client that was
    // queued is now refused, and memory stays bounded by the same number of bodies.
    defaultText: "88",
    doc:
      "Most `tools/call` requests that wait, in arrival order, for one of the `MCP_HTTP__MAX_CONCURRENT_CALLS` places; one more is answered 503 with `Retry-After` at once. A waiting call is answered 503 after `MCP_HTTP__REQUEST_TIMEOUT_MS`, and never runs if its client goes away. 0: no queue.",
  },
  {
    env: "MCP_HTTP__SHUTDOWN_MS",
    key: "httpShutdownMs",
    kind: { type: "integer", min: 100, max: 600_000 },
    defaultText: "20000",
    doc:
      "On SIGINT or SIGTERM the server stops accepting and gives calls in flight this long to finish, then exits 0.",
  },
  {
    env: "MCP_HTTP__METRICS",
    key: "httpMetrics",
    kind: { type: "boolean" },
    defaultText: "false",
    doc:
      "Serve Prometheus text metrics on `GET /metrics` (requests by method and outcome, tool latency, refusals by code, worker restarts), behind the bearer token when one is set.",
  },
  {
    env: "MCP_CONTENT__REDACT_SECRETS",
    key: "redactSecrets",
    kind: { type: "boolean" },
    defaultText: "true",
    doc:
      "Replace credentials found in returned content with `[redacted:<rule>]` and report what was redacted.",
  },
  {
    env: "MCP_LOG__LEVEL",
    key: "logLevel",
    kind: { type: "enum", values: ["error", "warn", "info", "debug"] },
    defaultText: "warn",
    doc: "How much the server writes to stderr (never stdout).",
  },
  {
    env: "MCP_LOG__FORMAT",
    key: "logFormat",
    kind: { type: "enum", values: ["text", "json"] },
    defaultText: "text",
    doc:
      "`text` writes `devserver LEVEL: message` lines; `json` one JSON object a line. HTTP request records are JSON in either format.",
  },
  {
    env: "MCP_LOG__ARGUMENTS",
    key: "logArguments",
    kind: { type: "enum", values: ["names", "values"] },
    defaultText: "names",
    doc:
      "What HTTP request records say of a tool call's arguments: only their names, or (`values`) their values too, escaped and cut to 200 characters each. File contents and secrets are never logged.",
  },
];
