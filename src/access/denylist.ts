/**
 * The denylist: names of credential files, key material, shell histories and
 * repository internals that are never served, whatever the path that reaches
 * them. Matching is on whole path components, each compared in the folded
 * forms of `denyKeys` (`path_semantics.ts`: case, Unicode spellings,
 * trailing dots and spaces, parts between `\`), patterns folded alike; `*`
 * and `?` are the only glob characters, and neither crosses a `/`.
 *
 * - A **name pattern** (no `/`, e.g. `.env`, `*.pem`) denies any component
 *   it matches, and everything beneath it.
 * - A **path pattern** (components joined by `/`, e.g. `gh/hosts.yml`,
 *   `.m2/settings.xml`) denies a place whose path ends with those components,
 *   and everything beneath it: for names that are harmless alone but hold
 *   credentials in a known folder. It is matched against the workspace-
 *   relative path preceded by the workspace root's own last components, so
 *   a workspace that *is* `~/.m2` still denies `settings.xml` at its root.
 *
 * Whether an entry is denied can always be decided from the folder it is in
 * and its name ({@linkcode Denylist.deniesEntry}), before the filesystem is
 * asked about it. Configuration can extend the list, never shrink it. The
 * full list, with the reason for each pattern, is in docs/security.md.
 *
 * @module
 */

import { denyKeys, foldName, stripTrailing } from "./path_semantics.ts";

/** The built-in patterns (name patterns and path patterns; see the module doc). */
export const DEFAULT_DENY_PATTERNS: readonly string[] = [
  // Environment files and secret stores
  ".env",
  ".env.*",
  "*.env",
  ".envrc",
  ".secrets",
  "secrets.json",
  "secrets.yml",
  "secrets.yaml",
  "credentials",
  "credentials.json",
  "credentials.xml",
  "credentials.toml",
  ".git-credentials",
  ".netrc",
  "_netrc",
  ".npmrc",
  ".pypirc",
  ".pgpass",
  ".htpasswd",
  ".dockercfg",
  // Client configuration that holds tokens or passwords
  ".gitconfig",
  ".vault-token",
  ".terraformrc",
  "terraform.rc",
  "credentials.tfrc.json",
  ".my.cnf",
  ".mylogin.cnf",
  ".s3cfg",
  ".boto",
  ".passwd-s3fs",
  "kubeconfig",
  "settings-security.xml",
  ".ftpconfig",
  "sftp-config.json",
  ".remote-sync.json",
  ".tugboat",
  "gh/hosts.yml",
  ".config/hub",
  ".config/gcloud",
  ".m2/settings.xml",
  ".gradle/gradle.properties",
  "*composer/auth.json",
  "filezilla/*.xml",
  ".vscode/sftp.json",
  ".idea/webservers.xml",
  // Shell and REPL histories (commands typed with tokens in them)
  ".*_history",
  ".history",
  "fish_history",
  ".rhistory",
  ".lesshst",
  ".viminfo",
  // Key material and password stores
  "*.pem",
  "*.key",
  "*.p8",
  "*.p12",
  "*.pfx",
  "*.jks",
  "*.keystore",
  "*.ppk",
  "*.asc",
  "*.gpg",
  "*.kdbx",
  "id_rsa*",
  "id_dsa*",
  "id_ecdsa*",
  "id_ed25519*",
  // Directories that hold credentials
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".gcloud",
  ".oci",
  ".kube",
  ".docker",
  ".terraform",
  ".password-store",
  ".mozilla",
  ".local/share/keyrings",
  // Infrastructure state with embedded secrets
  "*.tfstate",
  "*.tfstate.*",
  "*.tfvars",
  // Repository internals (hooks, config with tokens, object store)
  ".git",
  ".hg",
  ".svn",
];

/** A problem with a pattern from configuration, phrased for the person who wrote it; undefined when fine. */
export function patternProblem(pattern: string): string | undefined {
  if (pattern.includes("\0")) return "contains a NUL byte";
  if (pattern.includes("\\")) return "contains a backslash (use / between folders)";
  if (pattern.startsWith("/") || pattern.endsWith("/")) return "starts or ends with /";
  const components = pattern.split("/");
  if (components.some((c) => c === "")) return "has an empty component (//)";
  if (components.some((c) => c === "." || c === "..")) return "has a . or .. component";
  return undefined;
}

/** The denylist's forms of one path component ({@linkcode denyKeys}). */
type Slot = readonly string[];

/** A compiled denylist: answers whether a workspace-relative path may be served. */
export class Denylist {
  /** Every pattern in force: the built-in ones, then those configuration added. */
  readonly patterns: readonly string[];
  /** Name patterns, compiled. */
  readonly #names: RegExp;
  /** Path patterns, each compiled component by component. */
  readonly #paths: readonly (readonly RegExp[])[];
  /** The last components of the path patterns, as one expression: a name no path pattern can end at fails it. */
  readonly #pathEnds: RegExp;
  /** The workspace root's last components: what a path pattern sees above the root. */
  readonly #context: readonly string[];
  /** The last folder {@linkcode deniesEntry} was asked about, with its slots (a walk asks one folder many times). */
  #lastParent: { readonly parent: string; readonly views: Slot[][] } | undefined;

  /**
   * Builds the list from the defaults plus `extra` (which can only add). With
   * `root` (the workspace's real absolute path), path patterns also see the
   * root's own last components above a workspace-relative path.
   */
  constructor(extra: readonly string[] = [], root?: string) {
    const all = [...DEFAULT_DENY_PATTERNS];
    for (const pattern of extra) {
      if (pattern === "") continue;
      const problem = patternProblem(pattern);
      if (problem !== undefined) {
        throw new Error(`denylist pattern ${JSON.stringify(pattern)} ${problem}`);
      }
      if (!all.some((p) => foldName(p) === foldName(pattern))) all.push(pattern);
    }
    this.patterns = Object.freeze(all);
    // One expression for all name patterns: one test a name, whatever the list's length.
    this.#names = anyOf(all.filter((p) => !p.includes("/")));
    const paths = all.filter((p) => p.includes("/")).map((p) => p.split("/"));
    this.#paths = paths.map((p) => p.map((glob) => anyOf([glob])));
    this.#pathEnds = anyOf(paths.map((p) => p.at(-1)!));
    const longest = Math.max(0, ...this.#paths.map((p) => p.length));
    this.#context = root === undefined || longest < 2 ? [] : splitAbsolute(root).slice(1 - longest);
  }

  /**
   * Whether one path component (a file or folder name) matches a name
   * pattern, compared in every folded form ({@linkcode denyKeys}). Path
   * patterns are not consulted: a walk deciding an entry uses
   * {@linkcode deniesEntry}, which knows the folder too.
   */
  deniesName(name: string): boolean {
    return this.#slotDenied(denyKeys(name));
  }

  /**
   * Whether the entry `name` in the folder `parent` (workspace-relative,
   * `/`-separated, `""` for the root) is denied: by a name pattern, or by a
   * path pattern that ends at it. `parent` itself is taken as already
   * allowed; {@linkcode deniesPath} checks a whole path.
   */
  deniesEntry(parent: string, name: string): boolean {
    // The common case (a walk asks this of every entry, ADR-120): a plain name has one key,
    // its lower case (what `denyKeys` gives it too), tested without an array or a closure.
    let keys: string[];
    let hasParts = false;
    if (isPlain(name)) {
      const key = name.toLowerCase();
      if (this.#names.test(key)) return true;
      if (this.#paths.length === 0 || !this.#pathEnds.test(key)) return false;
      keys = [key];
    } else {
      keys = denyKeys(name);
      if (this.#slotDenied(keys)) return true;
      if (this.#paths.length === 0) return false;
      hasParts = name.includes("\\");
      if (!hasParts && !keys.some((key) => this.#pathEnds.test(key))) return false;
    }
    let last = this.#lastParent;
    if (last?.parent !== parent) {
      last = { parent, views: viewsOf([...this.#context, ...splitPath(parent)]) };
      this.#lastParent = last;
    }
    const [whole, split] = last.views;
    const own = hasParts ? viewsOf([name]) : [[keys]];
    const views = [[...whole, ...own[0]]];
    if (split !== undefined || own.length > 1) views.push([...split ?? whole, ...own.at(-1)!]);
    return this.#viewEndsWithPathPattern(views);
  }

  /** Whether a `/`-separated workspace-relative path, or any folder on it, is denied. */
  deniesPath(relative: string): boolean {
    const components = splitPath(relative);
    const withContext = [...this.#context, ...components];
    for (let i = 0; i < components.length; i++) {
      if (this.deniesName(components[i])) return true;
      const upTo = withContext.slice(0, this.#context.length + i + 1);
      if (this.#endsWithPathPattern(upTo)) return true;
    }
    return false;
  }

  /**
   * For the check at start: the first place on an absolute path — the path
   * itself or a folder it lies in — that the list denies, as the path up to
   * and including it; undefined when none is. `/` and `\` both separate
   * (a Windows path, or a posix one).
   */
  deniedPlaceOf(absolute: string): string | undefined {
    const components = splitAbsolute(absolute);
    for (let i = 0; i < components.length; i++) {
      if (this.deniesName(components[i]) || this.#endsWithPathPattern(components.slice(0, i + 1))) {
        return "/" + components.slice(0, i + 1).join("/");
      }
    }
    return undefined;
  }

  #slotDenied(slot: Slot): boolean {
    return slot.some((key) => this.#names.test(key));
  }

  /**
   * Whether the components end with a path pattern, each compared in every
   * folded form ({@linkcode viewsOf}).
   */
  #endsWithPathPattern(components: readonly string[]): boolean {
    return this.#viewEndsWithPathPattern(viewsOf(components));
  }

  #viewEndsWithPathPattern(views: readonly Slot[][]): boolean {
    return views.some((slots) =>
      this.#paths.some((pattern) => {
        const start = slots.length - pattern.length;
        return start >= 0 &&
          pattern.every((re, j) => slots[start + j].some((key) => re.test(key)));
      })
    );
  }
}

/**
 * The ways a path pattern sees components: each as one slot of folded forms;
 * and when one holds `\`, also with its parts between `\` as slots of their
 * own (`gh\hosts.yml` ends with `gh/hosts.yml`).
 */
function viewsOf(components: readonly string[]): Slot[][] {
  const whole = components.map(denyKeys);
  if (!components.some((c) => c.includes("\\"))) return [whole];
  return [whole, components.flatMap((c) => c.split("\\").filter((p) => p !== "")).map(denyKeys)];
}

/**
 * Whether `name` takes the common case: printable ASCII, without a backslash and not ending
 * in a dot or a space, it has one folded form, its lower case (what {@linkcode denyKeys}
 * gives it too), found without the fold's expressions. A walk asks this of every entry.
 */
function isPlain(name: string): boolean {
  const last = name.charCodeAt(name.length - 1);
  return last !== 0x2e && last !== 0x20 && !NOT_PLAIN.test(name);
}

/** Anything but printable ASCII, and the backslash (which splits a name into parts). */
const NOT_PLAIN = /[^\x20-\x5b\x5d-\x7e]/;

function splitPath(path: string): string[] {
  return path.split("/").filter((c) => c !== "" && c !== ".");
}

function splitAbsolute(path: string): string[] {
  return path.split(/[\\/]/).filter((c) => c !== "" && c !== ".");
}

/**
 * Globs (pattern components) as one regular expression over folded names,
 * matching a name any of them matches: each glob is folded the same way
 * ({@linkcode foldName}), and so is its form without trailing dots and
 * spaces, so `foo.` and `foo` deny each other. Matches nothing when empty.
 */
function anyOf(globs: readonly string[]): RegExp {
  const sources = new Set<string>();
  for (const glob of globs) {
    const folded = foldName(glob);
    for (const form of [folded, stripTrailing(folded)]) {
      let out = "";
      for (const ch of form) {
        if (ch === "*") out += ".*";
        else if (ch === "?") out += ".";
        else out += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
      }
      sources.add(out);
    }
  }
  if (sources.size === 0) return /(?!)/;
  // The same language with one leading `.*` for all the `*…` forms: V8 tries the alternatives
  // one by one, and each `.*` alternative scanned the whole name and backtracked over it, so
  // ~20 of them cost ~2 µs a name; under one `.*` the suffixes are tried in one backtrack.
  const leading = [...sources].filter((s) => s.startsWith(".*")).map((s) => s.slice(2));
  const others = [...sources].filter((s) => !s.startsWith(".*"));
  if (leading.length > 0) others.push(`.*(?:${leading.join("|")})`);
  // `s`: a name with a newline in it still matches `*`. `i`: a belt to the fold's braces.
  return new RegExp(`^(?:${others.join("|")})$`, "is");
}
