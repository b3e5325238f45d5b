/**
 * Escaping of names for the text rendering: a file name can hold newlines,
 * escape sequences or bidi overrides, and none of them may reach the reader
 * raw. Structured content keeps the name exactly; only text is escaped.
 *
 * @module
 */

/**
 * Replaces C0/C1 controls, DEL, the Unicode line and paragraph separators, and bidi and
 * zero-width format characters with visible escapes.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(
    // deno-lint-ignore no-control-regex
    /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g,
    (ch) => {
      switch (ch) {
        case "\n":
          return "\\n";
        case "\r":
          return "\\r";
        case "\t":
          return "\\t";
        default: {
          const code = ch.charCodeAt(0);
          return code <= 0xff
            ? "\\x" + code.toString(16).padStart(2, "0")
            : "\\u" + code.toString(16).padStart(4, "0");
        }
      }
    },
  );
}
