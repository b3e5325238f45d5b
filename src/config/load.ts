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
}

/** What {@linkcode loadConfig} needs besides the environment. */
export interface LoadOptions {
  /** `--workspace` from the command line, if given (wins over the environment). */
  workspaceFlag?: string;
  /** `--transport` from the command line, if given. */
  transportFlag?: string;
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
  if (options.transportFlag !== undefined) {
    values.transport = parseSetting(
      { ...SETTINGS.find((s) => s.key === "transport")!, env: "--transport" },
      options.transportFlag,
    );
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
    case "list": {
      const items = text.split(",").map((s) => s.trim()).filter((s) => s !== "");
      if (items.length > kind.maxItems) {
        throw new ConfigError(`${spec.env} takes at most ${kind.maxItems} entries`);
      }
      for (const item of items) {
        const problem = item.length > kind.maxItemLength
          ? `is longer than ${kind.maxItemLength} characters`
          : patternProblem(item);
        if (problem !== undefined) {
          throw new ConfigError(
            `${spec.env} entries are names or name/name paths (globs with * and ?); ${
              quote(item)
            } ${problem}`,
          );
        }
      }
      return Object.freeze(items);
    }
  }
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
