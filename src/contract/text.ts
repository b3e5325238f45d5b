/**
 * Escaping of names for the text we write: a file, folder, tool or revision
 * name can hold newlines, escape sequences, bidi overrides or invisible
 * characters, and none of them may reach the reader raw — in a trusted line
 * of ours, a fake `Remedy:` would read as our own. Structured content keeps
 * names exactly; only text is escaped.
 *
 * @module
 */

/**
 * Replaces C0/C1 controls, DEL, the Unicode line and paragraph separators, bidi and
 * zero-width format characters, variation selectors, fillers and tag characters (the
 * invisible ones a name can hide text in) with visible escapes.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(
    // deno-lint-ignore no-control-regex
    /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\u{e0000}-\u{e007f}]/gu,
    (ch) => {
      switch (ch) {
        case "\n":
          return "\\n";
        case "\r":
          return "\\r";
        case "\t":
          return "\\t";
        default: {
          const code = ch.codePointAt(0)!;
          return code <= 0xff
            ? "\\x" + code.toString(16).padStart(2, "0")
            : code <= 0xffff
            ? "\\u" + code.toString(16).padStart(4, "0")
            : "\\u{" + code.toString(16) + "}";
        }
      }
    },
  );
}

/**
 * Escapes workspace strings for a result's text, as {@linkcode escapeControlCharacters}
 * does, and keeps the raw form of each one it changed: the part's `escaped` list, which the
 * result pipeline assesses, since the escapes hide what the string held (ADR-116).
 */
export class EscapedNames {
  /** The raw strings escaping changed, in the order they were escaped. */
  readonly raw: string[] = [];

  /** `text` escaped; noted when that changed it. A bound function, to pass where an escape is taken. */
  readonly escape = (text: string): string => {
    const escaped = escapeControlCharacters(text);
    if (escaped !== text) this.raw.push(text);
    return escaped;
  };

  /** The part's `escaped` field: the list, or nothing when no string was changed. */
  get list(): readonly string[] | undefined {
    return this.raw.length > 0 ? this.raw : undefined;
  }
}

/** The longest a name may stand in a message of ours, in characters (before escaping). */
export const MAX_QUOTED_NAME = 80;

/**
 * A name as it may appear, unquoted, in text of ours: cut to `max`
 * characters (code points; a cut is marked with `…`), then control, bidi and
 * invisible characters escaped. Never holds a line break.
 */
export function escapeName(name: string, max: number = MAX_QUOTED_NAME): string {
  return escapeControlCharacters(cut(name, max));
}

/**
 * A name as it may appear in text of ours: cut to `max` characters (marked
 * with `…`), backslashes and double quotes escaped, control, bidi and
 * invisible characters escaped, and quoted — so it can neither end the
 * quotes, nor start a line, nor reorder what follows it.
 */
export function quoteName(name: string, max: number = MAX_QUOTED_NAME): string {
  const escaped = cut(name, max).replaceAll("\\", "\\\\").replaceAll('"', '\\"');
  return `"${escapeControlCharacters(escaped)}"`;
}

/** How our messages name the workspace: `workspace "<folder name>"`, the name quoted. */
export function workspacePhrase(workspaceName: string): string {
  return `workspace ${quoteName(workspaceName)}`;
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text; // fewer UTF-16 units than max: fewer code points too
  const chars = Array.from(text);
  return chars.length > max ? chars.slice(0, max).join("") + "…" : text;
}
