/**
 * How to run the real program as its own process with exactly the flags of
 * `deno task devserver` — parsed from `deno.json`, where they are defined
 * once — for the quickstart, the benchmarks and the end-to-end tests.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { devserverTaskFlags } from "../../src/cli/launch.ts";

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");

/** The entry point the task runs. */
export const MAIN_MODULE = `${REPO_ROOT}/src/cli/main.ts`;

/** The `deno run` flags of the `devserver` task, parsed from `deno.json`. */
export function devserverRunFlags(): string[] {
  const flags = devserverTaskFlags(Deno.readTextFileSync(`${REPO_ROOT}/deno.json`));
  return [...flags, "--config", `${REPO_ROOT}/deno.json`];
}

/**
 * The `--v8-flags=…` argument of the `devserver` task: V8's regular
 * expression engines as `search_code` relies on them (a runaway backtracking
 * match falls back to the linear engine; the `l` flag tests whether a pattern
 * can run in linear time). The test runner and `deno compile` take it from
 * here, so the flags are defined once, next to the permission flags.
 */
export function devserverV8FlagsArg(): string {
  const flag = devserverRunFlags().find((f) => f.startsWith("--v8-flags="));
  if (flag === undefined) throw new Error("the devserver task in deno.json has no --v8-flags");
  return flag;
}

/**
 * Makes sure a script runs under the `devserver` task's V8 flags, as served
 * searches do: when the linear regex engine is missing (the `l` flag does not
 * compile), runs the script at `scriptUrl` again with them, the same arguments
 * and `-A`, and exits with its status. Returns when the flags are already on.
 */
export async function rerunUnderDevserverV8Flags(scriptUrl: string): Promise<void> {
  try {
    // deno-lint-ignore no-invalid-regexp -- "l" exists under --enable-experimental-regexp-engine
    new RegExp("a", "l");
    return;
  } catch {
    // not under the flags: run again below
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--no-prompt",
      "--frozen",
      "-A",
      "--config",
      `${REPO_ROOT}/deno.json`,
      devserverV8FlagsArg(),
      fileURLToPath(scriptUrl),
      ...Deno.args,
    ],
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  Deno.exit((await child.status).code);
}

/**
 * The environment a child program gets: what Deno needs to find its caches,
 * and the coverage directory (so a covered test run covers the child too),
 * plus `extra`. Nothing else of ours leaks in, `MCP_*` settings included.
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME", "DENO_COVERAGE_DIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

/** `deno run` arguments that start `devserver serve` on `root`. */
export function serveArgs(root: string): string[] {
  return ["run", ...devserverRunFlags(), MAIN_MODULE, "serve", "--workspace", root];
}
