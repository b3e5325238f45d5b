/**
 * `find_symbol`: where a name is defined, from real parsers (tree-sitter
 * grammars, ADR-031/032) and, for languages without one or files that do not
 * parse, from patterns — every result says which (`method`). Parsed results
 * rank first; languages in scope that had no parser are named. Schema,
 * handler, result.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { z } from "zod";
import { ToolRefusal } from "../contract/refusal.ts";
import { rawResultChars, toolBudget } from "../contract/budget.ts";
import type { RawToolResult, TextPart } from "../contract/result.ts";
import { escapeControlCharacters, EscapedNames } from "../contract/text.ts";
import type { Definition } from "../symbols/extract.ts";
import { fileSymbols, type Method } from "../symbols/file_symbols.ts";
import { GrammarRegistry } from "../symbols/grammars.ts";
import { isParsed, languageOf } from "../symbols/languages.ts";
import { decodeText, type SourceWalkEnd, walkSources } from "./symbol_walk.ts";
import type { ToolContext, ToolDefinition } from "./types.ts";
import {
  type FindSymbolInput,
  findSymbolSpec,
  KIND_FILTERS,
  type Result,
  SYMBOL_FILE_BYTES,
} from "./find_symbol_spec.ts";

export { FindSymbolOutput, SYMBOL_FILE_BYTES } from "./find_symbol_spec.ts";

/** Matches collected before ranking; more are counted, not kept. */
const MAX_COLLECTED = 5_000;

type FindSymbolArgs = z.infer<typeof FindSymbolInput>;
type ResultEntry = z.infer<typeof Result>;

interface CursorPayload {
  q: string;
  o: number;
}

/** One grammar registry per worker: grammars load on first use and stay. */
const GRAMMARS = new GrammarRegistry();

/** Whether a definition's names answer `symbol`. */
function matcher(
  symbol: string,
  exact: boolean,
): {
  accept: (name: string, qualified: string) => boolean;
  mentions: (bytes: Uint8Array) => boolean;
} {
  if (exact) {
    const tail = symbol.includes(".") ? symbol.slice(symbol.lastIndexOf(".") + 1) : symbol;
    const needle = Buffer.from(tail, "utf8");
    return {
      accept: (name, qualified) =>
        name === symbol || qualified === symbol || qualified.endsWith(`.${symbol}`),
      mentions: (bytes) =>
        Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).includes(needle),
    };
  }
  const lower = symbol.toLowerCase();
  const tail = lower.includes(".") ? lower.slice(lower.lastIndexOf(".") + 1) : lower;
  return {
    accept: (_name, qualified) => qualified.toLowerCase().includes(lower),
    mentions: (bytes) => decodeText(bytes).toLowerCase().includes(tail),
  };
}

async function findSymbol(args: FindSymbolArgs, ctx: ToolContext): Promise<RawToolResult> {
  const target = ctx.workspace.resolve(args.path ?? "");
  if (!target.info.isDirectory && !target.info.isFile) {
    throw new ToolRefusal(
      "special_file",
      "That path is not a regular file or a directory (FIFO, socket or device); it is never opened.",
    );
  }
  const exact = args.exact ?? true;
  const kindFilter = new Set<string>(KIND_FILTERS[args.kind ?? "any"]);
  const pageSize = args.max_results ?? 50;
  const query = JSON.stringify([args.symbol, target.relative, args.kind ?? "any", exact]);
  let offset = 0;
  if (args.cursor !== undefined) {
    const opened = await ctx.cursors.open(args.cursor);
    if (!opened.ok) return opened.result;
    const payload = opened.payload as CursorPayload;
    if (payload.q !== query || !Number.isInteger(payload.o) || payload.o < 0) {
      return {
        kind: "invalid_params",
        message: "Invalid cursor: it belongs to a different symbol, path, kind or exact setting.",
      };
    }
    offset = payload.o;
  }

  const { accept, mentions } = matcher(args.symbol, exact);
  const matches: ResultEntry[] = [];
  let total = 0;
  let filesSearched = 0;
  let skipped = 0;
  const unparseable: { path: string; reason: string }[] = [];
  const patternLanguages = new Map<string, { files: number; reason: string }>();
  // The call's cooperative stop flag (ADR-016): raised at the time budget or on cancellation,
  // checked before every directory and file and inside every parse and query.
  const stop = () => ctx.stop.reason();
  let stopped: string | undefined;
  const stopNow = () => (stopped ??= stop()) !== undefined;
  const walkEnd: SourceWalkEnd = { directories: 0, errors: 0 };
  // A directory's results wait for its end: a directory swapped while it was
  // read (unconfirmed) gives nothing.
  let pending: ResultEntry[] = [];
  let pendingTotal = 0;
  let pendingUnparseable: { path: string; reason: string }[] = [];
  /** The counts at the last directory_done that did not say `again`, to go back to when one does. */
  const countsOf = () => ({
    filesSearched,
    skipped,
    patternLanguages: new Map([...patternLanguages].map(([k, v]) => [k, { ...v }])),
  });
  let counted = countsOf();

  for await (
    const event of walkSources(ctx, target, {
      maxFileBytes: SYMBOL_FILE_BYTES,
      stop,
      wants: (path) => languageOf(path) !== undefined,
    }, walkEnd)
  ) {
    if (event.kind === "directory_done") {
      if (event.confirmed) {
        for (const r of pending) if (matches.length < MAX_COLLECTED) matches.push(r);
        total += pendingTotal;
        unparseable.push(...pendingUnparseable);
      }
      if (event.again) {
        // Its files come again (ADR-139): what they counted is counted once.
        filesSearched = counted.filesSearched;
        skipped = counted.skipped;
        patternLanguages.clear();
        for (const [language, entry] of counted.patternLanguages) {
          patternLanguages.set(language, { ...entry });
        }
      } else counted = countsOf();
      pending = [];
      pendingTotal = 0;
      pendingUnparseable = [];
      continue;
    }
    const language = languageOf(event.path);
    if (!language) continue;
    if (!isParsed(language)) {
      const entry = patternLanguages.get(language) ??
        { files: 0, reason: "no grammar is bundled" };
      entry.files++;
      patternLanguages.set(language, entry);
    }
    if (!event.bytes) {
      skipped++;
      continue;
    }
    filesSearched++;
    // Every file: the worker's gate lets a few a second through (a single parse can be long).
    ctx.progress(filesSearched, undefined, `${filesSearched} files searched`);
    // A definition's text holds its name: most files are ruled out without a parse.
    if (!mentions(event.bytes)) continue;
    const text = decodeText(event.bytes);
    const found = await fileSymbols(GRAMMARS, language, text, {
      accept,
      limit: MAX_COLLECTED,
      shouldStop: stopNow,
    });
    if (found.unparseable) pendingUnparseable.push({ path: event.path, reason: found.unparseable });
    if (found.noParser) {
      const entry = patternLanguages.get(language) ?? { files: 0, reason: found.noParser };
      if (isParsed(language)) entry.files++;
      entry.reason = found.noParser;
      patternLanguages.set(language, entry);
    }
    for (const d of found.definitions) {
      if (!kindFilter.has(d.kind)) continue;
      pendingTotal++;
      if (pending.length < MAX_COLLECTED) {
        pending.push(toEntry(d, event.path, language, found.method));
      }
    }
  }
  if (walkEnd.ended === "timed_out" || walkEnd.ended === "cancelled") stopped ??= walkEnd.ended;
  ctx.progress(filesSearched, undefined, `${filesSearched} files searched`);

  const rank = (r: ResultEntry) =>
    (r.method === "parsed" ? 0 : 2) +
    (r.name === args.symbol || r.qualified_name === args.symbol ? 0 : 1);
  const ranked = matches
    .map((r, i) => ({ r, i, k: rank(r) }))
    .sort((a, b) => a.k - b.k || a.i - b.i)
    .map((x) => x.r);

  const fixed = {
    symbol: args.symbol,
    total_matches: total,
    files_searched: filesSearched,
    unparseable_files: unparseable.slice(0, 50),
    pattern_languages: [...patternLanguages].map(([language, v]) => ({ language, ...v })),
    skipped_files: skipped,
    timed_out: stopped !== undefined,
  };
  const capped = walkEnd.ended === "files" || walkEnd.ended === "bytes";
  const header = (shown: number, more: boolean) => {
    const parsed = ranked.filter((r) => r.method === "parsed").length;
    const notes = [
      `find_symbol: ${total} definition${total === 1 ? "" : "s"} of ${
        JSON.stringify(escapeControlCharacters(args.symbol))
      } (${parsed} parsed, ${matches.length - parsed} pattern) in ${filesSearched} files`,
      ...(shown < ranked.length - offset || more
        ? [`showing ${offset + 1}-${offset + shown}`]
        : []),
      ...(fixed.pattern_languages.length
        ? [
          `pattern-matched, no parser: ${
            fixed.pattern_languages.map((l) => l.language).join(", ")
          }`,
        ]
        : []),
      ...(unparseable.length ? [`${unparseable.length} files did not parse (patterns used)`] : []),
      ...(fixed.timed_out ? ["stopped early: partial results"] : []),
    ];
    return `${notes.join("; ")}.`;
  };

  // Fill the page within the response budget, counting both halves of each result.
  const budget = toolBudget(ctx.limits) -
    rawResultChars([{ text: header(0, true), untrusted: false }], {
      ...fixed,
      results: [],
      truncated: true,
      next_cursor: "x".repeat(300),
    });
  const page: ResultEntry[] = [];
  const lines: string[] = [];
  const names = new EscapedNames();
  let spent = 0;
  for (const r of ranked.slice(offset, offset + pageSize)) {
    const lineNames = new EscapedNames();
    const line = renderResult(r, lineNames.escape);
    spent += line.length + 1 + JSON.stringify(r).length + 1;
    if (spent > budget && page.length > 0) break;
    page.push(r);
    lines.push(line);
    names.raw.push(...lineNames.raw);
  }
  const nextOffset = offset + page.length;
  const more = nextOffset < ranked.length;
  const nextCursor = more
    ? await ctx.cursors.sign({ q: query, o: nextOffset } satisfies CursorPayload)
    : undefined;
  const parts: TextPart[] = [{ text: header(page.length, more), untrusted: false }];
  if (lines.length) {
    parts.push({
      text: lines.join("\n"),
      untrusted: true,
      label: "symbol-definitions",
      escaped: names.list,
    });
  }
  return {
    kind: "ok",
    parts,
    structured: {
      ...fixed,
      results: page,
      truncated: more || total > matches.length || capped,
      ...(nextCursor ? { next_cursor: nextCursor } : {}),
    },
  };
}

function toEntry(d: Definition, path: string, language: string, method: Method): ResultEntry {
  return {
    name: d.name,
    qualified_name: d.qualifiedName,
    kind: d.kind,
    path,
    line: d.line,
    column: d.column,
    signature: d.signature,
    language,
    container: d.container,
    method,
  };
}

function renderResult(r: ResultEntry, escape: (text: string) => string): string {
  return `${escape(r.path)}:${r.line}:${r.column} ${r.kind} ${
    escape(r.qualified_name)
  } [${r.language}, ${r.method}]  ${escape(r.signature)}`;
}

/** The `find_symbol` tool: its spec (`find_symbol_spec.ts`, ADR-117) and its handler. */
export const findSymbolTool: ToolDefinition = {
  ...findSymbolSpec,
  run: findSymbol as ToolDefinition["run"],
};
