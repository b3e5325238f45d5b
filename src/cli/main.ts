/**
 * The `devserver` program: parses the command line, loads configuration,
 * and runs one command. Usage and configuration errors print one line to
 * stderr and exit 2; stdout is reserved for results and the protocol.
 *
 * @module
 */

import { type Config, ConfigError, loadConfig } from "../config/load.ts";
import { setLogLevel } from "../log.ts";
import { dropMainThreadPermissions } from "../sandbox/permissions.ts";
import { COMMAND_HELP, MAIN_HELP, parseCommandLine, type ParsedArgs, UsageError } from "./args.ts";
import { runCall } from "./call.ts";
import { runDoctor } from "./doctor.ts";
import { runServe } from "./serve.ts";
import { runTools } from "./tools.ts";
import { versionText } from "./version.ts";

/** Loads the configuration for a parsed command line. */
export function configFor(args: ParsedArgs): Config {
  return loadConfig(Deno.env.toObject(), {
    workspaceFlag: args.workspace,
    transportFlag: args.transport,
    cwd: args.cwd ?? Deno.cwd(),
    homeDir: Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE"),
  });
}

/** Runs the program with `argv`; resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseCommandLine(argv);
  } catch (error) {
    return fail(error);
  }
  if (
    args.command === "help" || args.help || args.command === "version" || args.command === "tools"
  ) {
    // These read nothing and start nothing: drop every grant before doing anything else.
    await dropMainThreadPermissions(false);
  }
  if (args.help) {
    console.log(COMMAND_HELP[args.command]);
    return 0;
  }
  if (args.command === "help") {
    const topic = args.rest[0];
    if (topic && topic in COMMAND_HELP) {
      console.log(COMMAND_HELP[topic as keyof typeof COMMAND_HELP]);
    } else if (topic) {
      return fail(new UsageError(`no help for "${topic}"; run devserver help`));
    } else {
      console.log(MAIN_HELP);
    }
    return 0;
  }
  try {
    switch (args.command) {
      case "version":
        console.log(versionText());
        return 0;
      case "doctor":
        return await runDoctor(args);
      case "tools":
        return runTools(args);
    }
    const config = configFor(args);
    setLogLevel(config.logLevel);
    if (args.command === "call") return await runCall(config, args);
    return await runServe(config, args);
  } catch (error) {
    return fail(error);
  }
}

function fail(error: unknown): number {
  if (error instanceof UsageError || error instanceof ConfigError) {
    console.error(`devserver: ${error.message}`);
    return 2;
  }
  console.error(`devserver: unexpected error: ${error instanceof Error ? error.message : error}`);
  return 2;
}

if (import.meta.main) {
  const code = await main(Deno.args);
  Deno.exit(code);
}
