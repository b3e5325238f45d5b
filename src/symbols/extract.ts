/**
 * Definitions in one file, from a real parse: the grammar's tags queries
 * (plus ours) name what is defined; the tree gives each definition its
 * enclosing containers, so nested members get qualified names. Pure over
 * `(path, text)`: reading and walking are the caller's.
 *
 * @module
 */

import type { Node, Tree } from "web-tree-sitter";
import type { Grammar } from "./grammars.ts";

/** What a definition is. */
export const SYMBOL_KINDS = [
  "class",
  "struct",
  "interface",
  "trait",
  "enum",
  "function",
  "method",
  "variable",
  "constant",
  "field",
  "type",
  "module",
  "macro",
] as const;

/** A definition's kind. */
export type SymbolKind = typeof SYMBOL_KINDS[number];

/** One definition found in a file. */
export interface Definition {
  /** The defined name. */
  readonly name: string;
  /** Containers and name joined by `.` (`Outer.Inner.method`). */
  readonly qualifiedName: string;
  readonly kind: SymbolKind;
  /** 1-based line and column of the name. */
  readonly line: number;
  readonly column: number;
  /** The definition's first line, trimmed and cut to {@linkcode SIGNATURE_CHARS}. */
  readonly signature: string;
  /** The enclosing container's qualified name, or `""` at the top level. */
  readonly container: string;
}

/** The longest signature kept. */
export const SIGNATURE_CHARS = 200;

/** Kinds that can hold other definitions' names in a qualified name. */
const CONTAINER_KINDS = new Set<SymbolKind>([
  "class",
  "struct",
  "interface",
  "trait",
  "enum",
  "module",
  "function",
  "method",
]);

/** Capture suffixes (`@definition.X`) as kinds. */
const CAPTURE_KINDS: Readonly<Record<string, SymbolKind>> = {
  class: "class",
  struct: "struct",
  interface: "interface",
  trait: "trait",
  enum: "enum",
  function: "function",
  method: "method",
  variable: "variable",
  constant: "constant",
  field: "field",
  type: "type",
  module: "module",
  macro: "macro",
};

/** Node types whose kind is more precise than their grammar's tags say. */
const NODE_KINDS: Readonly<Record<string, SymbolKind>> = {
  struct_item: "struct",
  enum_item: "enum",
  union_item: "struct",
  type_item: "type",
  trait_item: "trait",
  struct_specifier: "struct",
  union_specifier: "struct",
  enum_specifier: "enum",
  trait_declaration: "trait",
};

interface Found {
  node: Node;
  nameNode: Node;
  /** A scope that names members but is not itself reported (a Rust `impl` block). */
  scopeOnly: boolean;
  kind: SymbolKind;
  name: string;
  start: number;
  end: number;
}

/** Options of {@linkcode extractDefinitions}. */
export interface ExtractOptions {
  /**
   * Asked while the queries run (tree-sitter's query progress callback): true ends them early,
   * leaving only what was matched so far — the caller then knows the file's list is incomplete.
   */
  readonly shouldStop?: () => boolean;
}

/**
 * The definitions in a parsed tree, in source order. Every `@definition.*`
 * match of the grammar's queries becomes one, except where an earlier query
 * already named the same identifier (the grammar's tags win over ours).
 * `@scope` matches name containers that are not definitions themselves.
 *
 * Containers come from source ranges, not from walking up the tree: the
 * matches are sorted by start and a stack of the open ones is kept, so the
 * cost is linear however deeply the code nests (an ancestor walk per
 * definition is quadratic on adversarially nested code).
 */
export function extractDefinitions(
  grammar: Grammar,
  tree: Tree,
  text: string,
  options: ExtractOptions = {},
): Definition[] {
  // The query engine asks this between steps; true ends the query (what it matched so far stays).
  const progressCallback = options.shouldStop ? () => options.shouldStop!() : undefined;
  // Per name node, the match of the lowest pattern index wins: the grammar's tags come first in
  // the query, so they win over our own patterns.
  const byName = new Map<number, { entry: Found; pattern: number }>();
  for (const query of grammar.queries) {
    const offset = byName.size === 0 ? 0 : Number.MAX_SAFE_INTEGER / 2;
    const matches = query.matches(
      tree.rootNode,
      progressCallback ? { progressCallback } as Parameters<typeof query.matches>[1] : undefined,
    );
    for (const match of matches) {
      let node: Node | undefined;
      let nameNode: Node | undefined;
      let kind: SymbolKind | undefined;
      let scopeOnly = false;
      for (const capture of match.captures) {
        if (capture.name === "name") nameNode = capture.node;
        else if (capture.name.startsWith("definition.")) {
          node = capture.node;
          kind = CAPTURE_KINDS[capture.name.slice("definition.".length)];
        } else if (capture.name === "scope") {
          node = capture.node;
          kind = "module";
          scopeOnly = true;
        }
      }
      if (!node || !nameNode || !kind) continue;
      const pattern = offset + match.patternIndex;
      const seen = byName.get(nameNode.id);
      if (seen && seen.pattern <= pattern) continue;
      byName.set(nameNode.id, {
        pattern,
        entry: {
          node,
          nameNode,
          scopeOnly,
          kind: NODE_KINDS[node.type] ?? kind,
          name: lastSegment(nameNode.text),
          start: node.startIndex,
          end: node.endIndex,
        },
      });
    }
  }
  const found = [...byName.values()].map((v) => v.entry);
  // Outer before inner at the same start (a longer range first).
  found.sort((a, b) =>
    a.start - b.start || b.end - a.end || a.nameNode.startIndex - b.nameNode.startIndex
  );

  const lines = lineStarts(text);
  const result: Definition[] = [];
  const open: { entry: Found; qualified: string }[] = [];
  for (const entry of found) {
    while (open.length > 0 && open[open.length - 1].entry.end <= entry.start) open.pop();
    const enclosing = open.findLast((o) =>
      CONTAINER_KINDS.has(o.entry.kind) && o.entry.node.id !== entry.node.id
    );
    const own = ownScope(entry, grammar.language);
    let container = enclosing?.qualified ?? "";
    if (own) container = container && !own.startsWith(container) ? `${container}.${own}` : own;
    const nearest = own ? "type" : enclosing?.entry.kind;
    let kind = entry.kind;
    if (kind === "function" && nearest && nearest !== "function" && nearest !== "method") {
      kind = "method";
    }
    if (grammar.language === "go" && entry.node.type === "type_spec") {
      const type = entry.node.childForFieldName("type")?.type;
      if (type === "struct_type") kind = "struct";
      else if (type === "interface_type") kind = "interface";
    }
    const qualifiedName = container ? `${container}.${entry.name}` : entry.name;
    open.push({ entry, qualified: qualifiedName });
    if (entry.scopeOnly) continue;
    result.push({
      name: entry.name,
      qualifiedName,
      kind,
      line: entry.nameNode.startPosition.row + 1,
      column: entry.nameNode.startPosition.column + 1,
      signature: signatureAt(text, lines, entry.node),
      container,
    });
  }
  result.sort((a, b) => a.line - b.line || a.column - b.column);
  return result;
}

/**
 * A scope a definition names itself: `void ns::Engine::start()` is in
 * `ns.Engine`, a Go method in its receiver's type.
 */
function ownScope(entry: Found, language: string): string | undefined {
  const name = entry.nameNode;
  const qualified = name.type === "qualified_identifier"
    ? name
    : name.parent?.type === "qualified_identifier"
    ? name.parent
    : undefined;
  if (qualified) {
    const text = qualified.text.replace(/\s+/g, "");
    const cut = text.lastIndexOf("::");
    if (cut > 0) return text.slice(0, cut).replaceAll("::", ".");
  }
  if (language === "go" && entry.node.type === "method_declaration") {
    const receiver = entry.node.childForFieldName("receiver")?.text ?? "";
    return /([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)\s*$/.exec(receiver)?.[1];
  }
  return undefined;
}

/** The last `::`-separated segment of a (possibly qualified) name. */
function lastSegment(name: string): string {
  const cut = name.lastIndexOf("::");
  return cut >= 0 ? name.slice(cut + 2) : name;
}

/** Offsets where each line of `text` starts. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** The definition's first line (from where it starts on that line), trimmed and bounded. */
function signatureAt(text: string, lines: readonly number[], node: Node): string {
  const row = node.startPosition.row;
  const start = lines[row] ?? 0;
  const end = row + 1 < lines.length ? lines[row + 1] - 1 : text.length;
  const column = node.startPosition.column;
  const from = start + (column > SIGNATURE_CHARS ? column : 0);
  const line = text.slice(from, Math.min(end, from + SIGNATURE_CHARS * 2)).trim();
  return line.length > SIGNATURE_CHARS ? `${line.slice(0, SIGNATURE_CHARS - 1)}…` : line;
}
