import assert from "node:assert/strict";
import { SETTINGS } from "../../src/config/schema.ts";
import { DEFAULT_REMEDIES, REFUSAL_CODES } from "../../src/contract/refusal.ts";

const readRepoFile = (path: string) => Deno.readTextFile(new URL(`../../${path}`, import.meta.url));
const MCP_NAME = /\bMCP_[A-Z][A-Z0-9_]*[A-Z0-9]\b/g;
const KNOWN = new Set(SETTINGS.map((s) => s.env));

/** The settings table row of `docs/configuration.md` whose first cell is `env`. */
function tableRow(markdown: string, env: string): string | undefined {
  return markdown.split("\n").find((line) =>
    line.startsWith("|") && line.split("|")[1]?.trim() === `\`${env}\``
  );
}

Deno.test("docs: configuration.md has a row for every setting with its default and range", async () => {
  const markdown = await readRepoFile("docs/configuration.md");
  for (const spec of SETTINGS) {
    const row = tableRow(markdown, spec.env);
    assert.ok(row, `docs/configuration.md has no table row for ${spec.env}`);
    const cells = row.split("|").map((c) => c.trim());
    const expectedDefault = spec.defaultText === "" ? "(unset)" : `\`${spec.defaultText}\``;
    assert.equal(cells[3], expectedDefault, `default of ${spec.env}`);
    const kind = spec.kind;
    if (kind.type === "integer") {
      assert.ok(cells[2].includes(`${kind.min}–${kind.max}`), `range of ${spec.env}: ${cells[2]}`);
    } else if (kind.type === "enum") {
      for (const value of kind.values) {
        assert.ok(cells[2].includes(`\`${value}\``), `${spec.env} lists ${value}`);
      }
    } else {
      assert.ok(cells[2].startsWith(kind.type), `type of ${spec.env}: ${cells[2]}`);
    }
  }
});

Deno.test("docs: .env.example lists every setting, commented out, with its default", async () => {
  const example = await readRepoFile(".env.example");
  const lines = example.split("\n");
  for (const spec of SETTINGS) {
    const matching = lines.filter((line) => line.startsWith(`# ${spec.env}=`));
    assert.deepEqual(matching, [`# ${spec.env}=${spec.defaultText}`], spec.env);
  }
  for (const line of lines) {
    assert.ok(line === "" || line.startsWith("#"), `an active line in .env.example: ${line}`);
  }
  // The settings appear in catalogue order.
  const order = lines.filter((l) => /^# MCP_[A-Z_]+=/.test(l)).map((l) =>
    l.slice(2, l.indexOf("="))
  );
  assert.deepEqual(order, SETTINGS.map((s) => s.env));
});

Deno.test("docs: neither file names an MCP_ variable the catalogue lacks", async () => {
  for (const path of ["docs/configuration.md", ".env.example"]) {
    // The one deliberate misspelling is the quoted error message that shows the hint.
    const text = (await readRepoFile(path)).replace(/unknown setting MCP_\w+ \(did you mean/g, "");
    const unknown = [...new Set(text.match(MCP_NAME) ?? [])].filter((name) => !KNOWN.has(name));
    assert.deepEqual(unknown, [], `${path} names unknown settings`);
  }
});

Deno.test("docs: tools.md documents every refusal code with its remedy", async () => {
  const markdown = await readRepoFile("docs/tools.md");
  for (const code of REFUSAL_CODES) {
    const row = markdown.split("\n").find((line) => line.startsWith(`| \`${code}\``));
    assert.ok(row, `docs/tools.md has no row for refusal code ${code}`);
    assert.ok(row.includes(DEFAULT_REMEDIES[code]), `docs/tools.md gives ${code} its remedy`);
  }
});
