/**
 * `devserver setup <client> [--workspace DIR] [--write]`: the configuration
 * an editor needs to start this server on one workspace, printed, or with
 * `--write` merged into the client's own file.
 *
 * Each client is one row of {@linkcode CLIENTS}: where its file lives (in
 * the workspace, or under the user's home, per OS), which key holds its
 * servers, and the entry it documents. Merging parses the file as JSONC
 * (comments and trailing commas kept: `jsonc-parser`'s `modify` edits only
 * the `devserver` entry's text), keeps every other server, copies the old
 * file to a timestamped backup first, and replaces the file atomically
 * (temporary file in the same directory, then rename). A file it cannot
 * parse, or whose server key is not an object, is refused untouched (exit 2).
 *
 * @module
 */

import { dirname, isAbsolute, posix, resolve, win32 } from "node:path";
import { applyEdits, modify, parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import { quoteName } from "../contract/text.ts";
import { type ParsedArgs, UsageError } from "./args.ts";
import { type LaunchCommand, serveCommand } from "./launch.ts";

/** The name the server is registered under in every client. */
export const SERVER_KEY = "devserver";

/** The clients `setup` knows. */
export type ClientName =
  | "vscode"
  | "claude-desktop"
  | "claude-code"
  | "cursor"
  | "zed"
  | "windsurf";

/** Where `setup` looks for the user's directories. */
export interface Platform {
  readonly os: typeof Deno.build.os;
  /** The environment variables the locations depend on (HOME, USERPROFILE, APPDATA, XDG_CONFIG_HOME). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** One client: its file, its servers key, the entry it documents. */
export interface ClientSpec {
  readonly name: ClientName;
  /** The product, for messages and docs. */
  readonly title: string;
  /** The configuration file for `workspace` on `platform`. */
  readonly file: (workspace: string, platform: Platform) => string;
  /** The top-level key that holds the servers, by name. */
  readonly serversKey: string;
  /** The entry for this server. */
  readonly entry: (launch: LaunchCommand) => Record<string, unknown>;
}

/** `path.join` with the separators of `platform` (a Windows path stays one on any host). */
function joinFor(platform: Platform, ...parts: string[]): string {
  return (platform.os === "windows" ? win32 : posix).join(...parts);
}

function home(platform: Platform): string {
  const dir = platform.os === "windows"
    ? platform.env.USERPROFILE ?? platform.env.HOME
    : platform.env.HOME;
  if (!dir) throw new UsageError("cannot find your home directory (HOME is not set)");
  return dir;
}

function appData(platform: Platform): string {
  const dir = platform.env.APPDATA;
  if (!dir) {
    throw new UsageError("cannot find your application data directory (APPDATA is not set)");
  }
  return dir;
}

/** `$XDG_CONFIG_HOME`, else `~/.config`. */
function xdgConfig(platform: Platform): string {
  const dir = platform.env.XDG_CONFIG_HOME;
  return dir && isAbsolute(dir) ? dir : joinFor(platform, home(platform), ".config");
}

const stdio = (launch: LaunchCommand) => ({
  command: launch.command,
  args: [...launch.args],
});

/** Every client, in help order. */
export const CLIENTS: readonly ClientSpec[] = [
  {
    name: "vscode",
    title: "VS Code",
    file: (workspace, platform) => joinFor(platform, workspace, ".vscode", "mcp.json"),
    serversKey: "servers",
    entry: (launch) => ({ type: "stdio", ...stdio(launch) }),
  },
  {
    name: "claude-desktop",
    title: "Claude Desktop",
    file: (_workspace, platform) => {
      const file = "claude_desktop_config.json";
      if (platform.os === "darwin") {
        return joinFor(platform, home(platform), "Library", "Application Support", "Claude", file);
      }
      if (platform.os === "windows") return joinFor(platform, appData(platform), "Claude", file);
      return joinFor(platform, xdgConfig(platform), "Claude", file);
    },
    serversKey: "mcpServers",
    entry: (launch) => stdio(launch),
  },
  {
    name: "claude-code",
    title: "Claude Code",
    // Project scope: the file `claude mcp add --scope project` writes.
    file: (workspace, platform) => joinFor(platform, workspace, ".mcp.json"),
    serversKey: "mcpServers",
    entry: (launch) => ({ type: "stdio", ...stdio(launch), env: {} }),
  },
  {
    name: "cursor",
    title: "Cursor",
    // Project scope: the server is for this workspace only.
    file: (workspace, platform) => joinFor(platform, workspace, ".cursor", "mcp.json"),
    serversKey: "mcpServers",
    entry: (launch) => stdio(launch),
  },
  {
    name: "zed",
    title: "Zed",
    file: (_workspace, platform) => {
      if (platform.os === "windows") {
        return joinFor(platform, appData(platform), "Zed", "settings.json");
      }
      // Zed reads ~/.config/zed on macOS too (not ~/Library).
      const config = platform.os === "darwin"
        ? joinFor(platform, home(platform), ".config")
        : xdgConfig(platform);
      return joinFor(platform, config, "zed", "settings.json");
    },
    serversKey: "context_servers",
    entry: (launch) => ({ ...stdio(launch), env: {} }),
  },
  {
    name: "windsurf",
    title: "Windsurf",
    file: (_workspace, platform) =>
      joinFor(platform, home(platform), ".codeium", "windsurf", "mcp_config.json"),
    serversKey: "mcpServers",
    entry: (launch) => stdio(launch),
  },
];

/** The client called `name`, or a usage error naming the known ones. */
export function findClient(name: string | undefined): ClientSpec {
  const names = CLIENTS.map((c) => c.name).join(", ");
  if (name === undefined) throw new UsageError(`setup needs a client: one of ${names}`);
  const client = CLIENTS.find((c) => c.name === name);
  if (!client) throw new UsageError(`unknown client ${quoteName(name)}; one of ${names}`);
  return client;
}

/** The document a client's file holds with only this server in it. */
export function configDocument(client: ClientSpec, launch: LaunchCommand): Record<string, unknown> {
  return { [client.serversKey]: { [SERVER_KEY]: client.entry(launch) } };
}

/** A word for a POSIX shell: as is when safe, else single-quoted. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'"'"'`)}'`;
}

/** The `claude mcp add` line that registers this server in Claude Code (project scope). */
export function claudeMcpAddLine(launch: LaunchCommand): string {
  return [
    "claude",
    "mcp",
    "add",
    "--transport",
    "stdio",
    "--scope",
    "project",
    SERVER_KEY,
    "--",
    launch.command,
    ...launch.args,
  ].map(shellQuote).join(" ");
}

/** What `--write` did. */
export type MergeOutcome =
  | { readonly kind: "created"; readonly path: string }
  | {
    readonly kind: "updated";
    readonly path: string;
    readonly backup: string;
    readonly replaced: boolean;
  }
  | { readonly kind: "unchanged"; readonly path: string };

/** A file `setup --write` will not rewrite: printed as one line, exit 2, the file untouched. */
export class UnmergeableFile extends UsageError {}

const FORMATTING = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" } };

/** Where the problem at `offset` of `text` is, as `line L, column C`. */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

/**
 * `text` (a JSONC document) with `entry` set at `[serversKey, devserver]`,
 * everything else (other servers, comments, formatting) kept. Throws
 * {@linkcode UnmergeableFile} when `text` is not a JSONC object or its
 * servers key holds something other than an object.
 */
export function mergeText(
  text: string,
  serversKey: string,
  entry: Record<string, unknown>,
  path: string,
): { text: string; replaced: boolean; unchanged: boolean } {
  const errors: ParseError[] = [];
  const root = parse(text, errors, { allowTrailingComma: true, allowEmptyContent: true });
  if (errors.length > 0) {
    const first = errors[0];
    throw new UnmergeableFile(
      `${path} is not valid JSON (${printParseErrorCode(first.error)} at ${
        position(text, first.offset)
      }); it was not changed: fix it, or add the printed configuration by hand`,
    );
  }
  const isObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
  if (text.trim() !== "" && !isObject(root)) {
    throw new UnmergeableFile(`${path} does not hold a JSON object; it was not changed`);
  }
  const servers = isObject(root) ? (root as Record<string, unknown>)[serversKey] : undefined;
  if (servers !== undefined && !isObject(servers)) {
    throw new UnmergeableFile(
      `${path}: "${serversKey}" is not an object; it was not changed`,
    );
  }
  const existing = (servers as Record<string, unknown> | undefined)?.[SERVER_KEY];
  if (existing !== undefined && JSON.stringify(existing) === JSON.stringify(entry)) {
    return { text, replaced: false, unchanged: true };
  }
  const base = text.trim() === "" ? "{}\n" : text;
  const edits = modify(base, [serversKey, SERVER_KEY], entry, FORMATTING);
  return { text: applyEdits(base, edits), replaced: existing !== undefined, unchanged: false };
}

/** `YYYYMMDDTHHMMSSZ` for backup names. */
function stamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
}

/** Writes `text` to `path` atomically: a temporary file beside it, then a rename over it. */
async function writeAtomically(path: string, text: string, mode?: number): Promise<void> {
  const temporary = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.writeTextFile(temporary, text, { createNew: true, mode: mode ?? 0o644 });
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}

/** Merges this server's entry into the client's file at `path` (created when missing). */
export async function mergeIntoFile(
  path: string,
  client: ClientSpec,
  launch: LaunchCommand,
  now: Date = new Date(),
): Promise<MergeOutcome> {
  const entry = client.entry(launch);
  let text: string | undefined;
  let mode: number | undefined;
  try {
    const info = await Deno.lstat(path);
    if (!info.isFile) {
      throw new UnmergeableFile(`${path} is not a regular file; it was not changed`);
    }
    mode = info.mode === null ? undefined : info.mode & 0o777;
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (text === undefined) {
    await Deno.mkdir(dirname(path), { recursive: true });
    await writeAtomically(path, JSON.stringify(configDocument(client, launch), null, 2) + "\n");
    return { kind: "created", path };
  }
  const merged = mergeText(text, client.serversKey, entry, path);
  if (merged.unchanged) return { kind: "unchanged", path };
  const backup = `${path}.${stamp(now)}.bak`;
  await Deno.copyFile(path, backup);
  await writeAtomically(path, merged.text, mode);
  return { kind: "updated", path, backup, replaced: merged.replaced };
}

/** The platform this process runs on. */
function currentPlatform(): Platform {
  const env: Record<string, string | undefined> = {};
  for (const name of ["HOME", "USERPROFILE", "APPDATA", "XDG_CONFIG_HOME"]) {
    env[name] = Deno.env.get(name);
  }
  return { os: Deno.build.os, env };
}

/** The workspace `setup` configures: `--workspace` (absolute, against `--cwd`), else the cwd. */
async function workspaceOf(args: ParsedArgs): Promise<string> {
  const base = args.cwd ?? Deno.cwd();
  const workspace = resolve(base, args.workspace ?? ".");
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(workspace);
  } catch {
    throw new UsageError(`the workspace ${quoteName(workspace)} does not exist`);
  }
  if (!info.isDirectory) {
    throw new UsageError(`the workspace ${quoteName(workspace)} is not a directory`);
  }
  return await Deno.realPath(workspace);
}

/** Runs `setup`; resolves with the exit code. */
export async function runSetup(args: ParsedArgs): Promise<number> {
  const [name, ...extra] = args.rest;
  const client = findClient(name);
  if (extra.length > 0) throw new UsageError("setup takes one client name");
  // setup starts nothing and talks to nobody.
  for (const permission of ["net", "run", "ffi", "sys"] as const) {
    await Deno.permissions.revoke({ name: permission });
  }
  const workspace = await workspaceOf(args);
  const launch = serveCommand(workspace);
  const path = client.file(workspace, currentPlatform());
  if (!args.write) {
    if (client.name === "claude-code") {
      console.log(claudeMcpAddLine(launch));
      console.error(`# or: devserver setup claude-code --write, which merges it into ${path}`);
    } else {
      console.log(JSON.stringify(configDocument(client, launch), null, 2));
      console.error(
        `# ${client.title}: merge this into ${path} (devserver setup ${client.name} --write does)`,
      );
    }
    return 0;
  }
  const outcome = await mergeIntoFile(path, client, launch);
  switch (outcome.kind) {
    case "created":
      console.log(`created ${outcome.path} with the ${SERVER_KEY} server`);
      break;
    case "unchanged":
      console.log(`${outcome.path} already has this ${SERVER_KEY} server; not changed`);
      break;
    case "updated":
      console.log(
        `${
          outcome.replaced ? "replaced the" : "added the"
        } ${SERVER_KEY} server in ${outcome.path} ` +
          `(other servers kept; the previous file is ${outcome.backup})`,
      );
      break;
  }
  console.log(`restart ${client.title} (or reload its MCP servers) to start it`);
  return 0;
}
