/**
 * One file's definitions, the best way available: a real parse when the
 * language has a grammar and the file parses, patterns otherwise — and the
 * result says which, and why.
 *
 * @module
 */

import { type Definition, extractDefinitions } from "./extract.ts";
import { type GrammarRegistry, GrammarUnavailable } from "./grammars.ts";
import { isParsed } from "./languages.ts";
import { patternDefinitions } from "./patterns.ts";

/** How a file's definitions were found. */
export type Method = "parsed" | "pattern";

/** One file's definitions and how they were found. */
export interface FileSymbols {
  readonly method: Method;
  readonly definitions: Definition[];
  /** Why a parseable language's file fell back to patterns (it has syntax errors, the parse was stopped…). */
  readonly unparseable?: string;
  /** Why the language has no parser (no grammar, or the grammar did not load). */
  readonly noParser?: string;
}

/** Options for {@linkcode fileSymbols}. */
export interface FileSymbolOptions {
  /** Which definitions to keep, by name and qualified name. */
  readonly accept: (name: string, qualifiedName: string) => boolean;
  /** Most definitions kept from one file. */
  readonly limit: number;
  /**
   * Asked while parsing and while the definition queries run: true stops them (the file is then
   * listed as stopped, with no definitions: the call is ending).
   */
  readonly shouldStop: () => boolean;
}

/** The definitions in `text` (a file of `language`) that `options.accept`s. */
export async function fileSymbols(
  grammars: GrammarRegistry,
  language: string,
  text: string,
  options: FileSymbolOptions,
): Promise<FileSymbols> {
  let stopped = false;
  const fallback = (why: { unparseable?: string; noParser?: string }): FileSymbols => ({
    method: "pattern",
    // A stopped call does not pay for patterns over the file it was stopped in (on a 2 MiB file
    // they can take longer than the stop's grace on a loaded machine): it gets no definitions.
    definitions: stopped ? [] : patternDefinitions(text, language, options.accept, options.limit),
    ...why,
  });
  if (!isParsed(language)) return fallback({ noParser: "no grammar is bundled" });
  let grammar;
  try {
    grammar = await grammars.get(language);
  } catch (error) {
    if (error instanceof GrammarUnavailable) return fallback({ noParser: error.message });
    throw error;
  }
  let tree;
  try {
    tree = grammar.parser.parse(
      text,
      null,
      {
        progressCallback: () => {
          stopped ||= options.shouldStop();
          return stopped;
        },
      } as Parameters<typeof grammar.parser.parse>[2],
    );
  } catch (error) {
    grammar.parser.reset();
    return fallback({ unparseable: `the parser failed (${(error as Error).message})` });
  }
  if (!tree) {
    grammar.parser.reset();
    return fallback({ unparseable: stopped ? "the parse was stopped" : "the parser gave up" });
  }
  try {
    if (tree.rootNode.hasError) return fallback({ unparseable: "syntax errors" });
    const extracted = extractDefinitions(grammar, tree, text, {
      shouldStop: () => (stopped ||= options.shouldStop()),
    });
    // A query ended by a stop matched only part of the file: as for a stopped parse.
    if (stopped) return fallback({ unparseable: "the parse was stopped" });
    const definitions = extracted
      .filter((d) => options.accept(d.name, d.qualifiedName))
      .slice(0, options.limit);
    return { method: "parsed", definitions };
  } finally {
    tree.delete();
  }
}
