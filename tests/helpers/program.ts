/**
 * Runs the real program as a separate process with the permission flags of
 * `deno task devserver` — read from `deno.json`, the one place they are
 * defined — so end-to-end tests exercise what users run.
 *
 * @module
 */

import { childEnv, devserverRunFlags, MAIN_MODULE, REPO_ROOT } from "../../scripts/lib/program.ts";

export { devserverRunFlags, MAIN_MODULE, REPO_ROOT };

/** Options for {@linkcode programCommand}. */
export interface ProgramOptions {
  /** Environment variables added to a minimal environment (PATH, HOME, DENO_DIR, and DENO_COVERAGE_DIR so a covered test run covers the program too). */
  env?: Record<string, string>;
  cwd?: string;
  stdin?: "piped" | "null";
}

/** A `Deno.Command` running `devserver <args>` exactly as the task does. */
export function programCommand(args: string[], options: ProgramOptions = {}): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...devserverRunFlags(), MAIN_MODULE, ...args],
    cwd: options.cwd ?? REPO_ROOT,
    env: childEnv(options.env),
    clearEnv: true,
    stdin: options.stdin ?? "null",
    stdout: "piped",
    stderr: "piped",
  });
}

/** Output of one finished program run. */
export interface ProgramResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `devserver <args>` to completion. */
export async function runProgram(
  args: string[],
  options: ProgramOptions = {},
): Promise<ProgramResult> {
  const out = await programCommand(args, options).output();
  const decoder = new TextDecoder();
  return {
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
  };
}
