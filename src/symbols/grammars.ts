/**
 * The tree-sitter grammars, loaded lazily: web-tree-sitter's runtime and a
 * language's grammar are loaded the first time a file of that language is
 * parsed, never before.
 *
 * The `.wasm` bytes and each grammar's `queries/tags.scm` arrive as module
 * imports (`with { type: "bytes" }` / `{ type: "text" }`, Deno's
 * `raw-imports`): a tool worker may import modules without read permission
 * on them, whereas reading the same files as data would need a grant on
 * Deno's npm cache (ADR-032). The same imports are embedded by
 * `deno compile`, so a compiled binary needs no files next to it.
 *
 * @module
 */

import { Language, Parser, Query } from "web-tree-sitter";
import type { ParsedLanguage } from "./languages.ts";

type Bytes = Promise<{ default: Uint8Array }>;
type Text = Promise<{ default: string }>;

/** Where a grammar's pieces come from: its `.wasm`, its own tags queries, and ours on top. */
export interface GrammarSource {
  /** The grammar's `.wasm`. */
  readonly wasm: () => Bytes;
  /** The `queries/tags.scm` files the grammar package ships (in order), if any. */
  readonly tags: readonly (() => Text)[];
  /** Our own definition patterns for what the grammar's tags leave out (ADR-033). */
  readonly extra: string;
}

const JS_EXTRA = `
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(method_definition name: (property_identifier) @name (#eq? @name "constructor")) @definition.method
`;

const TS_EXTRA = `${JS_EXTRA}
(enum_declaration name: (identifier) @name) @definition.enum
(type_alias_declaration name: (type_identifier) @name) @definition.type
(internal_module name: (identifier) @name) @definition.module
(internal_module name: (nested_identifier) @name) @definition.module
(public_field_definition name: (property_identifier) @name) @definition.field
`;

const C_EXTRA = `
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
(union_specifier name: (type_identifier) @name body: (_)) @definition.class
`;

/** The grammar packages this build carries, by language. */
export const GRAMMAR_SOURCES: Readonly<Record<ParsedLanguage, GrammarSource>> = {
  typescript: {
    wasm: () =>
      import("tree-sitter-typescript/tree-sitter-typescript.wasm", { with: { type: "bytes" } }),
    tags: [
      () => import("tree-sitter-javascript/queries/tags.scm", { with: { type: "text" } }),
      () => import("tree-sitter-typescript/queries/tags.scm", { with: { type: "text" } }),
    ],
    extra: TS_EXTRA,
  },
  tsx: {
    wasm: () => import("tree-sitter-typescript/tree-sitter-tsx.wasm", { with: { type: "bytes" } }),
    tags: [
      () => import("tree-sitter-javascript/queries/tags.scm", { with: { type: "text" } }),
      () => import("tree-sitter-typescript/queries/tags.scm", { with: { type: "text" } }),
    ],
    extra: TS_EXTRA,
  },
  javascript: {
    wasm: () =>
      import("tree-sitter-javascript/tree-sitter-javascript.wasm", { with: { type: "bytes" } }),
    tags: [() => import("tree-sitter-javascript/queries/tags.scm", { with: { type: "text" } })],
    extra: JS_EXTRA,
  },
  python: {
    wasm: () => import("tree-sitter-python/tree-sitter-python.wasm", { with: { type: "bytes" } }),
    tags: [() => import("tree-sitter-python/queries/tags.scm", { with: { type: "text" } })],
    extra: "",
  },
  go: {
    wasm: () => import("tree-sitter-go/tree-sitter-go.wasm", { with: { type: "bytes" } }),
    tags: [() => import("tree-sitter-go/queries/tags.scm", { with: { type: "text" } })],
    extra: `
(const_spec name: (identifier) @name) @definition.constant
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
`,
  },
  rust: {
    wasm: () => import("tree-sitter-rust/tree-sitter-rust.wasm", { with: { type: "bytes" } }),
    tags: [() => import("tree-sitter-rust/queries/tags.scm", { with: { type: "text" } })],
    extra: `
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(impl_item type: (type_identifier) @name) @scope
(impl_item type: (generic_type type: (type_identifier) @name)) @scope
(impl_item type: (scoped_type_identifier name: (type_identifier) @name)) @scope
`,
  },
  java: {
    wasm: () => import("tree-sitter-java/tree-sitter-java.wasm", { with: { type: "bytes" } }),
    tags: [() => import("tree-sitter-java/queries/tags.scm", { with: { type: "text" } })],
    extra: `
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(constructor_declaration name: (identifier) @name) @definition.method
(annotation_type_declaration name: (identifier) @name) @definition.interface
`,
  },
  c: {
    wasm: () => import("tree-sitter-c/tree-sitter-c.wasm", { with: { type: "bytes" } }),
    tags: [() => import("tree-sitter-c/queries/tags.scm", { with: { type: "text" } })],
    extra: C_EXTRA,
  },
  cpp: {
    wasm: () => import("tree-sitter-cpp/tree-sitter-cpp.wasm", { with: { type: "bytes" } }),
    tags: [() => import("tree-sitter-cpp/queries/tags.scm", { with: { type: "text" } })],
    extra: `${C_EXTRA}
(namespace_definition name: (namespace_identifier) @name) @definition.module
(function_declarator declarator: (qualified_identifier) @name) @definition.method
(function_declarator declarator: (destructor_name) @name) @definition.method
`,
  },
  csharp: {
    wasm: () => import("tree-sitter-c-sharp/tree-sitter-c_sharp.wasm", { with: { type: "bytes" } }),
    tags: [() => import("tree-sitter-c-sharp/queries/tags.scm", { with: { type: "text" } })],
    extra: `
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(constructor_declaration name: (identifier) @name) @definition.method
(namespace_declaration name: (qualified_name) @name) @definition.module
(file_scoped_namespace_declaration name: (_) @name) @definition.module
`,
  },
  ruby: {
    wasm: () => import("tree-sitter-ruby/tree-sitter-ruby.wasm", { with: { type: "bytes" } }),
    tags: [() => import("tree-sitter-ruby/queries/tags.scm", { with: { type: "text" } })],
    extra: "",
  },
  php: {
    wasm: () => import("tree-sitter-php/tree-sitter-php.wasm", { with: { type: "bytes" } }),
    tags: [() => import("tree-sitter-php/queries/tags.scm", { with: { type: "text" } })],
    extra: `
(enum_declaration name: (name) @name) @definition.enum
(const_element (name) @name) @definition.constant
`,
  },
  bash: {
    wasm: () => import("tree-sitter-bash/tree-sitter-bash.wasm", { with: { type: "bytes" } }),
    // The package ships no tags.scm.
    tags: [],
    extra: `
(function_definition name: (word) @name) @definition.function
(program (variable_assignment name: (variable_name) @name) @definition.variable)
(program (declaration_command (variable_assignment name: (variable_name) @name) @definition.variable))
`,
  },
};

/** A loaded grammar: a parser set to it, and its definition queries (the grammar's tags first). */
export interface Grammar {
  readonly language: ParsedLanguage;
  readonly parser: Parser;
  readonly queries: readonly Query[];
}

/** Raised when a grammar cannot be loaded (a missing or broken `.wasm`). */
export class GrammarUnavailable extends Error {
  override name = "GrammarUnavailable";
}

let runtime: Promise<void> | undefined;

/** Loads web-tree-sitter's own runtime once (its `.wasm` handed over as bytes). */
function initRuntime(): Promise<void> {
  runtime ??= (async () => {
    const { default: wasmBinary } = await import("web-tree-sitter/web-tree-sitter.wasm", {
      with: { type: "bytes" },
    });
    await Parser.init({ wasmBinary } as Parameters<typeof Parser.init>[0]);
  })();
  return runtime;
}

/**
 * The top-level patterns of a query file that define something: reference
 * patterns (`@reference.*`) are dropped, as find_symbol never reports them.
 */
export function definitionPatterns(source: string): string {
  const kept: string[] = [];
  let depth = 0;
  let start = -1;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === ";") {
      while (i < source.length && source[i] !== "\n") i++;
      continue;
    }
    if (c === '"') {
      for (i++; i < source.length && source[i] !== '"'; i++) if (source[i] === "\\") i++;
      continue;
    }
    if (c === "(" || c === "[") {
      if (depth === 0) start = i;
      depth++;
    } else if (c === ")" || c === "]") {
      depth--;
      if (depth === 0 && start >= 0) {
        let end = i + 1;
        // A quantifier or a capture may follow the closing bracket.
        while (end < source.length && /[*+?]/.test(source[end])) end++;
        const capture = /^\s*@[\w.-]+/.exec(source.slice(end));
        if (capture) end += capture[0].length;
        const pattern = source.slice(start, end);
        if (pattern.includes("@definition.")) kept.push(pattern);
        i = end - 1;
        start = -1;
      }
    }
  }
  return kept.map(withoutDocComments).join("\n");
}

/**
 * A tags pattern without its doc-comment capture: `(comment)* @doc .` and the
 * `#strip!` / `#select-adjacent!` directives on it serve editors' hover text,
 * which find_symbol does not return, and the quantified sibling anchor costs
 * a large share of the query time (measured on typescript.js, ADR-031).
 */
function withoutDocComments(pattern: string): string {
  return pattern
    .replace(/\(comment\)\*\s*@doc\s*\.\s*/g, "")
    .replace(/\(#(?:strip|select-adjacent|set-adjacent)!\s+@doc[^)]*\)/g, "");
}

/** Loads grammars on first use and keeps them for the worker's life. */
export class GrammarRegistry {
  readonly #sources: Readonly<Record<string, GrammarSource>>;
  readonly #loaded = new Map<string, Promise<Grammar>>();

  constructor(sources: Readonly<Record<string, GrammarSource>> = GRAMMAR_SOURCES) {
    this.#sources = sources;
  }

  /** The grammar of `language`, loading it on first use; rejects with {@linkcode GrammarUnavailable}. */
  get(language: ParsedLanguage): Promise<Grammar> {
    let grammar = this.#loaded.get(language);
    if (!grammar) {
      grammar = this.#load(language);
      this.#loaded.set(language, grammar);
    }
    return grammar;
  }

  /** The languages loaded so far (for tests of laziness). */
  loadedLanguages(): string[] {
    return [...this.#loaded.keys()];
  }

  async #load(language: ParsedLanguage): Promise<Grammar> {
    const source = this.#sources[language];
    if (!source) throw new GrammarUnavailable(`no grammar is bundled for ${language}`);
    let lang: Language;
    try {
      await initRuntime();
      lang = await Language.load((await source.wasm()).default);
    } catch (error) {
      throw new GrammarUnavailable(
        `the ${language} grammar did not load (${(error as Error).message ?? error})`,
      );
    }
    const parser = new Parser();
    parser.setLanguage(lang);
    // One query, the grammar's tags first: one pass over the tree instead of one per file of
    // patterns (the query pass cost as much as the parse on kernel C), and a lower pattern
    // index means a grammar's own tag.
    const sources: string[] = [];
    for (const tags of source.tags) sources.push(definitionPatterns((await tags()).default));
    sources.push(source.extra);
    return { language, parser, queries: [new Query(lang, sources.join("\n"))] };
  }
}
