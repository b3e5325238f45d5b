/**
 * Compiles the single-file executable with the permission set `devserver`
 * from deno.json (the set `deno task devserver` runs with), embedding the
 * worker modules that are started by URL.
 *
 * Usage: deno task compile [--target TRIPLE] [--output PATH]
 *
 * `deno compile` downloads a runtime for the target, so this runs in the
 * release workflow, not on machines without that access.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { devserverV8FlagsArg, REPO_ROOT } from "./lib/program.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { target: { type: "string" }, output: { type: "string" } },
});
const args = [
  "compile",
  "-q",
  "--no-prompt",
  "--frozen",
  "-P=devserver",
  devserverV8FlagsArg(),
  "--include",
  "src/isolation/supervisor.ts",
  "--include",
  "src/tool_worker.ts",
  ...(values.target ? ["--target", values.target] : []),
  "--output",
  values.output ?? "dist/devserver",
  "src/cli/main.ts",
];
console.error(`deno ${args.join(" ")}`);
const status = await new Deno.Command(Deno.execPath(), { args, cwd: REPO_ROOT }).spawn().status;
Deno.exit(status.code);
