/**
 * File-URL helpers for module locations (not for user paths: those go
 * through `resolve.ts`).
 *
 * @module
 */

import { fileURLToPath } from "node:url";

/** The filesystem path of a `file:` URL. */
export function fromFileUrl(url: URL): string {
  return fileURLToPath(url);
}
