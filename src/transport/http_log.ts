/**
 * The request log of HTTP mode: one record per answered request, as the
 * fields of one JSON line (request id, HTTP method and path, JSON-RPC
 * method, tool, status, outcome, error code, duration). A tool call's
 * arguments appear by name only, unless configured (`MCP_LOG__ARGUMENTS=values`),
 * and then each value is passed through the caller's redaction, escaped and
 * cut. Nothing a tool returned is ever in a record: the record is built from
 * the request and the answer's status and codes.
 *
 * @module
 */

import { escapeName } from "../contract/text.ts";
import type { RequestRecord } from "./http.ts";

/** The longest an argument value stands in a record, in characters. */
export const MAX_LOGGED_VALUE = 200;

/** How a record's arguments are written. */
export interface RecordOptions {
  /** `names`: the argument names only; `values`: names and (redacted, cut) values. */
  readonly arguments: "names" | "values";
  /** Replaces secrets in a value (the result pipeline's redaction). */
  readonly redact: (text: string) => string;
}

/** The JSON fields of `record`'s log line. */
export function recordFields(
  record: RequestRecord,
  options: RecordOptions,
): Record<string, unknown> {
  const { arguments: args, ...rest } = record;
  const fields: Record<string, unknown> = { event: "request", ...rest };
  if (fields.method !== undefined) fields.method = escapeName(String(fields.method), 100);
  if (fields.tool !== undefined) fields.tool = escapeName(String(fields.tool), 100);
  if (args !== null && typeof args === "object" && !Array.isArray(args)) {
    const names = Object.keys(args).slice(0, 32).map((name) => escapeName(name, 64));
    if (options.arguments === "names") {
      fields.argumentNames = names;
    } else {
      const values: Record<string, string> = {};
      for (const [name, value] of Object.entries(args).slice(0, 32)) {
        const text = typeof value === "string" ? value : JSON.stringify(value) ?? "";
        values[escapeName(name, 64)] = escapeName(options.redact(text), MAX_LOGGED_VALUE);
      }
      fields.arguments = values;
    }
  }
  return fields;
}
