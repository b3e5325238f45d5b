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
}

/**
 * The rules of one ignore file, compiled once. Rules of the shape `name`
 * (any depth), `*.ext` (any depth) and anchored literal paths are looked up
 * in maps; only the rest are regular expressions, tried from the last rule
 * back and only while they could beat the best fast-path match.
 */
export class IgnoreFile {
  /** The rules that compiled, in file order. */
  readonly rules: readonly IgnoreRule[];
  /** Lines that did not compile (skipped). */
  readonly errors: number;
  readonly #byName = new Map<string, CompiledRule[]>();
  readonly #bySuffixKey = new Map<string, { suffix: string; rule: CompiledRule }[]>();
  readonly #suffixAlways: { suffix: string; rule: CompiledRule }[] = [];
  readonly #byPath = new Map<string, CompiledRule[]>();
  /** Regular expressions, in rule order; `onName`: tested on the last component only. */
  readonly #patterns: { re: RegExp; onName: boolean; rule: CompiledRule }[] = [];

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
      const compiled: CompiledRule = { index: rules.length, dirOnly: parsed.dirOnly, rule };
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
    const onName = this.#patterns.filter((p) => p.onName).map((p) => p.re.source);
    // One test of all name patterns at once: most names match none of them.
    this.#anyName = onName.length > 1
      ? new RegExp(onName.map((s) => `(?:${s})`).join("|"), "s")
      : undefined;
  }

  #anyName: RegExp | undefined;

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
      push(this.#byPath, glob, rule);
    } else if (glob.startsWith("**/") && !glob.slice(3).includes("/")) {
      // "**/" + a glob without "/": it matches exactly when the name does.
      this.#patterns.push({
        re: new RegExp(globToRegExpSource(glob.slice(3)), "s"),
        onName: true,
        rule,
      });
    } else {
      this.#patterns.push({ re: new RegExp(globToRegExpSource(glob), "s"), onName: false, rule });
    }
  }

  /**
   * The deciding rule for `path` (relative to this file's directory, `/`
   * separated) whose last component is `name`, or `undefined` when no rule
   * matches.
   */
  match(path: string, name: string, isDir: boolean): IgnoreMatch | undefined {
    let best: CompiledRule | undefined;
    const consider = (rule: CompiledRule) => {
      if ((!rule.dirOnly || isDir) && (best === undefined || rule.index > best.index)) best = rule;
    };
    const named = this.#byName.get(name);
    if (named) { for (const rule of named) consider(rule); }
    const dot = name.lastIndexOf(".");
    if (dot >= 0) {
      const bySuffix = this.#bySuffixKey.get(name.slice(dot));
      if (bySuffix) { for (const s of bySuffix) if (name.endsWith(s.suffix)) consider(s.rule); }
    }
    for (const s of this.#suffixAlways) if (name.endsWith(s.suffix)) consider(s.rule);
    const exact = this.#byPath.get(path);
    if (exact) { for (const rule of exact) consider(rule); }
    const nameCanMatch = this.#anyName === undefined || this.#anyName.test(name);
    for (let i = this.#patterns.length - 1; i >= 0; i--) {
      const { re, onName, rule } = this.#patterns[i];
      if (onName && !nameCanMatch) continue;
      if (best !== undefined && rule.index < best.index) break;
      if ((!rule.dirOnly || isDir) && re.test(onName ? name : path)) {
        consider(rule);
        break;
      }
    }
    const decided = best as CompiledRule | undefined;
    return decided === undefined
      ? undefined
      : { ignored: !decided.rule.whitelist, rule: decided.rule };
  }
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
   * What the ignore files say about `path` (workspace-relative) named `name`.
   * Precedence, as in ripgrep's `dir.rs`: per kind, the deepest directory
   * with a matching rule decides; then `.rgignore` beats `.ignore`, which
   * beats `.gitignore`, which beats `.git/info/exclude`. The git kinds apply
   * only inside a repository (a `.git` at this level or above) when
   * `requireGit` is set, and stop at the nearest repository root going up.
   */
  match(path: string, name: string, isDir: boolean, requireGit: boolean): IgnoreMatch | undefined {
    const found: (IgnoreMatch | undefined)[] = [undefined, undefined, undefined, undefined];
    const gitApplies = !requireGit || this.inRepository;
    let sawGit = false;
    for (let s: IgnoreStack | undefined = this as IgnoreStack; s !== undefined; s = s.#parent) {
      const level = s.#level;
      if (level === undefined) break;
      const relative = level.dir === "" ? path : path.slice(level.dir.length + 1);
      for (let k = 0; k < IGNORE_FILE_KINDS.length; k++) {
        if (found[k] !== undefined) continue;
        if (k >= 2 && (!gitApplies || sawGit)) continue;
        const file = level.files[IGNORE_FILE_KINDS[k]];
        if (file) found[k] = file.match(relative, name, isDir);
      }
      sawGit = sawGit || level.hasGit;
    }
    return found[0] ?? found[1] ?? found[2] ?? found[3];
  }
}
