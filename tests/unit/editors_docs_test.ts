/**
 * docs/editors.md and docs/cli.md against the code: each client's example
 * in editors.md is exactly what `setup` produces for the documented paths
 * (the `claude mcp add` line included), the client table names every
 * client with its servers key; docs/cli.md's command table lists every
 * command of the command table, `setup` among them, and its options table
 * lists `--write`.
 */

import assert from "node:assert/strict";
import { COMMAND_TABLE } from "../../src/cli/commands.ts";
import { claudeMcpAddLine, CLIENTS, configDocument } from "../../src/cli/setup.ts";
import { REPO_ROOT } from "../helpers/program.ts";

const editors = Deno.readTextFileSync(`${REPO_ROOT}/docs/editors.md`);
const LAUNCH = {
  command: "/opt/devserver/devserver",
  args: ["--workspace", "/home/ada/src/project", "serve"],
};

/** The text of the `## title` section. */
function section(title: string): string {
  const start = editors.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `docs/editors.md has no section ${title}`);
  const end = editors.indexOf("\n## ", start + 1);
  return editors.slice(start, end < 0 ? undefined : end);
}

function blocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map((m) =>
    m[1]
  );
}

Deno.test("docs/editors.md: each client's example is exactly what setup produces", () => {
  for (const client of CLIENTS) {
    const text = section(client.title);
    const json = blocks(text, "json");
    assert.equal(json.length, 1, `${client.title}: one JSON example`);
    assert.deepEqual(JSON.parse(json[0]), configDocument(client, LAUNCH), client.title);
    const command = `devserver --workspace /home/ada/src/project setup ${client.name}`;
    assert.ok(text.includes(command), `${client.title}: the setup command`);
  }
  const claudeCode = blocks(section("Claude Code"), "sh").map((b) => b.trim());
  assert.ok(claudeCode.includes(claudeMcpAddLine(LAUNCH)), claudeCode.join("\n"));
});

Deno.test("docs/editors.md: the client table names every client with its servers key", () => {
  for (const client of CLIENTS) {
    const row = editors.split("\n").find((line) => line.includes(`| \`${client.name}\` `));
    assert.ok(row, `no table row for ${client.name}`);
    assert.ok(row.includes(`\`${client.serversKey}\``), row);
  }
});

Deno.test("docs/cli.md: every command in the command table has a row, and --write is documented", () => {
  const cli = Deno.readTextFileSync(`${REPO_ROOT}/docs/cli.md`);
  for (const command of COMMAND_TABLE) {
    const head = command.synopsis ? `${command.name} ${command.synopsis}` : command.name;
    assert.ok(cli.includes(`| \`${head}\``), `docs/cli.md has no row for ${head}`);
  }
  assert.match(cli, /\| `--write` +\| `setup`/);
});
