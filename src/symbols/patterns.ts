/**
 * The fallback for languages without a parser here and for files that do not
 * parse: definition-looking lines matched by patterns. Results from here are
 * always reported as `method: "pattern"`, never as parsed: a pattern cannot
 * tell a definition in a string or a block comment from a real one.
 *
 * @module
 */

import { type Definition, SIGNATURE_CHARS, type SymbolKind } from "./extract.ts";

/** Keywords that introduce a definition in the common languages, and what they define. */
const KEYWORD_KINDS: Readonly<Record<string, SymbolKind>> = {
  class: "class",
  object: "class",
  struct: "struct",
  interface: "interface",
  protocol: "interface",
  trait: "trait",
  enum: "enum",
  function: "function",
  func: "function",
  fun: "function",
  fn: "function",
  def: "function",
  sub: "function",
  module: "module",
  namespace: "module",
  package: "module",
  type: "type",
  typealias: "type",
  typedef: "type",
  val: "variable",
  var: "variable",
  let: "variable",
  const: "constant",
};

const MODIFIERS =
  "(?:(?:export|default|pub(?:\\([^)]*\\))?|public|private|protected|internal|static|abstract|final|open|override|async|data|sealed|inline|suspend|local|extern|unsafe|declare|enum|case|annotation|companion|inner|lateinit|const)\\s+)*";

const DEFINITION = new RegExp(
  `^\\s*${MODIFIERS}(${
    Object.keys(KEYWORD_KINDS).join("|")
  })\\s+(?:\\([^)]*\\)\\s*)?([A-Za-z_$][\\w$]*(?:[.:][A-Za-z_$][\\w$]*)*)`,
);

/** A shell function: `name() {` or `function name`. */
const SHELL_FUNCTION = /^\s*(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\s*\)\s*\{?/;

/** Lines that start a comment in most languages. */
const COMMENT_START = /^\s*(?:\/\/|#(?!include|define)|\*|\/\*|--|;)/;

/** The longest line examined (minified files are not scanned past it). */
const MAX_LINE_CHARS = 2_000;

/** Kinds whose indented lines below are taken as their members. */
const CONTAINERS = new Set<SymbolKind>(["class", "struct", "interface", "trait", "enum", "module"]);

/**
 * Definition-looking lines of `text` that `accept` keeps, at most `limit` of
 * them. Containers are guessed from indentation: a definition indented under
 * a class-like one is its member.
 */
export function patternDefinitions(
  text: string,
  language: string,
  accept: (name: string, qualifiedName: string) => boolean,
  limit: number,
): Definition[] {
  const found: Definition[] = [];
  let lineNo = 0;
  let start = 0;
  const open: { indent: number; name: string }[] = [];
  while (start <= text.length && found.length < limit) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    lineNo++;
    const line = text.slice(start, Math.min(end, start + MAX_LINE_CHARS));
    start = end + 1;
    if (COMMENT_START.test(line)) continue;
    const indent = line.search(/\S/);
    if (indent === -1) continue;
    while (open.length > 0 && open[open.length - 1].indent >= indent) open.pop();
    const match = DEFINITION.exec(line);
    let name: string | undefined;
    let kind: SymbolKind | undefined;
    let column = 0;
    if (match) {
      name = match[2];
      kind = KEYWORD_KINDS[match[1]];
      column = match.index + match[0].length - name.length;
    } else if (language === "bash") {
      const shell = SHELL_FUNCTION.exec(line);
      if (shell) {
        name = shell[1];
        kind = "function";
        column = line.indexOf(name);
      }
    }
    if (!name || !kind) continue;
    const parts = name.split(/[.:]+/);
    const short = parts[parts.length - 1];
    const container = [...open.map((o) => o.name), ...parts.slice(0, -1)].join(".");
    const qualifiedName = container ? `${container}.${short}` : short;
    if (CONTAINERS.has(kind)) open.push({ indent, name: short });
    if (kind === "function" && open.length > 0) kind = "method";
    if (!accept(short, qualifiedName)) continue;
    const trimmed = line.trim();
    found.push({
      name: short,
      qualifiedName,
      kind,
      line: lineNo,
      column: column + 1,
      signature: trimmed.length > SIGNATURE_CHARS
        ? `${trimmed.slice(0, SIGNATURE_CHARS - 1)}…`
        : trimmed,
      container,
    });
  }
  return found;
}
