/**
 * `devserver call TOOL [JSON]`: one tool call in-process, through the same
 * sandbox, dispatcher and result pipeline that `serve` uses.
 *
 * @module
 */

import { ProtocolError } from "@modelcontextprotocol/server";
import { createDevServer, type DevServer, ONE_CALL_POOL_SIZE } from "../app.ts";
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
  const server = createCallServer(config);
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
 * The server a `call` runs on: the same sandbox, dispatcher and pipeline as `serve`, with a
 * pool of one tool worker (ADR-107). The call is one job, and a second worker would come from
 * the supervisor only after about a second of module loading, long after the call's search
 * asked for help (within its first files) and was declined: it held memory, never work.
 */
export function createCallServer(config: Config): DevServer {
  return createDevServer(config, { poolSize: ONE_CALL_POOL_SIZE });
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
