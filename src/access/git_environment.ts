/**
 * The process git runs as: which program, with which environment, and the
 * options in front of every git command line. git runs outside Deno's
 * permission model, so nothing of the server's own environment reaches it:
 * the child starts from an empty environment (`clearEnv`) holding exactly
 * what is built here, and every command line starts with the same hardening
 * options, whatever the repository's own configuration says.
 *
 * @module
 */

import { dirname, isAbsolute, join } from "node:path";
import { isWithin } from "./resolve.ts";

/**
 * Directories searched after git's own for the programs git itself starts
 * (none should start with the options below; this is what PATH holds so a
 * missing one cannot make git search the current directory).
 */
export const STANDARD_PATH_DIRS = ["/usr/local/bin", "/usr/bin", "/bin"] as const;

/**
 * The git program the server will run, looked up once at start in the
 * server's `PATH` (`pathValue`) the way Deno resolves the `run` grant for
 * `git`: the first entry holding an executable `git`. Relative entries are
 * skipped (they would depend on the directory the server was started in),
 * and a `git` inside the workspace is never used (`null` instead): a hostile
 * repository must not supply the program that reads it.
 */
export function locateGit(pathValue: string, workspaceRoot: string): string | null {
  for (const dir of pathValue.split(":")) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const candidate = join(dir, "git");
    let info: Deno.FileInfo;
    try {
      info = Deno.statSync(candidate);
    } catch {
      continue;
    }
    if (!info.isFile || ((info.mode ?? 0o111) & 0o111) === 0) continue;
    let real = candidate;
    try {
      real = Deno.realPathSync(candidate);
    } catch { /* keep the name as found */ }
    if (isWithin(workspaceRoot, candidate) || isWithin(workspaceRoot, real)) return null;
    return candidate;
  }
  return null;
}

/**
 * The whole environment of a git child: nothing inherited. `HOME` is the
 * workspace (so `~` in the repository's own configuration stays inside it);
 * no system or global configuration is read; no prompt, no optional locks
 * (git never writes the index on our behalf); discovery stops at the
 * workspace (`GIT_CEILING_DIRECTORIES` = its parent, so an enclosing
 * repository is never found); pathspecs are literal; no transport is
 * allowed (`GIT_ALLOW_PROTOCOL` empty wins over the repository's
 * `protocol.<name>.allow`, which `-c protocol.allow=never` does not: a
 * partial clone's lazy fetch would otherwise run an `ext::` command);
 * replace refs are ignored. `overrides` are configuration pairs passed as
 * `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`, which, unlike `-c`, keep a key
 * holding `=` intact.
 */
export function gitEnvironment(
  root: string,
  binary: string,
  overrides: readonly (readonly [string, string])[] = [],
  literalPathspecs = true,
): Record<string, string> {
  const path = [dirname(binary), ...STANDARD_PATH_DIRS.filter((d) => d !== dirname(binary))];
  const env: Record<string, string> = {
    PATH: path.join(":"),
    HOME: root,
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_CEILING_DIRECTORIES: dirname(root),
    GIT_LITERAL_PATHSPECS: "1",
    GIT_ALLOW_PROTOCOL: "",
    GIT_NO_LAZY_FETCH: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
  };
  // A caller whose pathspecs carry explicit `:(literal)` magic (see RunControls) needs it unset.
  if (!literalPathspecs) delete env.GIT_LITERAL_PATHSPECS;
  if (overrides.length > 0) {
    env.GIT_CONFIG_COUNT = String(overrides.length);
    overrides.forEach(([key, value], i) => {
      env[`GIT_CONFIG_KEY_${i}`] = key;
      env[`GIT_CONFIG_VALUE_${i}`] = value;
    });
  }
  return env;
}

/**
 * Options in front of every git command. Each closes a way the repository's
 * own configuration could make a read-only command start a program or read
 * outside the workspace:
 *
 * - `--no-pager`: `core.pager` / `pager.<cmd>`;
 * - `--work-tree=<root>`: a `core.worktree` pointing elsewhere (a diff
 *   against the working tree would read those files);
 * - `core.fsmonitor=false`: the fsmonitor hook a working-tree diff runs;
 * - `core.hooksPath=/dev/null`: hooks (no hook can exist under a file);
 * - `protocol.allow=never`: transports (see also `GIT_ALLOW_PROTOCOL`);
 * - `core.attributesFile` / `core.excludesFile` = `/dev/null`: attribute and
 *   ignore files outside the workspace;
 * - `log.showSignature=false`: `gpg.program` run to check signatures;
 * - `diff.external` is *not* overridden (an empty value makes git run an
 *   empty command); `--no-ext-diff` on each diff does that job.
 */
export function hardeningOptions(root: string): string[] {
  return [
    "--no-pager",
    `--work-tree=${root}`,
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "protocol.allow=never",
    "-c",
    "core.attributesFile=/dev/null",
    "-c",
    "core.excludesFile=/dev/null",
    "-c",
    "log.showSignature=false",
  ];
}

/**
 * Configuration keys the repository may define that name a program git
 * would start on a working-tree diff and that an empty value switches off:
 * content filters (`filter.<driver>.clean`, `.smudge`, `.process`; git skips
 * an empty one). Their driver names come from the repository, so they are
 * listed from its configuration (`git config --list`, includes followed)
 * before such a diff, and each is overridden with an empty value.
 */
export function filterOverrides(configNames: readonly string[]): [string, string][] {
  const overrides: [string, string][] = [];
  for (const name of configNames) {
    const lower = name.toLowerCase();
    if (
      lower.startsWith("filter.") &&
      (lower.endsWith(".clean") || lower.endsWith(".smudge") || lower.endsWith(".process"))
    ) {
      overrides.push([name, ""]);
    }
  }
  for (const name of configNames) {
    if (name.toLowerCase().startsWith("filter.") && name.toLowerCase().endsWith(".required")) {
      overrides.push([name, "false"]);
    }
  }
  return overrides;
}
