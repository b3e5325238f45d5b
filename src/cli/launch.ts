/**
 * How an editor starts this program: the command line `setup` writes into
 * a client's configuration. In a compiled binary (its build was baked in by
 * `scripts/compile.ts`) that is the binary's own path, `Deno.execPath()`.
 * Run from source it is `deno run` with the `devserver` task's own flags
 * (read from `deno.json`, where they are defined once; `--config` makes the
 * import map and the lock file apply from any working directory) and the
 * absolute path of `src/cli/main.ts`. Either way followed by
 * `--workspace DIR serve`, every path absolute.
 *
 * @module
 */

import { join } from "node:path";
import { fromFileUrl } from "../paths.ts";
import { buildInfo } from "../version.ts";

/** A program and its arguments. */
export interface LaunchCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/** This directory, `src/cli/`: the entry `main.ts` is here (a path, not an import). */
const CLI_DIR = new URL("./", import.meta.url);
/** The `deno.json` beside `src/` (read only when run from source). */
const DENO_JSON = new URL("../../deno.json", import.meta.url);

/**
 * The `deno run` flags of the `devserver` task in `denoJsonText` (the
 * tokens between `deno run` and `src/cli/main.ts`).
 */
export function devserverTaskFlags(denoJsonText: string): string[] {
  const task: unknown = JSON.parse(denoJsonText)?.tasks?.devserver;
  if (typeof task !== "string") throw new Error("deno.json has no devserver task");
  const tokens = task.split(/\s+/);
  const entry = tokens.indexOf("src/cli/main.ts");
  if (tokens[0] !== "deno" || tokens[1] !== "run" || entry < 0) {
    throw new Error(`unexpected devserver task: ${task}`);
  }
  return tokens.slice(2, entry);
}

/** Whether this process is a compiled binary (the generated entry recorded a build). */
export function isCompiled(): boolean {
  return buildInfo() !== undefined;
}

/** The command that serves `workspace` (absolute), as this program is installed. */
export function serveCommand(workspace: string): LaunchCommand {
  const serve = ["--workspace", workspace, "serve"];
  if (isCompiled()) return { command: Deno.execPath(), args: serve };
  const flags = devserverTaskFlags(Deno.readTextFileSync(DENO_JSON));
  return {
    command: Deno.execPath(),
    args: [
      "run",
      ...flags,
      "--config",
      fromFileUrl(DENO_JSON),
      join(fromFileUrl(CLI_DIR), "main.ts"),
      ...serve,
    ],
  };
}
