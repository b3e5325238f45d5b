/**
 * The command table: every `devserver` command in one entry — its name, its
 * one-line summary, its help, the options it takes, what it keeps of the
 * process's permissions, and how it runs. The parser, the help texts and
 * `main` all read this table, so a new command (`conform`, `setup`) is one
 * entry here.
 *
 * @module
 */

import type { Config } from "../config/load.ts";
import type { CommandOption, ParsedArgs } from "./args.ts";
import { runCall } from "./call.ts";
import { runDoctor } from "./doctor.ts";
import { runServe } from "./serve.ts";
import { runTools } from "./tools.ts";
import { runVersion } from "./version.ts";

/** One command. */
export interface CommandSpec {
  readonly name: string;
  /** The synopsis after the command name in the program's help (e.g. `TOOL [JSON]`). */
  readonly synopsis: string;
  /** One line for the program's help. */
  readonly summary: string;
  /** The command's own help. */
  readonly help: string;
  /** The command-specific options it accepts. */
  readonly options: readonly CommandOption[];
  /**
   * What the process keeps before the command runs: `none` drops every
   * permission first (the command reads and starts nothing); `keep` keeps
   * them until the command itself drops what it must (it starts the sandbox).
   */
  readonly permissions: "none" | "keep";
  /** Whether `main` loads the configuration first (a bad one is then a usage error, exit 2). */
  readonly needsConfig: boolean;
  /** Runs the command; resolves with the exit code. `config` is set when `needsConfig`. */
  readonly run: (args: ParsedArgs, config: Config | undefined) => Promise<number> | number;
}

/** Every command, in help order. */
export const COMMAND_TABLE: readonly CommandSpec[] = [
  {
    name: "serve",
    synopsis: "",
    summary: "Serve MCP over stdio (the editor starts this) or Streamable HTTP.",
    help: `Usage: devserver [--workspace DIR] serve [--transport stdio|http] [--host H] [--port P]

Serves the Model Context Protocol (revision 2026-07-28, and 2025-era clients that send
initialize unless MCP_SERVER__LEGACY_CLIENTS=reject). Over stdio (the default) it serves
stdin/stdout until stdin closes. Over http it serves POST http://HOST:PORT/mcp, with
GET /healthz and /readyz, until SIGINT or SIGTERM, and prints
"listening on http://HOST:PORT/mcp" to stderr once bound.

Options:
  --transport T   stdio or http (MCP_SERVER__TRANSPORT).
  --host H        The address HTTP mode listens on (MCP_HTTP__HOST, default 127.0.0.1).
  --port P        Its port (MCP_HTTP__PORT, default 8080; 0 = any free port).`,
    options: ["transport", "host", "port"],
    permissions: "keep",
    needsConfig: true,
    run: (args, config) => runServe(config!, args),
  },
  {
    name: "call",
    synopsis: "TOOL [JSON]",
    summary: "Run one tool call in-process and print the result.",
    help: `Usage: devserver [--workspace DIR] call TOOL [JSON] [--json]

Runs one tool call in-process, through the same sandbox and result pipeline as serve.
JSON is the arguments object (default {}). Exit 0 on success, 1 when the tool refused.

Options:
  --json   Print the raw CallToolResult as JSON instead of its text.

Example:
  devserver call read_file '{"path":"README.md","end_line":20}'`,
    options: ["json"],
    permissions: "keep",
    needsConfig: true,
    run: (args, config) => runCall(config!, args),
  },
  {
    name: "tools",
    synopsis: "",
    summary: "List the published tools with their schemas.",
    help: `Usage: devserver tools [--json]

Lists the published tools: name, title, description and arguments.

Options:
  --json   Print the tools/list result (with input and output JSON Schemas).`,
    options: ["json"],
    permissions: "none",
    needsConfig: false,
    run: (args) => runTools(args),
  },
  {
    name: "doctor",
    synopsis: "",
    summary: "Check what would be served and what refused; exit 1 if it cannot serve.",
    help: `Usage: devserver [--workspace DIR] doctor

Checks the configuration, the workspace, the limits, the denylist, the protocol
revisions, the permission layer (by starting it) and git. Exit 0 if it can serve, else 1.`,
    options: [],
    permissions: "keep",
    // doctor loads the configuration itself: a bad one is a finding, not a usage error.
    needsConfig: false,
    run: (args) => runDoctor(args),
  },
  {
    name: "conform",
    synopsis: "",
    summary: "Check an MCP server against the 2026-07-28 specification; exit 1 if it fails.",
    help: `Usage: devserver [--workspace DIR] conform [--stdio "CMD ARGS…" | --stdio -- CMD ARGS… |
                 --http URL [--header K:V]… [--token T]] [--strict] [--json | --junit FILE]
                 [--only C001,C002,…]

Runs the conformance checks (docs/conformance.md) against an MCP server over stdio or HTTP and
prints one row per check (ok, FAIL or n/a) with what it saw, then the verdict.
With no target, checks this server in-process (the workspace is --workspace or the
current directory).

Options:
  --stdio "CMD ARGS…"   Start CMD and talk to it on its stdin/stdout. Quoted like a shell
                        command line (no shell is run); it inherits the environment.
  --stdio -- CMD ARGS…  The same, the command given word by word after --.
  --http URL            Check the Streamable HTTP endpoint URL (one POST per message).
  --header K:V          Send this header with every HTTP request (repeatable).
  --token T             Send Authorization: Bearer T with every HTTP request.
  --strict              SHOULD failures make the verdict fail too.
  --json                Print the report as JSON.
  --junit FILE          Also write the report as JUnit XML to FILE; - prints the XML instead
                        of the table.
  --only IDS            Run only these checks (comma-separated ids).

Exit 0 if conformant, 1 if not, 2 on a usage error or when the target cannot be reached.`,
    options: ["stdio", "http", "header", "token", "strict", "json", "junit", "only"],
    permissions: "keep",
    // conform loads the configuration only for the in-process target.
    needsConfig: false,
    // Loaded when run (ADR-108): serve's main thread does not hold the checker or its schemas.
    run: async (args) => (await import("./conform.ts")).runConform(args),
  },
  {
    name: "setup",
    synopsis: "CLIENT",
    summary: "Print (or --write) the editor configuration that starts this server.",
    help: `Usage: devserver [--workspace DIR] setup CLIENT [--write]

Prints the configuration that makes CLIENT start this server on the workspace (--workspace,
else the current directory), with every path absolute and this program's own command line.
With --write, merges it into the client's configuration file instead: other servers and
comments are kept, the previous file is copied to FILE.<time>.bak, and the file is replaced
atomically. A file that does not parse is refused and left as it is (exit 2).

Clients and their files (docs/editors.md):
  vscode          WORKSPACE/.vscode/mcp.json ("servers")
  claude-desktop  claude_desktop_config.json in Claude's settings folder ("mcpServers")
  claude-code     prints a claude mcp add line; --write merges WORKSPACE/.mcp.json
  cursor          WORKSPACE/.cursor/mcp.json ("mcpServers")
  zed             Zed's settings.json ("context_servers"; JSON with comments)
  windsurf        ~/.codeium/windsurf/mcp_config.json ("mcpServers")

Options:
  --write   Merge into the client's file instead of printing.`,
    options: ["write"],
    // It reads and writes one configuration file; it drops net, run, ffi and sys itself.
    permissions: "keep",
    needsConfig: false,
    run: async (args) => (await import("./setup.ts")).runSetup(args),
  },
  {
    name: "version",
    synopsis: "",
    summary: "Print the version, the build, the runtime and the permissions.",
    help: `Usage: devserver version

Prints the program version; the git commit and target a binary was compiled from (none when
run from source); the protocol revisions it speaks; the Deno and V8 versions and the V8 flags;
the permission set a binary was compiled with; and the permissions the process was started
with (queried, then dropped, before anything is printed).`,
    options: [],
    // It queries the permissions it was started with before dropping them all itself.
    permissions: "keep",
    needsConfig: false,
    run: () => runVersion(),
  },
  {
    name: "help",
    synopsis: "[COMMAND]",
    summary: "Show help for a command.",
    help: `Usage: devserver help [COMMAND]

Shows help for the program or for one command.`,
    options: [],
    permissions: "none",
    needsConfig: false,
    run: () => 0, // answered by main from this table
  },
];

/** The command called `name`, or `undefined`. */
export function findCommand(name: string): CommandSpec | undefined {
  return COMMAND_TABLE.find((c) => c.name === name);
}

/** Help for the whole program, built from the table. */
export function mainHelp(): string {
  const rows = COMMAND_TABLE.map((c) => {
    const head = c.synopsis ? `${c.name} ${c.synopsis}` : c.name;
    return `  ${head.padEnd(16)} ${c.summary}`;
  });
  return `devserver — a read-only MCP server over one repository.

Usage: devserver [--workspace DIR] <command> [options]

Commands:
${rows.join("\n")}

Global options:
  -w, --workspace DIR  The repository to serve (default: MCP_SANDBOX__WORKSPACE, else the
                       current directory). Relative paths resolve against where you ran it.
  --cwd DIR            Resolve relative paths against DIR (deno task devserver passes the
                       directory you ran it from).
  -h, --help           Help for the program or the command.
  -V, --version        Same as the version command.

Settings are environment variables MCP_<SECTION>__<FIELD>; see docs/configuration.md.
Errors print one line on stderr and exit 2; stdout carries only results and protocol.`;
}
