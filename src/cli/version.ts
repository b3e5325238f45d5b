/**
 * `devserver version`.
 *
 * @module
 */

import {
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSION,
  SERVER_NAME,
  SERVER_VERSION,
} from "../version.ts";

/** The version text: program, protocol revisions, runtime. */
export function versionText(): string {
  return [
    `${SERVER_NAME} ${SERVER_VERSION}`,
    `protocol ${MODERN_PROTOCOL_VERSION} (also ${
      LEGACY_PROTOCOL_VERSIONS.join(", ")
    } via initialize)`,
    `deno ${Deno.version.deno}`,
  ].join("\n");
}
