/**
 * `devserver version`: the program, the build (commit, target, V8 flags and
 * permission set, baked in by `scripts/compile.ts`; none when run from
 * source), the protocol revisions, the runtime, and the permissions the
 * process was started with (queried before they are dropped).
 *
 * @module
 */

import { dropMainThreadPermissions, PERMISSION_NAMES } from "../isolation/permissions.ts";
import { linearEngineAvailable } from "../tools/search_code_spec.ts";
import {
  buildInfo,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSION,
  SERVER_NAME,
  SERVER_VERSION,
} from "../version.ts";

/** The permission states the process holds now, as `name=state` words. */
export async function heldPermissions(): Promise<string> {
  const words: string[] = [];
  for (const name of PERMISSION_NAMES) {
    const { state } = await Deno.permissions.query({ name } as Deno.PermissionDescriptor);
    words.push(`${name}=${state}`);
  }
  return words.join(" ");
}

/** The version text: program, build, protocol revisions, runtime, permissions. */
export function versionText(permissions?: string): string {
  const build = buildInfo();
  return [
    `${SERVER_NAME} ${SERVER_VERSION}`,
    build
      ? `commit ${build.commit} (compiled for ${build.target})`
      : "commit none (running from source, not a compiled build)",
    `protocol ${MODERN_PROTOCOL_VERSION} (also ${
      LEGACY_PROTOCOL_VERSIONS.join(", ")
    } via initialize)`,
    `deno ${Deno.version.deno}`,
    `v8 ${Deno.version.v8}`,
    `v8 flags ${
      build ? build.v8Flags.replace(/^--v8-flags=/, "") : "as given to deno run"
    } (linear regexp engine ${linearEngineAvailable() ? "on" : "off"})`,
    ...(build ? [`permission set devserver ${JSON.stringify(build.permissionSet)}`] : []),
    ...(permissions ? [`permissions at start ${permissions}`] : []),
  ].join("\n");
}

/** `devserver version`: asks what the process holds, drops all of it, then prints. */
export async function runVersion(): Promise<number> {
  const permissions = await heldPermissions();
  await dropMainThreadPermissions(false);
  console.log(versionText(permissions));
  return 0;
}
