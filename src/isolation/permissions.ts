/**
 * The runtime permission layer, the second layer of containment. The
 * process starts with the permission set `devserver` from `deno.json` (the
 * one definition shared by `deno task devserver`, the tests and
 * `deno compile`); this module says what each part keeps after start:
 *
 * - tool workers: read = the workspace, run = git, nothing else;
 * - the supervisor: the same, plus read of the program's own source
 *   modules: Deno loads a worker's script and its whole import graph as a
 *   dynamic import, checked against the creating thread's read grant. The
 *   supervisor runs no tool code and reads nothing itself;
 * - the main thread: no read, no run, no env, and net only when serving HTTP.
 *
 * @module
 */

/** The permission names Deno knows, in the order reports list them. */
export const PERMISSION_NAMES = [
  "read",
  "write",
  "net",
  "env",
  "run",
  "ffi",
  "sys",
  "import",
] as const;

/** One permission's state as `Deno.permissions.query` reports it. */
export type PermissionReport = Record<typeof PERMISSION_NAMES[number], Deno.PermissionState>;

/** The grant of a tool worker: the workspace for reading, git for running. */
export function toolWorkerPermissions(root: string): Deno.PermissionOptionsObject {
  return {
    read: [root],
    run: ["git"],
    write: false,
    net: false,
    env: false,
    ffi: false,
    sys: false,
    import: false,
  };
}

/**
 * The grant of the supervisor: a tool worker's, plus read of the module
 * directories a tool worker is loaded from (needed to start one).
 */
export function supervisorPermissions(
  root: string,
  moduleDirs: readonly string[],
): Deno.PermissionOptionsObject {
  return { ...toolWorkerPermissions(root), read: [root, ...moduleDirs] };
}

/**
 * Drops what a serving main thread must not hold once the sandbox is up:
 * read, run, env, write, ffi and sys always; net unless `keepNet` (HTTP).
 */
export async function dropMainThreadPermissions(keepNet: boolean): Promise<void> {
  const names: Deno.PermissionName[] = ["read", "run", "env", "write", "ffi", "sys"];
  if (!keepNet) names.push("net");
  for (const name of names) await Deno.permissions.revoke({ name } as Deno.PermissionDescriptor);
}

/** The current thread's permission states, for `doctor` and for tests of the end state. */
export async function reportPermissions(): Promise<PermissionReport> {
  const report = {} as PermissionReport;
  for (const name of PERMISSION_NAMES) {
    report[name] = (await Deno.permissions.query({ name } as Deno.PermissionDescriptor)).state;
  }
  return report;
}
