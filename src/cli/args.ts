/**
 * The command line: `devserver [--workspace DIR] <command> [options]`.
 * Parsing and help texts live here; the commands live beside it.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { nearestName } from "../config/suggest.ts";
import { escapeName, quoteName } from "../contract/text.ts";

/** A command-line mistake: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** What the parser needs to know of each command: its name and which options it takes. */
export interface CommandSyntax {
  readonly name: string;
  /** The command-specific options it accepts (the global ones apply to every command). */
  readonly options: readonly CommandOption[];
}

/** An option that only some commands take. */
export type CommandOption =
  | "transport"
  | "host"
  | "port"
  | "json"
  | "stdio"
  | "http"
  | "header"
  | "token"
  | "strict"
  | "junit"
  | "only"
  | "write";

const COMMAND_OPTIONS: readonly CommandOption[] = [
  "transport",
  "host",
  "port",
  "json",
  "stdio",
  "http",
  "header",
  "token",
  "strict",
  "junit",
  "only",
  "write",
];

/** The parsed command line. */
export interface ParsedArgs {
  command: string;
  /** Positionals after the command. */
  rest: string[];
  workspace?: string;
  /** The directory relative paths resolve against (`deno task` passes the caller's). */
  cwd?: string;
  transport?: string;
  /** `serve --host H`: the address HTTP mode listens on. */
  host?: string;
  /** `serve --port P`: the port HTTP mode listens on (0: any free one). */
  port?: string;
  json: boolean;
  help: boolean;
  /** `conform --stdio "CMD ARGS…"`: the command line as one string (split like a shell). */
  stdio?: string;
  /** `conform --stdio -- CMD ARGS…`: the command as given, word by word. */
  stdioArgv?: string[];
  /** `conform --http URL`. */
  http?: string;
  /** `conform --header K:V`, as given (repeatable). */
  header?: string[];
  /** `conform --token T`: sent as `Authorization: Bearer T`. */
  token?: string;
  /** `conform --strict`: SHOULD failures count too. */
  strict: boolean;
  /** `conform --junit FILE`. */
  junit?: string;
  /** `conform --only C001,C002`. */
  only?: string;
  /** `setup --write`: merge into the client's file instead of printing. */
  write: boolean;
}

/** Parses `argv` (without the program name) against the command table `commands`. */
export function parseCommandLine(argv: string[], commands: readonly CommandSyntax[]): ParsedArgs {
  // `--stdio -- CMD ARGS…`: everything after the `--` is the target's command, verbatim.
  let stdioArgv: string[] | undefined;
  const split = argv.findIndex((arg, i) => arg === "--stdio" && argv[i + 1] === "--");
  if (split >= 0) {
    stdioArgv = argv.slice(split + 2);
    argv = argv.slice(0, split);
    if (stdioArgv.length === 0) throw new UsageError("--stdio -- needs a command after --");
  }
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
        host: { type: "string" },
        port: { type: "string" },
        json: { type: "boolean" },
        stdio: { type: "string" },
        http: { type: "string" },
        header: { type: "string", multiple: true },
        token: { type: "string" },
        strict: { type: "boolean" },
        junit: { type: "string" },
        only: { type: "string" },
        write: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
      },
    });
  } catch (error) {
    throw new UsageError(escapeName((error as Error).message.split("\n")[0], 200));
  }
  const { values, positionals } = parsed;
  const command: string = positionals[0] ?? (values.version ? "version" : "help");
  const spec = commands.find((c) => c.name === command);
  if (!spec) {
    const names = commands.map((c) => c.name.toUpperCase());
    const hint = nearestName(command.toUpperCase(), names);
    throw new UsageError(
      `unknown command ${quoteName(command)}` +
        (hint ? ` (did you mean ${hint.toLowerCase()}?)` : "") +
        "; run devserver help",
    );
  }
  if (stdioArgv !== undefined) {
    if (values.stdio !== undefined) throw new UsageError("--stdio is given twice");
    values.stdio = ""; // so the check below sees it
  }
  for (const option of COMMAND_OPTIONS) {
    if (values[option] !== undefined && !spec.options.includes(option)) {
      throw new UsageError(`--${option} does not apply to ${command}`);
    }
  }
  if (values.cwd === "") values.cwd = undefined; // `deno task` outside a task shell leaves it empty
  return {
    command,
    rest: positionals.slice(1),
    workspace: values.workspace,
    cwd: values.cwd,
    transport: values.transport,
    host: values.host,
    port: values.port,
    json: values.json ?? false,
    stdio: stdioArgv === undefined ? values.stdio : undefined,
    stdioArgv,
    http: values.http,
    header: values.header,
    token: values.token,
    strict: values.strict ?? false,
    junit: values.junit,
    only: values.only,
    write: values.write ?? false,
    // `devserver --help` is the program's help; `devserver CMD --help` is the command's.
    help: (values.help ?? false) && positionals[0] !== undefined,
  };
}
