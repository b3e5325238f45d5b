/**
 * The denylist: names of credential files, key material and repository
 * internals that are never served, whatever the path that reaches them.
 * Patterns are single path components (`*` and `?` globs), matched
 * case-insensitively against every component of a workspace-relative path.
 * Configuration can extend the list, never shrink it.
 *
 * @module
 */

/** The built-in patterns. Each matches one whole path component. */
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
  ".git-credentials",
  ".netrc",
  "_netrc",
  ".npmrc",
  ".pypirc",
  ".pgpass",
  ".htpasswd",
  ".dockercfg",
  // Key material
  "*.pem",
  "*.key",
  "*.p12",
  "*.pfx",
  "*.jks",
  "*.keystore",
  "*.ppk",
  "*.asc",
  "*.gpg",
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
  ".kube",
  ".docker",
  ".terraform",
  // Infrastructure state with embedded secrets
  "*.tfstate",
  "*.tfstate.*",
  "*.tfvars",
  // Repository internals (hooks, config with tokens, object store)
  ".git",
  ".hg",
  ".svn",
];

/** A compiled denylist: answers whether a workspace-relative path may be served. */
export class Denylist {
  readonly patterns: readonly string[];
  readonly #matchers: readonly RegExp[];

  /** Builds the list from the defaults plus `extra` (which can only add). */
  constructor(extra: readonly string[] = []) {
    const all = [...DEFAULT_DENY_PATTERNS];
    for (const pattern of extra) {
      if (!all.some((p) => p.toLowerCase() === pattern.toLowerCase())) all.push(pattern);
    }
    this.patterns = Object.freeze(all);
    this.#matchers = all.map(globToRegExp);
  }

  /** Whether one path component (a file or directory name) is denied. */
  deniesName(name: string): boolean {
    return this.#matchers.some((re) => re.test(name));
  }

  /** Whether any component of a `/`-separated workspace-relative path is denied. */
  deniesPath(relative: string): boolean {
    return relative.split("/").some((component) => component !== "" && this.deniesName(component));
  }
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
