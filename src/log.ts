/**
 * Diagnostics on stderr, filtered by `MCP_LOG__LEVEL`. stdout belongs to the
 * protocol and is never written here.
 *
 * @module
 */

const LEVELS = ["error", "warn", "info", "debug"] as const;

/** A log level, most severe first. */
export type LogLevel = typeof LEVELS[number];

let threshold: LogLevel = "warn";

/** Sets the most verbose level that is written. */
export function setLogLevel(level: LogLevel): void {
  threshold = level;
}

/** Writes one line to stderr when `level` is enabled. */
export function log(level: LogLevel, message: string): void {
  if (LEVELS.indexOf(level) > LEVELS.indexOf(threshold)) return;
  console.error(`devserver ${level}: ${message}`);
}
