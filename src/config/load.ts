/**
 * Turns the environment (and the command line's workspace) into one
 * validated, frozen {@linkcode Config}. Parsed once at start; nothing here is
 * consulted per request. Every problem is a {@linkcode ConfigError} whose
 * message is one line a user can act on.
 *
 * @module
 */

import { isAbsolute, parse as parsePath, resolve } from "node:path";
import { Denylist, patternProblem } from "../access/denylist.ts";
import { quoteName } from "../contract/text.ts";
import { type ConfigValues, SETTINGS, type SettingSpec } from "./schema.ts";
import { nearestName } from "./suggest.ts";

/** A start-up configuration problem, phrased for the person who set it. */
export class ConfigError extends Error {
  /** Always `"ConfigError"`. */
  override name = "ConfigError";
}

/** The configuration every part of the program reads, fixed at start. */
export interface Config extends ConfigValues {
  /** The workspace with every symlink resolved: the root containment checks against. */
  readonly workspaceRoot: string;
  /** The workspace's folder name: the only way messages refer to it. */
  readonly workspaceName: string;
  /**
   * The bearer token HTTP mode requires, from `MCP_HTTP__BEARER_TOKEN` or
   * read at start from `MCP_HTTP__BEARER_TOKEN_FILE`; undefined when none.
   */
  readonly bearerToken: string | undefined;
  /** The cursor key read at start from `MCP_SERVER__CURSOR_KEY_FILE`; undefined: a fresh one. */
  readonly cursorKey: Uint8Array | undefined;
}

/** What {@linkcode loadConfig} needs besides the environment. */
export interface LoadOptions {
  /** `--workspace` from the command line, if given (wins over the environment). */
  workspaceFlag?: string;
  /** `--transport` from the command line, if given. */
  transportFlag?: string;
  /** `--host` from the command line, if given. */
  hostFlag?: string;
  /** `--port` from the command line, if given. */
  portFlag?: string;
  /** The directory relative paths resolve against (the user's, also under `deno task`). */
  cwd: string;
  /** The user's home directory, for the production check; undefined when unknown. */
  homeDir?: string;
}

const KNOWN_NAMES = SETTINGS.map((s) => s.env);

/** Parses every `MCP_*` variable in `env`; unknown ones, bad types and bad values throw. */
export function loadConfig(env: Record<string, string>, options: LoadOptions): Config {
  for (const name of Object.keys(env).sort()) {
    if (!name.toUpperCase().startsWith("MCP_")) continue;
    if (!KNOWN_NAMES.includes(name)) {
      const hint = nearestName(name, KNOWN_NAMES);
      throw new ConfigError(
        `unknown setting ${name}` + (hint ? ` (did you mean ${hint}?)` : "") +
          "; see docs/configuration.md for the full list",
      );
    }
  }
  const values: Record<string, unknown> = {};
  for (const spec of SETTINGS) {
    const text = env[spec.env] ?? spec.defaultText;
    values[spec.key] = parseSetting(spec, text);
  }
  const flags = [
    ["transport", "--transport", options.transportFlag],
    ["httpHost", "--host", options.hostFlag],
    ["httpPort", "--port", options.portFlag],
  ] as const;
  for (const [key, flag, text] of flags) {
    if (text === undefined) continue;
    values[key] = parseSetting({ ...SETTINGS.find((s) => s.key === key)!, env: flag }, text);
  }
  const chosen = options.workspaceFlag ?? (values.workspace as string);
  const workspaceText = chosen === "" ? options.cwd : chosen;
  const source = options.workspaceFlag !== undefined
    ? "--workspace"
    : chosen === ""
    ? "the current directory"
    : "MCP_SANDBOX__WORKSPACE";
  const workspaceRoot = resolveWorkspace(workspaceText, options.cwd, source);
  const config: Config = {
    ...(values as unknown as ConfigValues),
    workspace: isAbsolute(workspaceText) ? workspaceText : resolve(options.cwd, workspaceText),
    workspaceRoot,
    workspaceName: parsePath(workspaceRoot).base || "/",
    bearerToken: readBearerToken(values as unknown as ConfigValues, options.cwd),
    cursorKey: readCursorKey((values as unknown as ConfigValues).cursorKeyFile, options.cwd),
  };
  checkNotDenied(config, source);
  if (config.environment === "production") checkProduction(config, options.homeDir);
  return Object.freeze(config);
}

function parseSetting(spec: SettingSpec, text: string): unknown {
  const kind = spec.kind;
  switch (kind.type) {
    case "boolean": {
      const t = text.trim().toLowerCase();
      if (["true", "1", "yes", "on"].includes(t)) return true;
      if (["false", "0", "no", "off"].includes(t)) return false;
      throw new ConfigError(`${spec.env} must be true or false, got ${quote(text)}`);
    }
    case "integer": {
      const t = text.trim().replaceAll("_", "");
      if (!/^-?\d+$/.test(t)) {
        throw new ConfigError(`${spec.env} must be a whole number, got ${quote(text)}`);
      }
      const n = Number(t);
      if (!Number.isSafeInteger(n) || n < kind.min || n > kind.max) {
        throw new ConfigError(
          `${spec.env} must be between ${kind.min} and ${kind.max}, got ${quote(text)}`,
        );
      }
      return n;
    }
    case "enum": {
      const t = text.trim().toLowerCase();
      if (!kind.values.includes(t)) {
        throw new ConfigError(
          `${spec.env} must be one of ${kind.values.join(", ")}, got ${quote(text)}`,
        );
      }
      return t;
    }
    case "path":
      if (text.includes("\0")) throw new ConfigError(`${spec.env} must not contain a NUL byte`);
      return text;
    case "host": {
      const t = text.trim().toLowerCase();
      if (hostProblem(t) !== undefined) {
        throw new ConfigError(
          `${spec.env} must be an IP address or a host name, got ${quote(text)}`,
        );
      }
      return t.startsWith("[") ? t.slice(1, -1) : t;
    }
    case "secret": {
      // Never echoed: the message says what is wrong, not what was given.
      const t = text.trim();
      if (t === "") return "";
      if (t.length < kind.minLength || t.length > kind.maxLength) {
        throw new ConfigError(
          `${spec.env} must be ${kind.minLength} to ${kind.maxLength} characters long (it is ${t.length})`,
        );
      }
      if (!TOKEN68.test(t)) {
        throw new ConfigError(
          `${spec.env} may hold only letters, digits and - . _ ~ + / (then = padding)`,
        );
      }
      return t;
    }
    case "list": {
      const items = text.split(",").map((s) => s.trim()).filter((s) => s !== "");
      if (items.length > kind.maxItems) {
        throw new ConfigError(`${spec.env} takes at most ${kind.maxItems} entries`);
      }
      const entries = kind.entries ?? "pattern";
      const shape = {
        pattern: "names or name/name paths (globs with * and ?)",
        host: "host names or IP addresses without a port",
        origin: "origins, scheme://host[:port]",
      }[entries];
      const out: string[] = [];
      for (const item of items) {
        let problem = item.length > kind.maxItemLength
          ? `is longer than ${kind.maxItemLength} characters`
          : undefined;
        let value = item;
        if (problem === undefined && entries === "pattern") problem = patternProblem(item);
        if (problem === undefined && entries === "host") {
          value = item.toLowerCase();
          problem = hostProblem(value);
        }
        if (problem === undefined && entries === "origin") {
          const origin = parseOrigin(item);
          if (origin === undefined) problem = "is not an origin";
          else value = origin;
        }
        if (problem !== undefined) {
          throw new ConfigError(`${spec.env} entries are ${shape}; ${quote(item)} ${problem}`);
        }
        out.push(value);
      }
      return Object.freeze(out);
    }
  }
}

/** The characters of an RFC 6750 `b64token`: what a bearer token may hold. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Why `host` (lower-case) is no IP address or DNS name; undefined when it is one. */
function hostProblem(host: string): string | undefined {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare.includes(":")) {
    return /^[0-9a-f:.]+$/.test(bare) && bare.split("::").length <= 2 ? undefined : "is not valid";
  }
  if (bare.length === 0 || bare.length > 253) return "is not valid";
  for (const label of bare.split(".")) {
    if (!/^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/.test(label)) return "is not valid";
  }
  return undefined;
}

/** `text` as a normalised origin (`scheme://host[:port]`, default port dropped), if it is one. */
function parseOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  // A path, query, fragment or credentials: not an origin.
  const extra = url.pathname !== "/" || url.search !== "" || url.hash !== "" ||
    url.username !== "" || url.password !== "";
  return extra ? undefined : url.origin;
}

/** The shortest cursor key accepted from `MCP_SERVER__CURSOR_KEY_FILE`, in bytes. */
export const MIN_CURSOR_KEY_BYTES = 32;

/** The largest secret file read at start (a token or key file is small). */
const MAX_SECRET_FILE_BYTES = 64 * 1024;

/** Reads a small secret file at start; every failure is a {@linkcode ConfigError} naming the variable. */
function readSecretFile(env: string, path: string, cwd: string): Uint8Array {
  const absolute = isAbsolute(path) ? path : resolve(cwd, path);
  let bytes: Uint8Array;
  try {
    const info = Deno.statSync(absolute);
    if (!info.isFile) throw new ConfigError(`${env} does not name a regular file`);
    if (info.size > MAX_SECRET_FILE_BYTES) {
      throw new ConfigError(`${env} names a file larger than ${MAX_SECRET_FILE_BYTES} bytes`);
    }
    bytes = Deno.readFileSync(absolute);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const why = error instanceof Deno.errors.NotFound ? "does not exist" : "cannot be read";
    throw new ConfigError(`the file named by ${env} ${why}: ${quote(absolute, MAX_QUOTED_PATH)}`);
  }
  return bytes;
}

function readBearerToken(values: ConfigValues, cwd: string): string | undefined {
  const env = "MCP_HTTP__BEARER_TOKEN_FILE";
  if (values.httpBearerTokenFile === "") {
    return values.httpBearerToken === "" ? undefined : values.httpBearerToken;
  }
  if (values.httpBearerToken !== "") {
    throw new ConfigError(`set MCP_HTTP__BEARER_TOKEN or ${env}, not both`);
  }
  const text = new TextDecoder("utf-8", { fatal: false }).decode(
    readSecretFile(env, values.httpBearerTokenFile, cwd),
  ).replace(/\r?\n$/, "");
  const token = parseSetting(
    { ...SETTINGS.find((s) => s.key === "httpBearerToken")!, env: `the token in ${env}` },
    text,
  ) as string;
  if (token === "") throw new ConfigError(`the file named by ${env} is empty`);
  return token;
}

function readCursorKey(path: string, cwd: string): Uint8Array | undefined {
  const env = "MCP_SERVER__CURSOR_KEY_FILE";
  if (path === "") return undefined;
  const bytes = readSecretFile(env, path, cwd);
  if (bytes.length < MIN_CURSOR_KEY_BYTES) {
    throw new ConfigError(
      `the file named by ${env} holds ${bytes.length} bytes; a cursor key needs at least ${MIN_CURSOR_KEY_BYTES} (e.g. head -c 32 /dev/urandom > FILE)`,
    );
  }
  return bytes;
}

/** Whether `host` (as configured) is a loopback address or `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** A value or path as it may stand in our one-line messages: escaped, bounded, quoted. */
function quote(text: string, max?: number): string {
  return quoteName(text, max);
}

/** The longest a path stands in a start-up message (longer ones are cut, marked with `…`). */
const MAX_QUOTED_PATH = 240;

function resolveWorkspace(text: string, cwd: string, source: string): string {
  const absolute = isAbsolute(text) ? text : resolve(cwd, text);
  let real: string;
  try {
    real = Deno.realPathSync(absolute);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ConfigError(
        `the workspace from ${source} does not exist: ${quote(absolute, MAX_QUOTED_PATH)}`,
      );
    }
    throw new ConfigError(
      `the workspace from ${source} cannot be opened: ${quote(absolute, MAX_QUOTED_PATH)}`,
    );
  }
  if (!Deno.statSync(real).isDirectory) {
    throw new ConfigError(
      `the workspace from ${source} is not a directory: ${quote(absolute, MAX_QUOTED_PATH)}`,
    );
  }
  return real;
}

/**
 * Refuses a workspace that is itself a denied place, or lies in one
 * (`repo/.git`, `~/.ssh`, `~/.config/gcloud`): everything in it would be
 * served. Checked in every environment, on the path as given and as resolved.
 */
function checkNotDenied(config: Config, source: string): void {
  const denylist = new Denylist(config.denyExtra);
  for (const path of [config.workspace, config.workspaceRoot]) {
    const place = denylist.deniedPlaceOf(path);
    if (place !== undefined) {
      throw new ConfigError(
        `the workspace from ${source} is or lies in a denied place (${
          quote(place.split("/").pop()!)
        }, on the denylist), so nothing in it may be served; choose the repository folder that contains it`,
      );
    }
  }
}

function checkProduction(config: Config, homeDir: string | undefined): void {
  const refuse = (why: string) => {
    throw new ConfigError(`MCP_ENVIRONMENT=production refuses to start: ${why}`);
  };
  if (!config.redactSecrets) refuse("MCP_CONTENT__REDACT_SECRETS is off");
  if (config.followSymlinks) refuse("MCP_SANDBOX__FOLLOW_SYMLINKS is on");
  if (config.transport === "http" && config.bearerToken === undefined) {
    refuse(
      "HTTP mode needs a bearer token (MCP_HTTP__BEARER_TOKEN or MCP_HTTP__BEARER_TOKEN_FILE)",
    );
  }
  if (parsePath(config.workspaceRoot).root === config.workspaceRoot) {
    refuse("the workspace is a filesystem root");
  }
  if (homeDir !== undefined) {
    let home = homeDir;
    try {
      home = Deno.realPathSync(homeDir);
    } catch { /* an unresolvable home compares as written */ }
    if (home === config.workspaceRoot) refuse("the workspace is a home directory");
  }
}
