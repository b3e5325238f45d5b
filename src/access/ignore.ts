/**
 * Ignore rules as ripgrep applies them: the syntax of one ignore file
 * (`.gitignore`, `.ignore`, `.rgignore`, `.git/info/exclude`), compiled once
 * per file with fast paths for the common shapes, and the precedence between
 * files of different kinds and directories, written once in
 * {@linkcode IgnoreStack.match}. Modelled on ripgrep's `crates/ignore`
 * (`gitignore.rs` for the syntax, `dir.rs` for the precedence); no code is
 * shared with it.
 *
 * Syntax (per line): `#` starts a comment; trailing whitespace is dropped
 * unless escaped (`\ `); `!` re-includes (a whitelist rule); `\!` and `\#`
 * escape those; a leading `/` anchors the pattern to the file's directory; a
 * trailing `/` makes it match directories only; a pattern without any other
 * `/` matches a name at any depth (`**` + `/` is prefixed); `/**` at the end
 * matches everything inside; `*` and `?` never match `/`; `**` between
 * slashes matches any number of directories; `[...]` classes (`!` or `^`
 * negates); `{a,b}` alternatives; `\` escapes the next character. Matching is
 * case-sensitive. Within one file the last matching rule decides. A line
 * that does not compile is skipped, like ripgrep does.
 *
 * @module
 */

/** The kinds of ignore files, in ripgrep's order of precedence (first wins). */
export const IGNORE_FILE_KINDS = [".rgignore", ".ignore", ".gitignore", "info/exclude"] as const;

/** One kind of ignore file. `info/exclude` is `.git/info/exclude`. */
export type IgnoreFileKind = typeof IGNORE_FILE_KINDS[number];

/** A rule of an ignore file, as written. */
export interface IgnoreRule {
  /** The ignore file, relative to the workspace root (e.g. `src/.gitignore`). */
  readonly source: string;
  /** 1-based line number in that file. */
  readonly line: number;
  /** The line as written (trailing whitespace dropped). */
  readonly pattern: string;
  /** A `!` rule: it re-includes what it matches. */
  readonly whitelist: boolean;
}

/** What an ignore file or stack says about a path: the deciding rule. */
export interface IgnoreMatch {
  /** True: skip the path; false: a whitelist rule keeps it. */
  readonly ignored: boolean;
  readonly rule: IgnoreRule;
}

/** Thrown by {@linkcode globToRegExpSource} for a glob that does not compile. */
export class GlobError extends Error {
  override name = "GlobError";
}

const META = /[*?[{\\]/;

/**
 * Translates a glob in ripgrep's `globset` syntax (with `literal_separator`:
 * `*` and `?` never match `/`) to an anchored regular-expression source. The
 * output has no nested quantifiers over the same characters except through
 * `.*`, and V8's linear fallback covers the rest.
 */
export function globToRegExpSource(glob: string): string {
  const [source, end] = translate(glob, 0, false);
  if (end !== glob.length) throw new GlobError("unbalanced }");
  return `^${source}$`;
}

function translate(glob: string, start: number, inAlternative: boolean): [string, number] {
  let out = "";
  let i = start;
  while (i < glob.length) {
    const ch = glob[i];
    if (inAlternative && (ch === "," || ch === "}")) return [out, i];
    if (ch === "\\") {
      if (i + 1 >= glob.length) throw new GlobError("dangling escape");
      out += escapeRegExp(glob[i + 1]);
      i += 2;
    } else if (ch === "?") {
      out += "[^/]";
      i++;
    } else if (ch === "*") {
      let j = i;
      while (glob[j] === "*") j++;
      const stars = j - i;
      const atStart = i === 0 || (glob[i - 1] === "/" && !inAlternative);
      const atEnd = j === glob.length || glob[j] === "/";
      if (stars === 2 && atStart && atEnd && !inAlternative) {
        if (i === 0 && j === glob.length) out += ".*";
        else if (i === 0) {
          out += "(?:.*/)?"; // "**/": zero or more leading directories
          j++;
        } else if (j === glob.length) {
          out = out.slice(0, -1) + "(?:/.*)?"; // "/**" at the end: the directory and all inside
        } else {
          out = out.slice(0, -1) + "/(?:.*/)?"; // "/**/": zero or more directories between
          j++;
        }
      } else {
        out += "[^/]*";
      }
      i = j;
    } else if (ch === "[") {
      const [cls, next] = translateClass(glob, i);
      out += cls;
      i = next;
    } else if (ch === "{") {
      if (inAlternative) throw new GlobError("nested alternatives");
      const alternatives: string[] = [];
      let j = i + 1;
      while (true) {
        const [alt, stop] = translate(glob, j, true);
        alternatives.push(alt);
        if (stop >= glob.length) throw new GlobError("unclosed {");
        j = stop + 1;
        if (glob[stop] === "}") break;
      }
      out += `(?:${alternatives.join("|")})`;
      i = j;
    } else {
      out += escapeRegExp(ch);
      i++;
    }
  }
  return [out, i];
}

function translateClass(glob: string, start: number): [string, number] {
  let i = start + 1;
  let negated = false;
  if (glob[i] === "!" || glob[i] === "^") {
    negated = true;
    i++;
  }
  let body = "";
  let first = true;
  while (i < glob.length && (glob[i] !== "]" || first)) {
    const ch = glob[i];
    if (ch === "-" && !first && i + 1 < glob.length && glob[i + 1] !== "]") body += "-";
    else {body += ch === "\\" || ch === "]" || ch === "[" || ch === "^" || ch === "-"
        ? "\\" + ch
        : ch;}
    first = false;
    i++;
  }
  if (i >= glob.length) throw new GlobError("unclosed [");
  return [negated ? `[^/${body}]` : `[${body}]`, i + 1];
}

function escapeRegExp(ch: string): string {
  return /[.*+?^${}()|[\]\\]/.test(ch) ? "\\" + ch : ch;
}

/** One compiled rule: how it is matched, fastest first. */
interface CompiledRule {
  readonly index: number;
  readonly dirOnly: boolean;
  readonly rule: IgnoreRule;
  /** What a match by this rule answers (made once, not per entry). */
  readonly match: IgnoreMatch;
}

/**
 * A rule matched against the path (relative to its ignore file's directory),
 * with what a directory's entries must have for it to match any of them:
 * the glob's leading components (before any `**`), each a whole-component
 * expression, and the exact number of components when there is no `**`.
 * `components` is undefined when the glob cannot be split at its slashes
 * (a class, an escaped `/`, or a `/` inside `{}`): it is then tried on
 * every entry.
 */
interface PathPattern {
  readonly re: RegExp;
  readonly rule: CompiledRule;
  readonly components: readonly RegExp[] | undefined;
  /** The number of components a matching path has, or -1 when the glob holds `**`. */
  readonly exactLength: number;
}

/**
 * The rules of one ignore file, compiled once. Rules of the shape `name`
 * (any depth), `*.ext` (any depth) and anchored literal paths are looked up
 * in maps; only the rest are regular expressions, tried from the last rule
 * back and only while they could beat the best fast-path match. For each
 * directory a walk enters, {@linkcode IgnoreFile.inDirectory} narrows the
 * path rules to those that can match an entry there, once per directory
 * rather than once per entry.
 */
export class IgnoreFile {
  /** The rules that compiled, in file order. */
  readonly rules: readonly IgnoreRule[];
  /** Lines that did not compile (skipped). */
  readonly errors: number;
  readonly #byName = new Map<string, CompiledRule[]>();
  readonly #bySuffixKey = new Map<string, { suffix: string; rule: CompiledRule }[]>();
  readonly #suffixAlways: { suffix: string; rule: CompiledRule }[] = [];
  /** Literal paths, by the directory they are in (`""`: this file's own) and then the name. */
  readonly #byPath = new Map<string, Map<string, CompiledRule[]>>();
  /** Globs tested on the last component only, in rule order. */
  readonly #namePatterns: { re: RegExp; rule: CompiledRule }[] = [];
  /** Globs tested on the whole relative path, in rule order. */
  readonly #pathPatterns: PathPattern[] = [];
  /** One test of all name globs at once: most names match none of them. */
  readonly #anyName: RegExp | undefined;

  /** Parses `text`, the ignore file at `source` (workspace-relative, for reporting). */
  constructor(text: string, source: string) {
    const rules: IgnoreRule[] = [];
    let errors = 0;
    const lines = text.split("\n");
    for (let n = 0; n < lines.length; n++) {
      const parsed = parseLine(lines[n]);
      if (parsed === undefined) continue;
      const rule: IgnoreRule = {
        source,
        line: n + 1,
        pattern: parsed.original,
        whitelist: parsed.whitelist,
      };
      const compiled: CompiledRule = {
        index: rules.length,
        dirOnly: parsed.dirOnly,
        rule,
        match: { ignored: !rule.whitelist, rule },
      };
      try {
        this.#add(parsed.glob, compiled);
      } catch (error) {
        if (!(error instanceof GlobError) && !(error instanceof SyntaxError)) throw error;
        errors++;
        continue;
      }
      rules.push(rule);
    }
    this.rules = rules;
    this.errors = errors;
    // Each source is `^…$`: anchored once outside the alternation, V8 tries it at the start
    // only, instead of at every position of the name.
    // and the `*…` globs share one leading `[^/]*` (the same language): each alternative of its
    // own scanned the whole name and backtracked over it, one after the other.
    const onName = this.#namePatterns.map((p) => p.re.source.slice(1, -1));
    const star = "[^/]*";
    const leading = onName.filter((s) => s.startsWith(star)).map((s) =>
      `(?:${s.slice(star.length)})`
    );
    const others = onName.filter((s) => !s.startsWith(star)).map((s) => `(?:${s})`);
    if (leading.length > 0) others.push(`${star}(?:${leading.join("|")})`);
    this.#anyName = onName.length > 1 ? new RegExp(`^(?:${others.join("|")})$`, "s") : undefined;
  }

  #add(glob: string, rule: CompiledRule): void {
    if (glob.startsWith("**/") && !META.test(glob.slice(3)) && !glob.slice(3).includes("/")) {
      push(this.#byName, glob.slice(3), rule);
    } else if (
      glob.startsWith("**/*") && !META.test(glob.slice(4)) && !glob.slice(4).includes("/")
    ) {
      const suffix = glob.slice(4);
      const dot = suffix.lastIndexOf(".");
      if (dot >= 0) push(this.#bySuffixKey, suffix.slice(dot), { suffix, rule });
      else this.#suffixAlways.push({ suffix, rule });
    } else if (!META.test(glob)) {
      const slash = glob.lastIndexOf("/");
      const dir = slash < 0 ? "" : glob.slice(0, slash);
      let names = this.#byPath.get(dir);
      if (names === undefined) this.#byPath.set(dir, names = new Map());
      push(names, glob.slice(slash + 1), rule);
    } else if (glob.startsWith("**/") && !glob.slice(3).includes("/")) {
      // "**/" + a glob without "/": it matches exactly when the name does.
      this.#namePatterns.push({ re: new RegExp(globToRegExpSource(glob.slice(3)), "s"), rule });
    } else {
      const re = new RegExp(globToRegExpSource(glob), "s");
      const parts = splitComponents(glob);
      if (parts === undefined) {
        this.#pathPatterns.push({ re, rule, components: undefined, exactLength: -1 });
      } else {
        const globstar = parts.indexOf("**");
        const leading = globstar < 0 ? parts : parts.slice(0, globstar);
        this.#pathPatterns.push({
          re,
          rule,
          components: leading.map((c) => new RegExp(globToRegExpSource(c), "s")),
          exactLength: globstar < 0 ? parts.length : -1,
        });
      }
    }
  }

  /**
   * This file's rules as they apply to the entries of directory `dir`
   * (relative to this file's directory, `/`-separated, `""` for its own):
   * the literal paths and path globs that can match an entry there, found
   * once. Undefined when no rule of the file can match anything there.
   */
  inDirectory(dir: string): IgnoreFileInDirectory | undefined {
    const exact = this.#byPath.get(dir);
    if (this.#pathPatterns.length === 0 && exact === undefined) return this.#byNameOnly;
    const components = dir === "" ? [] : dir.split("/");
    const depth = components.length;
    const paths: PathPattern[] = [];
    for (const pattern of this.#pathPatterns) {
      const leading = pattern.components;
      if (leading !== undefined) {
        if (pattern.exactLength >= 0 && pattern.exactLength !== depth + 1) continue;
        const n = Math.min(leading.length, depth);
        let fits = true;
        for (let i = 0; i < n && fits; i++) fits = leading[i].test(components[i]);
        if (!fits) continue;
      }
      paths.push(pattern);
    }
    if (exact === undefined && paths.length === 0) return this.#byNameOnly;
    return this.#narrowed(dir === "" ? "" : dir + "/", exact, paths);
  }

  #narrowed(
    prefix: string,
    exact: Map<string, CompiledRule[]> | undefined,
    paths: readonly PathPattern[],
  ): IgnoreFileInDirectory | undefined {
    const byName = this.#byName.size > 0 ? this.#byName : undefined;
    const bySuffix = this.#bySuffixKey.size > 0 ? this.#bySuffixKey : undefined;
    if (
      byName === undefined && bySuffix === undefined && this.#suffixAlways.length === 0 &&
      exact === undefined && this.#namePatterns.length === 0 && paths.length === 0
    ) return undefined;
    return new IgnoreFileInDirectory(
      prefix,
      byName,
      bySuffix,
      this.#suffixAlways,
      exact,
      this.#namePatterns,
      this.#anyName,
      paths,
    );
  }

  /** The file in any directory where neither a literal path nor a path glob can match: names only. */
  get #byNameOnly(): IgnoreFileInDirectory | undefined {
    if (this.#nameOnly === null) this.#nameOnly = this.#narrowed("", undefined, []);
    return this.#nameOnly;
  }

  #nameOnly: IgnoreFileInDirectory | undefined | null = null;

  /**
   * The deciding rule for `path` (relative to this file's directory, `/`
   * separated) whose last component is `name`, or `undefined` when no rule
   * matches.
   */
  match(path: string, name: string, isDir: boolean): IgnoreMatch | undefined {
    return this.inDirectory(parentOf(path))?.match(name, isDir);
  }
}

/**
 * One ignore file's rules narrowed to one directory's entries
 * ({@linkcode IgnoreFile.inDirectory}): asked per entry with its name only;
 * the path is built only when a path glob is left to try.
 */
export class IgnoreFileInDirectory {
  readonly #prefix: string;
  readonly #byName: Map<string, CompiledRule[]> | undefined;
  readonly #bySuffixKey: Map<string, { suffix: string; rule: CompiledRule }[]> | undefined;
  readonly #suffixAlways: readonly { suffix: string; rule: CompiledRule }[];
  readonly #exact: Map<string, CompiledRule[]> | undefined;
  readonly #namePatterns: readonly { re: RegExp; rule: CompiledRule }[];
  readonly #anyName: RegExp | undefined;
  readonly #paths: readonly PathPattern[];

  constructor(
    prefix: string,
    byName: Map<string, CompiledRule[]> | undefined,
    bySuffixKey: Map<string, { suffix: string; rule: CompiledRule }[]> | undefined,
    suffixAlways: readonly { suffix: string; rule: CompiledRule }[],
    exact: Map<string, CompiledRule[]> | undefined,
    namePatterns: readonly { re: RegExp; rule: CompiledRule }[],
    anyName: RegExp | undefined,
    paths: readonly PathPattern[],
  ) {
    this.#prefix = prefix;
    this.#byName = byName;
    this.#bySuffixKey = bySuffixKey;
    this.#suffixAlways = suffixAlways;
    this.#exact = exact;
    this.#namePatterns = namePatterns;
    this.#anyName = anyName;
    this.#paths = paths;
  }

  /**
   * The deciding rule of this file for the entry `name`, or `undefined` when
   * none matches. `extension` is {@linkcode extensionOf} `name` (a caller
   * asking several files finds it once).
   */
  match(name: string, isDir: boolean, extension = extensionOf(name)): IgnoreMatch | undefined {
    let best: CompiledRule | undefined;
    const named = this.#byName?.get(name);
    if (named !== undefined) best = latest(named, isDir, best);
    if (this.#bySuffixKey !== undefined && extension !== "") {
      const bySuffix = this.#bySuffixKey.get(extension);
      if (bySuffix !== undefined) {
        for (const s of bySuffix) {
          if (name.endsWith(s.suffix) && better(s.rule, isDir, best)) best = s.rule;
        }
      }
    }
    for (const s of this.#suffixAlways) {
      if (name.endsWith(s.suffix) && better(s.rule, isDir, best)) best = s.rule;
    }
    const exact = this.#exact?.get(name);
    if (exact !== undefined) best = latest(exact, isDir, best);
    // Name globs, then path globs, from the last rule back: the first that matches is the
    // latest of its kind, and none is tried once it could no longer beat the best so far.
    const names = this.#namePatterns;
    if (names.length > 0 && (this.#anyName === undefined || this.#anyName.test(name))) {
      best = latestPattern(names, name, isDir, best);
    }
    const paths = this.#paths;
    if (paths.length > 0) best = latestPattern(paths, this.#prefix + name, isDir, best);
    return best?.match;
  }
}

/**
 * The latest rule of `patterns` (in rule order) whose expression matches `subject`, tried
 * from the last back, or `best` when none that could still beat it does.
 */
function latestPattern(
  patterns: readonly { re: RegExp; rule: CompiledRule }[],
  subject: string,
  isDir: boolean,
  best: CompiledRule | undefined,
): CompiledRule | undefined {
  for (let i = patterns.length - 1; i >= 0; i--) {
    const { re, rule } = patterns[i];
    if (best !== undefined && rule.index < best.index) break;
    if ((!rule.dirOnly || isDir) && re.test(subject)) return rule;
  }
  return best;
}

/** From the last dot of `name` to its end (`.c`), or `""` when it has no dot: the key of `*.ext` rules. */
function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot < 0 ? "" : name.slice(dot);
}

/** Whether `rule` applies (dir-only rules to directories) and comes after `best`. */
function better(rule: CompiledRule, isDir: boolean, best: CompiledRule | undefined): boolean {
  return (!rule.dirOnly || isDir) && (best === undefined || rule.index > best.index);
}

function latest(
  rules: readonly CompiledRule[],
  isDir: boolean,
  best: CompiledRule | undefined,
): CompiledRule | undefined {
  for (const rule of rules) if (better(rule, isDir, best)) best = rule;
  return best;
}

/**
 * A glob's components at its slashes, or undefined when a slash is not a
 * plain separator there or a component could match a `/` (a class, which
 * may hold one in a range; an escaped `/`; a `/` between `{` and `}`).
 */
function splitComponents(glob: string): string[] | undefined {
  if (glob.includes("[")) return undefined;
  const parts: string[] = [];
  let current = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === "\\") {
      if (glob[i + 1] === "/") return undefined;
      current += ch + (glob[i + 1] ?? "");
      i++;
    } else if (ch === "{") {
      braces++;
      current += ch;
    } else if (ch === "}") {
      braces--;
      current += ch;
    } else if (ch === "/") {
      if (braces !== 0) return undefined;
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

function parentOf(relative: string): string {
  const slash = relative.lastIndexOf("/");
  return slash < 0 ? "" : relative.slice(0, slash);
}

function push<V>(map: Map<string, V[]>, key: string, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** One line of an ignore file, parsed as ripgrep's `GitignoreBuilder::add_line` does. */
function parseLine(
  raw: string,
): { original: string; glob: string; whitelist: boolean; dirOnly: boolean } | undefined {
  let line = raw;
  if (line.startsWith("#")) return undefined;
  if (!line.endsWith("\\ ")) line = line.trimEnd();
  if (line === "") return undefined;
  const original = line;
  let whitelist = false;
  let anchored = false;
  if (line.startsWith("\\!") || line.startsWith("\\#")) {
    line = line.slice(1);
    anchored = line.startsWith("/");
  } else {
    if (line.startsWith("!")) {
      whitelist = true;
      line = line.slice(1);
    }
    if (line.startsWith("/")) {
      line = line.slice(1);
      anchored = true;
    }
  }
  let dirOnly = false;
  if (line.endsWith("/")) {
    dirOnly = true;
    line = line.slice(0, -1);
    if (line.endsWith("\\")) line = line.slice(0, -1);
  }
  let glob = line;
  if (!anchored && !line.includes("/") && !line.startsWith("**/")) glob = "**/" + glob;
  if (glob.endsWith("/**")) glob += "/*";
  return { original, glob, whitelist, dirOnly };
}

/** The ignore files of one directory, by kind, and whether it holds a `.git`. */
export interface IgnoreLevel {
  /** The directory, relative to the workspace root (`""` for the root). */
  readonly dir: string;
  /** Whether the directory holds `.git` (a directory or a file): a repository root. */
  readonly hasGit: boolean;
  readonly files: Partial<Record<IgnoreFileKind, IgnoreFile>>;
}

/**
 * The ignore levels from the walk's root down to one directory: an immutable
 * chain, one level per directory that holds ignore files or a `.git`.
 */
export class IgnoreStack {
  /** The stack that ignores nothing. */
  static readonly EMPTY: IgnoreStack = new IgnoreStack(undefined, undefined, false);

  readonly #level: IgnoreLevel | undefined;
  readonly #parent: IgnoreStack | undefined;
  /** Whether any level of the chain is a repository root. */
  readonly inRepository: boolean;

  private constructor(
    level: IgnoreLevel | undefined,
    parent: IgnoreStack | undefined,
    inRepository: boolean,
  ) {
    this.#level = level;
    this.#parent = parent;
    this.inRepository = inRepository;
  }

  /** This stack with `level` (a subdirectory's) on top; itself when the level adds nothing. */
  push(level: IgnoreLevel): IgnoreStack {
    if (!level.hasGit && Object.keys(level.files).length === 0) return this;
    return new IgnoreStack(level, this, this.inRepository || level.hasGit);
  }

  /**
   * What the ignore files say about `path` (workspace-relative) named `name`:
   * {@linkcode IgnoreStack.inDirectory} of its folder, asked once.
   */
  match(path: string, name: string, isDir: boolean, requireGit: boolean): IgnoreMatch | undefined {
    return this.inDirectory(parentOf(path), requireGit).match(name, isDir);
  }

  /**
   * The rules in force for the entries of directory `dir` (workspace-
   * relative, at or below the top level of this stack), compiled for it once:
   * a walk asks it per directory, then per entry by name. Precedence, as in
   * ripgrep's `dir.rs`: per kind, the deepest directory with a matching rule
   * decides; then `.rgignore` beats `.ignore`, which beats `.gitignore`,
   * which beats `.git/info/exclude`. The git kinds apply only inside a
   * repository (a `.git` at this level or above) when `requireGit` is set,
   * and stop at the nearest repository root going up.
   */
  inDirectory(dir: string, requireGit: boolean): DirectoryIgnore {
    const byKind: IgnoreFileInDirectory[][] = [[], [], [], []];
    const gitApplies = !requireGit || this.inRepository;
    let sawGit = false;
    let any = false;
    for (let s: IgnoreStack | undefined = this as IgnoreStack; s !== undefined; s = s.#parent) {
      const level = s.#level;
      if (level === undefined) break;
      const relative = level.dir === ""
        ? dir
        : dir === level.dir
        ? ""
        : dir.slice(level.dir.length + 1);
      for (let k = 0; k < IGNORE_FILE_KINDS.length; k++) {
        if (k >= 2 && (!gitApplies || sawGit)) continue;
        const here = level.files[IGNORE_FILE_KINDS[k]]?.inDirectory(relative);
        if (here !== undefined) {
          byKind[k].push(here);
          any = true;
        }
      }
      sawGit = sawGit || level.hasGit;
    }
    return any ? new DirectoryIgnore(byKind.flat()) : DirectoryIgnore.NONE;
  }
}

/**
 * The ignore rules in force in one directory ({@linkcode IgnoreStack.inDirectory}),
 * in the order they are asked: by kind (`.rgignore` first), deepest file first
 * within a kind. The first file with a matching rule decides.
 */
export class DirectoryIgnore {
  /** No ignore file has a rule that can match here. */
  static readonly NONE: DirectoryIgnore = new DirectoryIgnore([]);

  readonly #files: readonly IgnoreFileInDirectory[];

  /** `files` in the order they are asked. */
  constructor(files: readonly IgnoreFileInDirectory[]) {
    this.#files = files;
  }

  /** The deciding rule for the entry `name` of this directory, or `undefined` when none matches. */
  match(name: string, isDir: boolean): IgnoreMatch | undefined {
    const files = this.#files;
    if (files.length === 0) return undefined;
    const extension = extensionOf(name);
    for (let i = 0; i < files.length; i++) {
      const found = files[i].match(name, isDir, extension);
      if (found !== undefined) return found;
    }
    return undefined;
  }
}
