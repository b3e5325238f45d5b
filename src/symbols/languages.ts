/**
 * Which language a file is, by its name, and which of them have a real
 * parser here. Pure data: no I/O, no grammar loading.
 *
 * @module
 */

/** The languages with a tree-sitter grammar bundled (see `grammars.ts`). */
export const PARSED_LANGUAGES = [
  "typescript",
  "tsx",
  "javascript",
  "python",
  "go",
  "rust",
  "java",
  "c",
  "cpp",
  "csharp",
  "ruby",
  "php",
  "bash",
] as const;

/** A language with a bundled grammar. */
export type ParsedLanguage = typeof PARSED_LANGUAGES[number];

/**
 * Every language find_symbol recognises by extension. Those not in
 * {@linkcode PARSED_LANGUAGES} are pattern-matched, and the result says so.
 * Kotlin and Swift: their official npm packages ship no `.wasm` (checked
 * with `npm pack --dry-run`), so they have no parser here.
 */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  py: "python",
  pyi: "python",
  go: "go",
  rs: "rust",
  java: "java",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  hpp: "cpp",
  hh: "cpp",
  hxx: "cpp",
  cs: "csharp",
  rb: "ruby",
  php: "php",
  kt: "kotlin",
  kts: "kotlin",
  swift: "swift",
  sh: "bash",
  bash: "bash",
  scala: "scala",
  lua: "lua",
  pl: "perl",
  pm: "perl",
  ex: "elixir",
  exs: "elixir",
  dart: "dart",
  zig: "zig",
  hs: "haskell",
  ml: "ocaml",
  m: "objective-c",
  r: "r",
  jl: "julia",
};

/** The language of a file by its name, or `undefined` when it is not source code we know. */
export function languageOf(path: string): string | undefined {
  const slash = path.lastIndexOf("/");
  const name = path.slice(slash + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return undefined;
  return BY_EXTENSION[name.slice(dot + 1).toLowerCase()];
}

/** Whether `language` has a bundled grammar. */
export function isParsed(language: string): language is ParsedLanguage {
  return (PARSED_LANGUAGES as readonly string[]).includes(language);
}
