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

/** Each byte's two lowercase hex digits. */
const HEX_BYTE = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** Random bytes for 64 nonces, drawn at once; each byte serves one nonce only. */
const NONCE_POOL = new Uint8Array(16 * 64);
let poolAt = NONCE_POOL.length;

/**
 * A fresh 128-bit nonce as 32 lowercase hex digits. The bytes come from
 * `crypto.getRandomValues` in batches of 64 nonces' worth (one call and one
 * buffer per batch instead of per nonce: ADR-099), each 16 bytes used for one
 * nonce and never again; a nonce tells nothing about the next one, and the
 * pool is wiped as it is used.
 */
export function newNonce(): string {
  if (poolAt + 16 > NONCE_POOL.length) {
    crypto.getRandomValues(NONCE_POOL);
    poolAt = 0;
  }
  let nonce = "";
  const end = poolAt + 16;
  for (let i = poolAt; i < end; i++) nonce += HEX_BYTE[NONCE_POOL[i]];
  NONCE_POOL.fill(0, poolAt, end);
  poolAt = end;
  return nonce;
}

/**
 * A nonce that occurs in none of `made` (case-insensitively), each text of which is made of
 * pieces of `sources` (substrings, in any order) with a marker of `markers` between each two,
 * as redaction makes a part's text (ADR-127). For a nonce of lowercase hex digits (every nonce
 * {@linkcode newNonce} draws) the check reads `sources` and `markers`, not `made`: an
 * occurrence in `made` is 32 hex digits in a row, from ASCII characters only (see
 * {@linkcode containsFolded}); a marker starts with `[` and ends with `]`, neither a hex digit,
 * so the occurrence lies inside one piece, which is a substring of a source, or inside one
 * marker. Redaction's text is a rope of one piece and one marker per secret (70,000 nodes on a
 * flood of `Authorization:` headers), which the search of `made` had to flatten first. A
 * marker of another shape, or a nonce of another shape (a replaced `draw`), is checked against
 * `made` itself. A nonce found is drawn again, so the content cannot hold a marker that closes
 * the fence; `draw` is replaceable for tests.
 */
export function nonceAbsentFromPieces(
  sources: readonly string[],
  markers: readonly string[],
  made: readonly string[],
  draw: () => string = newNonce,
): string {
  const bracketed = markers.every((m) => m.startsWith("[") && m.endsWith("]") && m.length >= 2);
  return drawNonce(
    (nonce) =>
      bracketed && HEX_NONCE.test(nonce)
        ? !sources.some((t) => containsFolded(t, nonce)) &&
          !markers.some((t) => containsFolded(t, nonce))
        : !made.some((t) => containsFolded(t, nonce)),
    draw,
  );
}

/**
 * The first nonce `draw` gives that `absent` accepts: the one redraw loop behind
 * {@linkcode nonceAbsentFromPieces} and a cached shaping's fresh fence (ADR-081), which
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

/**
 * Wraps `text` in a fence of `label` with `nonce`. The text inside is not altered.
 * `endsWithNewline` is whether it ends with a line feed, when the caller knows without reading it
 * (redaction's result can be a rope that a read of its last character would flatten, ADR-127).
 */
export function fenceUntrusted(
  text: string,
  nonce: string,
  label: FenceLabel = "file-content",
  endsWithNewline: boolean = text.endsWith("\n"),
): string {
  const tag = fenceTag(label);
  const body = endsWithNewline || text === "" ? text : text + "\n";
  return `<${tag} id=${nonce}>\n${body}</${tag} id=${nonce}>`;
}
