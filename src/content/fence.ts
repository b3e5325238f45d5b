/**
 * Untrusted fences: every byte that came from the workspace reaches the
 * client between `<untrusted-LABEL id=NONCE>` and `</untrusted-LABEL id=NONCE>`,
 * where LABEL says what kind of content it is and NONCE is fresh per
 * response (128 random bits). A nonce that occurs anywhere in the content is
 * drawn again, so content cannot hold the real closing marker: each fence
 * has exactly one.
 *
 * @module
 */

import { FENCE_LABELS, type FenceLabel } from "../contract/result.ts";

export { FENCE_LABELS, type FenceLabel };

/** The tag of a fence of `label`. */
export function fenceTag(label: FenceLabel): string {
  return `untrusted-${label}`;
}

/** A fresh 128-bit nonce as 32 lowercase hex digits. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A nonce that occurs in none of `texts` (case-insensitively): drawn again
 * until it does not, so the content cannot contain a marker that closes the
 * fence. `draw` is replaceable for tests.
 */
export function nonceAbsentFrom(
  texts: readonly string[],
  draw: () => string = newNonce,
): string {
  return drawNonce((nonce) => !texts.some((t) => containsFolded(t, nonce)), draw);
}

/**
 * The first nonce `draw` gives that `absent` accepts: the one redraw loop behind
 * {@linkcode nonceAbsentFrom} and a cached shaping's fresh fence (ADR-081), which
 * checks absence its own, cheaper way.
 */
export function drawNonce(
  absent: (nonce: string) => boolean,
  draw: () => string = newNonce,
): string {
  for (;;) {
    const nonce = draw();
    if (absent(nonce)) return nonce;
  }
}

/**
 * Whether `text.toLowerCase()` contains `nonce`. For a nonce of ASCII digits and lowercase
 * letters `a`–`f` (every nonce {@linkcode newNonce} draws), a case-insensitive search of the
 * text itself answers the same without a lowercased copy of it (ADR-088; the copy cost 5–6 ms
 * per MiB of prose): no character outside ASCII lowercases to text holding a hex digit (a test
 * checks every code point), so a match in the copy comes from ASCII characters only, one each,
 * and V8's non-Unicode `i` pairs exactly those. Any other nonce is checked on the copy.
 */
export function containsFolded(text: string, nonce: string): boolean {
  if (!HEX_NONCE.test(nonce)) return text.toLowerCase().includes(nonce);
  return new RegExp(nonce, "i").test(text);
}

const HEX_NONCE = /^[0-9a-f]+$/;

/** Wraps `text` in a fence of `label` with `nonce`. The text inside is not altered. */
export function fenceUntrusted(
  text: string,
  nonce: string,
  label: FenceLabel = "file-content",
): string {
  const tag = fenceTag(label);
  const body = text.endsWith("\n") || text === "" ? text : text + "\n";
  return `<${tag} id=${nonce}>\n${body}</${tag} id=${nonce}>`;
}
