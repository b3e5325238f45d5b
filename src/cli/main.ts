/**
 * The `devserver` program: parses the command line against the command
 * table, loads configuration when the command needs it, and runs the
 * command. Usage and configuration errors print one line to stderr and exit
 * 2; stdout is reserved for results and the protocol.
 *
 * @module
 */

import { ConfigError } from "../config/load.ts";
import { escapeName, quoteName } from "../contract/text.ts";
import { setLogFormat, setLogLevel } from "../log.ts";
import { dropMainThreadPermissions } from "../isolation/permissions.ts";
import { parseCommandLine, type ParsedArgs, UsageError } from "./args.ts";
import { COMMAND_TABLE, findCommand, mainHelp } from "./commands.ts";
import { configFor } from "./config.ts";

/** Runs the program with `argv`; resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseCommandLine(argv, COMMAND_TABLE);
  } catch (error) {
    return fail(error);
  }
  const command = findCommand(args.command)!;
  if (args.help || command.permissions === "none") {
    // Help, and commands that read nothing and start nothing: drop every grant first.
    await dropMainThreadPermissions(false);
  }
  if (args.help) {
    console.log(command.help);
    return 0;
  }
  if (command.name === "help") {
    const topic = args.rest[0];
    const about = topic === undefined ? undefined : findCommand(topic);
    if (topic !== undefined && !about) {
      return fail(new UsageError(`no help for ${quoteName(topic)}; run devserver help`));
    }
    console.log(about ? about.help : mainHelp());
    return 0;
  }
  try {
    if (!command.needsConfig) return await command.run(args, undefined);
    const config = configFor(args);
    setLogLevel(config.logLevel);
    setLogFormat(config.logFormat);
    return await command.run(args, config);
  } catch (error) {
    return fail(error);
  }
}

function fail(error: unknown): number {
  if (error instanceof UsageError || error instanceof ConfigError) {
    console.error(`devserver: ${error.message}`);
    return 2;
  }
  console.error(
    `devserver: unexpected error: ${
      escapeName(String(error instanceof Error ? error.message : error), 500)
    }`,
  );
  return 2;
}

if (import.meta.main) {
  const code = await main(Deno.args);
  Deno.exit(code);
}
