/**
 * The denylist: names of credential files, key material, shell histories and
 * repository internals that are never served, whatever the path that reaches
 * them. Matching is case-insensitive and on whole path components; `*` and
 * `?` are the only glob characters, and neither crosses a `/`.
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
  if (pattern.startsWith("/") || pattern.endsWith("/")) return "starts or ends with /";
  const components = pattern.split("/");
  if (components.some((c) => c === "")) return "has an empty component (//)";
  if (components.some((c) => c === "." || c === "..")) return "has a . or .. component";
  return undefined;
}

/** A compiled denylist: answers whether a workspace-relative path may be served. */
export class Denylist {
  /** Every pattern in force: the built-in ones, then those configuration added. */
  readonly patterns: readonly string[];
  /** All name patterns as one expression: one test per name instead of one per pattern. */
  readonly #anyName: RegExp | undefined;
  /** Path patterns, each compiled component by component. */
  readonly #paths: readonly (readonly RegExp[])[];
  /** The last components of all path patterns as one expression: a name no path pattern can end at fails it. */
  readonly #anyPathEnd: RegExp | undefined;
  /** The workspace root's last components: what a path pattern sees above the root. */
  readonly #context: readonly string[];

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
      if (!all.some((p) => p.toLowerCase() === pattern.toLowerCase())) all.push(pattern);
    }
    this.patterns = Object.freeze(all);
    this.#paths = all.filter((p) => p.includes("/")).map((p) => p.split("/").map(globToRegExp));
    this.#anyName = anyOf(all.filter((p) => !p.includes("/")).map(globToRegExp));
    this.#anyPathEnd = anyOf(this.#paths.map((p) => p[p.length - 1]));
    const longest = Math.max(0, ...this.#paths.map((p) => p.length));
    this.#context = root === undefined || longest < 2 ? [] : splitPath(root).slice(1 - longest);
  }

  /**
   * Whether one path component (a file or folder name) matches a name
   * pattern. Path patterns are not consulted: a walk deciding an entry uses
   * {@linkcode deniesEntry}, which knows the folder too.
   */
  deniesName(name: string): boolean {
    return this.#anyName !== undefined && this.#anyName.test(name);
  }

  /**
   * Whether the entry `name` in the folder `parent` (workspace-relative,
   * `/`-separated, `""` for the root) is denied: by a name pattern, or by a
   * path pattern that ends at it. `parent` itself is taken as already
   * allowed; {@linkcode deniesPath} checks a whole path.
   */
  deniesEntry(parent: string, name: string): boolean {
    if (this.deniesName(name)) return true;
    // Walks ask this for every entry: most names end no path pattern, and need no path built.
    if (this.#anyPathEnd === undefined || !this.#anyPathEnd.test(name)) return false;
    return this.#endsWithPathPattern([...this.#context, ...splitPath(parent), name]);
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
   * and including it; undefined when none is.
   */
  deniedPlaceOf(absolute: string): string | undefined {
    const components = splitPath(absolute);
    for (let i = 0; i < components.length; i++) {
      if (this.deniesName(components[i]) || this.#endsWithPathPattern(components.slice(0, i + 1))) {
        return "/" + components.slice(0, i + 1).join("/");
      }
    }
    return undefined;
  }

  #endsWithPathPattern(components: readonly string[]): boolean {
    return this.#paths.some((pattern) => {
      const start = components.length - pattern.length;
      return start >= 0 && pattern.every((re, j) => re.test(components[start + j]));
    });
  }
}

function splitPath(path: string): string[] {
  return path.split("/").filter((c) => c !== "" && c !== ".");
}

/** One expression that matches what any of `res` (each `^…$`, flags `is`) matches. */
function anyOf(res: readonly RegExp[]): RegExp | undefined {
  if (res.length === 0) return undefined;
  return new RegExp(`^(?:${res.map((re) => re.source.slice(1, -1)).join("|")})$`, "is");
}

function globToRegExp(glob: string): RegExp {
  let source = "";
  for (const ch of glob) {
    if (ch === "*") source += ".*";
    else if (ch === "?") source += ".";
    else source += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  // `s`: a name with a newline in it still matches `*`. `i`: case variants are denied too.
  return new RegExp(`^${source}$`, "is");
}
