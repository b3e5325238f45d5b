/**
 * `devserver call TOOL [JSON]`: one tool call in-process, through the same
 * sandbox, dispatcher and result pipeline that `serve` uses.
 *
 * @module
 */

import { ProtocolError } from "@modelcontextprotocol/server";
import { createDevServer } from "../app.ts";
import { escapeControlCharacters } from "../contract/text.ts";
import type { Config } from "../config/load.ts";
import { dropMainThreadPermissions } from "../isolation/permissions.ts";
import { type ParsedArgs, UsageError } from "./args.ts";

/** Runs the call and prints it; resolves with the exit code (1 when the tool refused). */
export async function runCall(config: Config, args: ParsedArgs): Promise<number> {
  const [tool, json, ...extra] = args.rest;
  if (!tool) throw new UsageError("call needs a tool name; run devserver tools to list them");
  if (extra.length > 0) throw new UsageError("call takes one JSON arguments object; quote it");
  let toolArgs: unknown = {};
  if (json !== undefined) {
    try {
      toolArgs = JSON.parse(json);
    } catch {
      throw new UsageError("the arguments are not valid JSON (quote the object for your shell)");
    }
  }
  const server = createDevServer(config);
  await server.sandbox.started; // the workers' and supervisor's modules load under our read grant
  await dropMainThreadPermissions(false);
  try {
    const result = await server.dispatcher.call(tool, toolArgs);
    if (args.json) {
      console.log(JSON.stringify(result, null, 2));
    } else {
      for (const block of result.content ?? []) {
        if (block.type === "text") console.log(forTerminal(block.text));
      }
    }
    return result.isError ? 1 : 0;
  } catch (error) {
    if (error instanceof ProtocolError) throw new UsageError(error.message);
    throw error;
  } finally {
    server.close();
  }
}

/**
 * File text shown on a terminal: control characters (escape sequences
 * among them) become visible escapes, so a file cannot drive the terminal.
 * Newlines and tabs stay as they are. `--json` output is JSON-escaped already.
 */
export function forTerminal(text: string): string {
  return text.split("\n").map((line) => line.split("\t").map(escapeControlCharacters).join("\t"))
    .join("\n");
}
