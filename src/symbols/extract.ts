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

/** Steps up the tree a definition looks for containers (bounds adversarially deep code). */
const MAX_ANCESTOR_STEPS = 4_000;

interface Found {
  node: Node;
  nameNode: Node;
  kind: SymbolKind;
  name: string;
}

/**
 * The definitions in a parsed tree, in source order. Every `@definition.*`
 * match of the grammar's queries becomes one, except where an earlier query
 * already named the same identifier (the grammar's tags win over ours).
 */
export function extractDefinitions(grammar: Grammar, tree: Tree, text: string): Definition[] {
  const found: Found[] = [];
  const byName = new Set<number>();
  const byNode = new Map<number, Found>();
  for (const query of grammar.queries) {
    for (const match of query.matches(tree.rootNode)) {
      let node: Node | undefined;
      let nameNode: Node | undefined;
      let kind: SymbolKind | undefined;
      for (const capture of match.captures) {
        if (capture.name === "name") nameNode = capture.node;
        else if (capture.name.startsWith("definition.")) {
          node = capture.node;
          kind = CAPTURE_KINDS[capture.name.slice("definition.".length)];
        }
      }
      if (!node || !nameNode || !kind) continue;
      if (byName.has(nameNode.id)) continue;
      byName.add(nameNode.id);
      const entry = {
        node,
        nameNode,
        kind: NODE_KINDS[node.type] ?? kind,
        name: lastSegment(nameNode.text),
      };
      found.push(entry);
      if (!byNode.has(node.id)) byNode.set(node.id, entry);
    }
  }
  found.sort((a, b) => a.nameNode.startIndex - b.nameNode.startIndex);

  const lines = lineStarts(text);
  const qualified = new Map<number, string>();
  const result: Definition[] = [];
  for (const entry of found) {
    const containers = containerNames(entry, byNode, grammar.language);
    let kind = entry.kind;
    if (kind === "function" && containers.memberOfType) kind = "method";
    if (grammar.language === "go" && entry.node.type === "type_spec") {
      const type = entry.node.childForFieldName("type")?.type;
      if (type === "struct_type") kind = "struct";
      else if (type === "interface_type") kind = "interface";
    }
    const container = containers.names.join(".");
    const qualifiedName = container ? `${container}.${entry.name}` : entry.name;
    qualified.set(entry.node.id, qualifiedName);
    const row = entry.nameNode.startPosition.row;
    result.push({
      name: entry.name,
      qualifiedName,
      kind,
      line: row + 1,
      column: entry.nameNode.startPosition.column + 1,
      signature: signatureAt(text, lines, entry.node.startPosition.row, entry.node),
      container,
    });
  }
  return result;
}

/** The names enclosing a definition, outermost first, and whether the nearest is a type. */
function containerNames(
  entry: Found,
  byNode: ReadonlyMap<number, Found>,
  language: string,
): { names: string[]; memberOfType: boolean } {
  const names: string[] = [];
  let memberOfType: boolean | undefined;
  const note = (name: string, isType: boolean) => {
    names.unshift(name);
    memberOfType ??= isType;
  };
  // A qualified declarator names its own scope: `void ns::Engine::start()`.
  const qualified = entry.nameNode.type === "qualified_identifier"
    ? entry.nameNode
    : entry.nameNode.parent?.type === "qualified_identifier"
    ? entry.nameNode.parent
    : undefined;
  if (qualified) {
    const text = qualified.text.replace(/\s+/g, "");
    const cut = text.lastIndexOf("::");
    if (cut > 0) note(text.slice(0, cut).replaceAll("::", "."), true);
  }
  if (language === "go" && entry.node.type === "method_declaration") {
    const receiver = entry.node.childForFieldName("receiver")?.text ?? "";
    const type = /([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)\s*$/.exec(receiver)?.[1];
    if (type) note(type, true);
  }
  let node = entry.node.parent;
  for (let steps = 0; node && steps < MAX_ANCESTOR_STEPS; steps++, node = node.parent) {
    const container = byNode.get(node.id);
    if (container && container !== entry && CONTAINER_KINDS.has(container.kind)) {
      note(container.name, container.kind !== "function" && container.kind !== "method");
      continue;
    }
    if (node.type === "impl_item") {
      const type = node.childForFieldName("type")?.text.replace(/<.*$/s, "");
      if (type) note(type, true);
    } else if (node.type === "namespace_definition" && !byNode.has(node.id)) {
      const name = node.childForFieldName("name")?.text;
      if (name) note(name.replaceAll("::", "."), false);
    }
  }
  return { names, memberOfType: memberOfType ?? false };
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
function signatureAt(text: string, lines: readonly number[], row: number, node: Node): string {
  const start = lines[row] ?? 0;
  const end = row + 1 < lines.length ? lines[row + 1] - 1 : text.length;
  const column = node.startPosition.column;
  const from = start + (column > SIGNATURE_CHARS ? column : 0);
  const line = text.slice(from, Math.min(end, from + SIGNATURE_CHARS * 2)).trim();
  return line.length > SIGNATURE_CHARS ? `${line.slice(0, SIGNATURE_CHARS - 1)}…` : line;
}
