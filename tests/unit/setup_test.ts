/**
 * `devserver setup`: each client's document has the shape that client
 * documents (the expected shapes below are the ones docs/editors.md shows,
 * checked against it by tests/unit/editors_docs_test.ts); the files are
 * where each client reads them, per OS; `--write` keeps other servers,
 * comments and the file mode, makes a backup, leaves no temporary file; a
 * file it cannot parse is refused untouched.
 */

import assert from "node:assert/strict";
import { parse as parseJsonc } from "jsonc-parser";
import { shellWords } from "../../src/conform/shell_words.ts";
import type { LaunchCommand } from "../../src/cli/launch.ts";
import { devserverTaskFlags, serveCommand } from "../../src/cli/launch.ts";
import {
  claudeMcpAddLine,
  type ClientName,
  CLIENTS,
  configDocument,
  findClient,
  mergeIntoFile,
  mergeText,
  type Platform,
  SERVER_KEY,
  UnmergeableFile,
} from "../../src/cli/setup.ts";
import { REPO_ROOT } from "../helpers/program.ts";

const WS = "/home/ada/src/project";
const LAUNCH: LaunchCommand = {
  command: "/opt/devserver/devserver-x86_64-unknown-linux-gnu",
  args: ["--workspace", WS, "serve"],
};

/** The documented entry of each client: its servers key and the entry's exact keys. */
export const DOCUMENTED_SHAPES: Record<ClientName, { key: string; entry: string[] }> = {
  "vscode": { key: "servers", entry: ["args", "command", "type"] },
  "claude-desktop": { key: "mcpServers", entry: ["args", "command"] },
  "claude-code": { key: "mcpServers", entry: ["args", "command", "env", "type"] },
  "cursor": { key: "mcpServers", entry: ["args", "command"] },
  "zed": { key: "context_servers", entry: ["args", "command", "env"] },
  "windsurf": { key: "mcpServers", entry: ["args", "command"] },
};

Deno.test("setup: six clients, each document parses and has the shape its client documents", () => {
  assert.deepEqual(CLIENTS.map((c) => c.name).sort(), Object.keys(DOCUMENTED_SHAPES).sort());
  for (const client of CLIENTS) {
    const text = JSON.stringify(configDocument(client, LAUNCH), null, 2);
    const doc = JSON.parse(text);
    const shape = DOCUMENTED_SHAPES[client.name];
    assert.deepEqual(Object.keys(doc), [shape.key], client.name);
    assert.deepEqual(Object.keys(doc[shape.key]), [SERVER_KEY], client.name);
    const entry = doc[shape.key][SERVER_KEY];
    assert.deepEqual(Object.keys(entry).sort(), shape.entry, client.name);
    assert.equal(entry.command, LAUNCH.command, client.name);
    assert.deepEqual(entry.args, ["--workspace", WS, "serve"], client.name);
    if ("type" in entry) assert.equal(entry.type, "stdio", client.name);
    if ("env" in entry) assert.deepEqual(entry.env, {}, client.name);
  }
});

Deno.test("setup: each client's file is where that client reads it, on Linux, macOS and Windows", () => {
  const linux: Platform = { os: "linux", env: { HOME: "/home/ada" } };
  const xdg: Platform = { os: "linux", env: { HOME: "/home/ada", XDG_CONFIG_HOME: "/cfg" } };
  const mac: Platform = { os: "darwin", env: { HOME: "/Users/ada" } };
  const win: Platform = {
    os: "windows",
    env: { USERPROFILE: "C:\\Users\\ada", APPDATA: "C:\\Users\\ada\\AppData\\Roaming" },
  };
  const winWs = "C:\\src\\project";
  const file = (name: ClientName, platform: Platform, ws = WS) =>
    findClient(name).file(ws, platform);
  assert.equal(file("vscode", linux), `${WS}/.vscode/mcp.json`);
  assert.equal(file("vscode", win, winWs), "C:\\src\\project\\.vscode\\mcp.json");
  assert.equal(file("claude-code", mac), `${WS}/.mcp.json`);
  assert.equal(file("cursor", linux), `${WS}/.cursor/mcp.json`);
  assert.equal(
    file("claude-desktop", mac),
    "/Users/ada/Library/Application Support/Claude/claude_desktop_config.json",
  );
  assert.equal(
    file("claude-desktop", win),
    "C:\\Users\\ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json",
  );
  assert.equal(
    file("claude-desktop", linux),
    "/home/ada/.config/Claude/claude_desktop_config.json",
  );
  assert.equal(file("zed", linux), "/home/ada/.config/zed/settings.json");
  assert.equal(file("zed", xdg), "/cfg/zed/settings.json");
  assert.equal(file("zed", mac), "/Users/ada/.config/zed/settings.json");
  assert.equal(file("zed", win), "C:\\Users\\ada\\AppData\\Roaming\\Zed\\settings.json");
  assert.equal(file("windsurf", mac), "/Users/ada/.codeium/windsurf/mcp_config.json");
  assert.equal(file("windsurf", win), "C:\\Users\\ada\\.codeium\\windsurf\\mcp_config.json");
  // Without the directory a location needs: a usage error, not a file in the wrong place.
  assert.throws(() => file("windsurf", { os: "linux", env: {} }), /HOME is not set/);
  assert.throws(() => file("zed", { os: "windows", env: { USERPROFILE: "C:\\u" } }), /APPDATA/);
});

Deno.test("setup: an unknown client is a usage error naming the six", () => {
  assert.throws(() => findClient("emacs"), /unknown client "emacs"; one of vscode, claude-desktop/);
  assert.throws(() => findClient(undefined), /setup needs a client/);
});

Deno.test("setup: the claude mcp add line splits back into exactly the command, args included", () => {
  const launch = {
    command: "/Applications/dev server/devserver",
    args: ["--workspace", "/it's here", "serve"],
  };
  const words = shellWords(claudeMcpAddLine(launch));
  assert.deepEqual(words, [
    "claude",
    "mcp",
    "add",
    "--transport",
    "stdio",
    "--scope",
    "project",
    "devserver",
    "--",
    launch.command,
    ...launch.args,
  ]);
});

Deno.test("setup: run from source, the command is deno run with the devserver task's flags, --config and absolute paths", () => {
  const launch = serveCommand(WS);
  assert.equal(launch.command, Deno.execPath());
  const flags = devserverTaskFlags(Deno.readTextFileSync(`${REPO_ROOT}/deno.json`));
  assert.deepEqual(launch.args.slice(0, 1 + flags.length), ["run", ...flags]);
  const rest = launch.args.slice(1 + flags.length);
  assert.deepEqual(rest, [
    "--config",
    `${REPO_ROOT}/deno.json`,
    `${REPO_ROOT}/src/cli/main.ts`,
    "--workspace",
    WS,
    "serve",
  ]);
});

async function tempDir(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "devserver-setup-" }));
}

async function names(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
}

Deno.test("setup --write: a missing file is created (with its directory) holding only this server", async () => {
  const dir = await tempDir();
  try {
    const path = `${dir}/.vscode/mcp.json`;
    const outcome = await mergeIntoFile(path, findClient("vscode"), LAUNCH);
    assert.deepEqual(outcome, { kind: "created", path });
    assert.deepEqual(
      JSON.parse(await Deno.readTextFile(path)),
      configDocument(findClient("vscode"), LAUNCH),
    );
    assert.deepEqual(await names(`${dir}/.vscode`), ["mcp.json"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("setup --write: an existing file with other servers keeps them (and its other keys), backed up first; a second run changes nothing", async () => {
  const dir = await tempDir();
  try {
    const path = `${dir}/claude_desktop_config.json`;
    const original = JSON.stringify(
      {
        globalShortcut: "Ctrl+Space",
        mcpServers: {
          filesystem: {
            command: "npx",
            args: ["-y", "@modelcontextprotocol/server-filesystem", "/x"],
          },
          github: {
            command: "docker",
            args: ["run", "ghcr.io/github/github-mcp-server"],
            env: { A: "1" },
          },
        },
      },
      null,
      2,
    );
    await Deno.writeTextFile(path, original, { mode: 0o600 });
    await Deno.chmod(path, 0o600);
    const client = findClient("claude-desktop");
    const now = new Date("2026-12-01T13:30:00.123Z");
    const outcome = await mergeIntoFile(path, client, LAUNCH, now);
    assert.equal(outcome.kind, "updated");
    const backup = `${path}.20261201T133000Z.bak`;
    assert.deepEqual(outcome, { kind: "updated", path, backup, replaced: false });
    assert.equal(await Deno.readTextFile(backup), original);
    const merged = JSON.parse(await Deno.readTextFile(path));
    const before = JSON.parse(original);
    assert.equal(merged.globalShortcut, "Ctrl+Space");
    assert.deepEqual(merged.mcpServers.filesystem, before.mcpServers.filesystem);
    assert.deepEqual(merged.mcpServers.github, before.mcpServers.github);
    assert.deepEqual(merged.mcpServers.devserver, client.entry(LAUNCH));
    if (Deno.build.os !== "windows") assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    // No temporary file is left beside it.
    assert.deepEqual(await names(dir), [
      "claude_desktop_config.json",
      "claude_desktop_config.json.20261201T133000Z.bak",
    ]);
    // Again: nothing to do, no second backup.
    const again = await mergeIntoFile(path, client, LAUNCH, new Date("2026-12-01T14:00:00Z"));
    assert.deepEqual(again, { kind: "unchanged", path });
    assert.equal((await names(dir)).length, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("setup --write: an older devserver entry is replaced, the others kept", () => {
  const text = JSON.stringify({
    mcpServers: { devserver: { command: "/old/devserver", args: [] }, other: { command: "x" } },
  });
  const merged = mergeText(text, "mcpServers", findClient("cursor").entry(LAUNCH), "f.json");
  assert.equal(merged.replaced, true);
  const doc = JSON.parse(merged.text);
  assert.deepEqual(doc.mcpServers.other, { command: "x" });
  assert.equal(doc.mcpServers.devserver.command, LAUNCH.command);
});

const ZED_SETTINGS = `// Zed settings
//
// For information on how to configure Zed, see the Zed documentation.
{
  "theme": "One Dark", // the dark one
  /* servers the agent may use */
  "context_servers": {
    "local-mcp-server": {
      "command": "some-command",
      "args": ["arg-1", "arg-2"], // keep these
      "env": {},
    },
  },
  "vim_mode": true,
}
`;

Deno.test("setup --write: Zed's settings (JSON with comments and trailing commas) keep every comment and the other context server", async () => {
  const dir = await tempDir();
  try {
    const path = `${dir}/settings.json`;
    await Deno.writeTextFile(path, ZED_SETTINGS);
    const outcome = await mergeIntoFile(path, findClient("zed"), LAUNCH);
    assert.equal(outcome.kind, "updated");
    const text = await Deno.readTextFile(path);
    for (
      const comment of [
        "// Zed settings",
        "// For information on how to configure Zed, see the Zed documentation.",
        "// the dark one",
        "/* servers the agent may use */",
        "// keep these",
      ]
    ) assert.ok(text.includes(comment), `lost ${comment}:\n${text}`);
    const errors: unknown[] = [];
    const doc = parseJsonc(text, errors as never, { allowTrailingComma: true });
    assert.deepEqual(errors, []);
    assert.equal(doc.theme, "One Dark");
    assert.equal(doc.vim_mode, true);
    assert.deepEqual(doc.context_servers["local-mcp-server"].args, ["arg-1", "arg-2"]);
    assert.deepEqual(doc.context_servers.devserver, findClient("zed").entry(LAUNCH));
    // Only the new entry was inserted: the text before it is byte for byte the same.
    const cut = ZED_SETTINGS.indexOf('"local-mcp-server"');
    assert.equal(text.slice(0, cut), ZED_SETTINGS.slice(0, cut));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("setup --write: a file it cannot parse, or whose servers key is not an object, is refused and left byte for byte as it was, with no backup", async () => {
  const dir = await tempDir();
  try {
    const cases: Array<[string, RegExp]> = [
      ['{ "mcpServers": { "a": { "command": "x" }\n', /is not valid JSON \(.* at line 2/],
      ['{ "mcpServers": { "a": } }', /is not valid JSON/],
      ["[1, 2, 3]", /does not hold a JSON object/],
      ['{ "mcpServers": ["not", "an", "object"] }', /"mcpServers" is not an object/],
      ["<<<<<<< HEAD\n{}\n", /is not valid JSON/],
    ];
    for (const [content, message] of cases) {
      const path = `${dir}/mcp_config.json`;
      await Deno.writeTextFile(path, content);
      await assert.rejects(
        () => mergeIntoFile(path, findClient("windsurf"), LAUNCH),
        (error: Error) => error instanceof UnmergeableFile && message.test(error.message),
        content,
      );
      assert.equal(await Deno.readTextFile(path), content);
      assert.deepEqual(await names(dir), ["mcp_config.json"], content);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("setup --write: an empty file is treated as an empty document", () => {
  const merged = mergeText("", "servers", findClient("vscode").entry(LAUNCH), "mcp.json");
  assert.deepEqual(JSON.parse(merged.text), configDocument(findClient("vscode"), LAUNCH));
});
