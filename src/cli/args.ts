/**
 * The command line: `devserver [--workspace DIR] <command> [options]`.
 * Parsing and help texts live here; the commands live beside it.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { nearestName } from "../config/suggest.ts";

/** A command-line mistake: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The commands, in help order. */
export const COMMANDS = ["serve", "call", "tools", "doctor", "version", "help"] as const;

/** A command name. */
export type CommandName = typeof COMMANDS[number];

/** The parsed command line. */
export interface ParsedArgs {
  command: CommandName;
  /** Positionals after the command. */
  rest: string[];
  workspace?: string;
  /** The directory relative paths resolve against (`deno task` passes the caller's). */
  cwd?: string;
  transport?: string;
  json: boolean;
  help: boolean;
}

const OPTION_COMMANDS: Record<string, readonly CommandName[]> = {
  transport: ["serve"],
  json: ["call", "tools"],
};

/** Parses `argv` (without the program name). */
export function parseCommandLine(argv: string[]): ParsedArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        workspace: { type: "string", short: "w" },
        cwd: { type: "string" },
        transport: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0]);
  }
  const { values, positionals } = parsed;
  const command: string = positionals[0] ?? (values.version ? "version" : "help");
  if (!(COMMANDS as readonly string[]).includes(command)) {
    const hint = nearestName(command.toUpperCase(), COMMANDS.map((c) => c.toUpperCase()));
    throw new UsageError(
      `unknown command "${command}"` + (hint ? ` (did you mean ${hint.toLowerCase()}?)` : "") +
        "; run devserver help",
    );
  }
  for (const [option, allowed] of Object.entries(OPTION_COMMANDS)) {
    if (
      values[option as keyof typeof values] !== undefined &&
      !allowed.includes(command as CommandName)
    ) {
      throw new UsageError(`--${option} does not apply to ${command}`);
    }
  }
  if (values.cwd === "") values.cwd = undefined; // `deno task` outside a task shell leaves it empty
  return {
    command: command as CommandName,
    rest: positionals.slice(1),
    workspace: values.workspace,
    cwd: values.cwd,
    transport: values.transport,
    json: values.json ?? false,
    // `devserver --help` is the program's help; `devserver CMD --help` is the command's.
    help: (values.help ?? false) && positionals[0] !== undefined,
  };
}

/** Help for the whole program. */
export const MAIN_HELP = `devserver — a read-only MCP server over one repository.

Usage: devserver [--workspace DIR] <command> [options]

Commands:
  serve            Serve MCP to one client over stdio (the editor starts this).
  call TOOL [JSON] Run one tool call in-process and print the result.
  tools            List the published tools with their schemas.
  doctor           Check what would be served and what refused; exit 1 if it cannot serve.
  version          Print the version and the protocol revisions.
  help [COMMAND]   Show help for a command.

Global options:
  -w, --workspace DIR  The repository to serve (default: MCP_SANDBOX__WORKSPACE, else the
                       current directory). Relative paths resolve against where you ran it.
  --cwd DIR            Resolve relative paths against DIR (deno task devserver passes the
                       directory you ran it from).
  -h, --help           Help for the program or the command.
  -V, --version        Same as the version command.

Settings are environment variables MCP_<SECTION>__<FIELD>; see docs/configuration.md.
Errors print one line on stderr and exit 2; stdout carries only results and protocol.`;

/** Help for each command. */
export const COMMAND_HELP: Record<CommandName, string> = {
  serve: `Usage: devserver [--workspace DIR] serve [--transport stdio]

Serves the Model Context Protocol (revision 2026-07-28, and 2025-era clients that send
initialize unless MCP_SERVER__LEGACY_CLIENTS=reject) on stdin/stdout until stdin closes.

Options:
  --transport stdio   How to talk to the client (stdio is the only transport so far).`,
  call: `Usage: devserver [--workspace DIR] call TOOL [JSON] [--json]

Runs one tool call in-process, through the same sandbox and result pipeline as serve.
JSON is the arguments object (default {}). Exit 0 on success, 1 when the tool refused.

Options:
  --json   Print the raw CallToolResult as JSON instead of its text.

Example:
  devserver call read_file '{"path":"README.md","end_line":20}'`,
  tools: `Usage: devserver tools [--json]

Lists the published tools: name, title, description and arguments.

Options:
  --json   Print the tools/list result (with input and output JSON Schemas).`,
  doctor: `Usage: devserver [--workspace DIR] doctor

Checks the configuration, the workspace, the limits, the denylist, the protocol
revisions, the permission layer (by starting it) and git. Exit 0 if it can serve, else 1.`,
  version: `Usage: devserver version

Prints the program version, the protocol revisions it speaks and the Deno version.`,
  help: `Usage: devserver help [COMMAND]

Shows help for the program or for one command.`,
};
