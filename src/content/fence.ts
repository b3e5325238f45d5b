/**
 * Untrusted fences: every byte that came from the workspace reaches the
 * client between an opening and a closing marker that carry a fresh random
 * nonce, so content cannot forge the end of its own fence.
 *
 * @module
 */

/** The fence's tag name. */
export const FENCE_TAG = "untrusted-file-content";

/** A fresh 128-bit nonce as 32 lowercase hex digits (one per response). */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Wraps `text` in a fence with `nonce`. The text inside is not altered. */
export function fenceUntrusted(text: string, nonce: string): string {
  const body = text.endsWith("\n") || text === "" ? text : text + "\n";
  return `<${FENCE_TAG} id=${nonce}>\n${body}</${FENCE_TAG} id=${nonce}>`;
}
