/**
 * The configuration a command line implies: the environment's `MCP_*`
 * settings, with `--workspace`, `--transport`, `--host`, `--port` and `--cwd` on top.
 *
 * @module
 */

import { type Config, loadConfig } from "../config/load.ts";
import type { ParsedArgs } from "./args.ts";

/** Loads the configuration for a parsed command line. */
export function configFor(args: ParsedArgs): Config {
  return loadConfig(Deno.env.toObject(), {
    workspaceFlag: args.workspace,
    transportFlag: args.transport,
    hostFlag: args.host,
    portFlag: args.port,
    cwd: args.cwd ?? Deno.cwd(),
    homeDir: Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE"),
  });
}
