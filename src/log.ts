/**
 * Diagnostics on stderr, filtered by `MCP_LOG__LEVEL`, written as text
 * (`devserver LEVEL: message`) or, with `MCP_LOG__FORMAT=json`, as one JSON
 * object a line. Structured records (HTTP mode's one line per request) are
 * JSON in either format. stdout belongs to the protocol and is never
 * written here.
 *
 * @module
 */

const LEVELS = ["error", "warn", "info", "debug"] as const;

/** A log level, most severe first. */
export type LogLevel = typeof LEVELS[number];

/** How lines are written. */
export type LogFormat = "text" | "json";

let threshold: LogLevel = "warn";
let format: LogFormat = "text";

/** Sets the most verbose level that is written. */
export function setLogLevel(level: LogLevel): void {
  threshold = level;
}

/** Sets how lines are written (`text` by default). */
export function setLogFormat(value: LogFormat): void {
  format = value;
}

/** Whether `level` is written at the current threshold. */
export function logEnabled(level: LogLevel): boolean {
  return LEVELS.indexOf(level) <= LEVELS.indexOf(threshold);
}

/** Writes one line to stderr when `level` is enabled. */
export function log(level: LogLevel, message: string): void {
  if (!logEnabled(level)) return;
  if (format === "json") {
    logRecord(level, { msg: message });
    return;
  }
  console.error(`devserver ${level}: ${message}`);
}

/**
 * Writes one JSON object to stderr when `level` is enabled: `time`, `level`
 * and the fields given. The caller decides what goes in `fields`; nothing
 * here adds contents.
 */
export function logRecord(level: LogLevel, fields: Record<string, unknown>): void {
  if (!logEnabled(level)) return;
  console.error(JSON.stringify({ time: new Date().toISOString(), level, ...fields }));
}
