/**
 * README.md against the code: the two set-up commands on its first screen
 * are tasks, every `deno task` it names exists, the tools table lists the
 * registered tools in order, the examples table names the files its tasks
 * run, the `deno install` command grants exactly the `devserver` permission
 * set with the task's V8 flags, the credential count is the catalogue's,
 * and the project layout has a row for everything under `src/`.
 */

import assert from "node:assert/strict";
import { devserverV8FlagsArg, REPO_ROOT } from "../../scripts/lib/program.ts";
import { SECRET_RULES } from "../../src/secrets/catalogue.ts";
import { TOOLS } from "../../src/tools/registry.ts";

const README = Deno.readTextFileSync(`${REPO_ROOT}/README.md`);
const DENO_JSON = JSON.parse(Deno.readTextFileSync(`${REPO_ROOT}/deno.json`));
const TASKS: Record<string, string> = DENO_JSON.tasks;

/** The rows (cells, trimmed) of the first table after `## heading`. */
function table(heading: string): string[][] {
  const lines = README.split("\n");
  const at = lines.indexOf(`## ${heading}`);
  assert.ok(at >= 0, `README.md has no "## ${heading}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(at + 1)) {
    if (line.startsWith("|")) rows.push(line.split("|").slice(1, -1).map((c) => c.trim()));
    else if (rows.length > 0) break;
  }
  return rows.slice(2);
}

Deno.test("readme: the first screen's two commands are the quickstart and the test suite", () => {
  const firstScreen = README.split("\n").slice(0, 30).join("\n");
  assert.match(firstScreen, /```sh\ndeno task quickstart\ndeno task test\n```/);
  assert.match(TASKS.quickstart, /examples\/quickstart\.ts$/);
  assert.match(TASKS.test, /scripts\/test\.ts$/);
  // The Deno it installs is the one deno.json pins.
  assert.match(firstScreen, new RegExp(`npm install -g deno@${DENO_JSON.engines.deno}\\n`));
});

Deno.test("readme: every deno task it names exists in deno.json", () => {
  const named = new Set([...README.matchAll(/deno task (?:--config \S+ )?(?:-q )?([a-z][a-z:-]*)/g)]
    .map((m) => m[1]));
  assert.ok(named.size >= 5, [...named].join());
  for (const task of named) assert.ok(task in TASKS, `README.md names deno task ${task}`);
});

Deno.test("readme: the tools table lists the registered tools, in order", () => {
  const names = table("Tools").map((row) => row[0]);
  assert.deepEqual(names, TOOLS.map((tool) => `\`${tool.name}\``));
});

Deno.test("readme: each example's task runs the file its row names, and the file exists", () => {
  const rows = table("Examples");
  assert.equal(rows.length, 3);
  for (const [command, meaning] of rows) {
    const task = command.match(/^`deno task ([a-z:]+)`$/)?.[1];
    assert.ok(task && task in TASKS, command);
    const file = meaning.match(/^`(examples\/[a-z_]+\.ts)`:/)?.[1];
    assert.ok(file, meaning);
    assert.ok(TASKS[task].endsWith(` ${file}`), `deno task ${task} does not run ${file}`);
    Deno.statSync(`${REPO_ROOT}/${file}`);
  }
});

Deno.test("readme: the deno install command grants the devserver permission set and V8 flags", () => {
  const line = README.split("\n").find((l) => l.startsWith("deno install -g "));
  assert.ok(line, "README.md has no deno install -g line");
  const words = line.split(" ");
  const granted = words.filter((w) => w.startsWith("--allow-")).map((w) => w.slice(8)).sort();
  const set: Record<string, boolean> = DENO_JSON.permissions.devserver;
  const expected = Object.entries(set).filter(([, on]) => on === true).map(([name]) => name).sort();
  assert.deepEqual(granted, expected);
  assert.ok(Object.values(set).every((v) => typeof v === "boolean"), "the set has scoped grants");
  assert.ok(words.includes(devserverV8FlagsArg()), "the V8 flags differ from the devserver task");
  assert.ok(words.includes("--no-prompt"));
  assert.deepEqual(words.slice(-1), ["src/cli/main.ts"]);
  assert.ok(line.includes("--config deno.json"));
  // The prose names the same set.
  const denied = Object.entries(set).filter(([, on]) => on === false).map(([name]) => name);
  const allowed = Object.entries(set).filter(([, on]) => on === true).map(([name]) => name);
  assert.ok(
    README.replace(/\s+/g, " ").includes(
      `set: ${allowed.join(", ").replace(/, (\w+)$/, " and $1")}; no ${
        denied.join(", ").replace(/, (\w+)$/, " or $1")
      })`,
    ),
    "the Install paragraph does not name the permission set as deno.json defines it",
  );
});

Deno.test("readme: the number of credential kinds is the catalogue's", () => {
  const counts = [...README.matchAll(/(\d+) (?:kinds of credentials|formats)/g)].map((m) => m[1]);
  assert.ok(counts.length >= 2);
  for (const count of counts) assert.equal(Number(count), SECRET_RULES.length);
});

Deno.test("readme: the project layout has a row for every folder and file under src/", () => {
  const paths = table("Project layout").flatMap((row) =>
    [...row[0].matchAll(/`([^`]+)`/g)].map((m) => m[1])
  );
  for (const entry of Deno.readDirSync(`${REPO_ROOT}/src`)) {
    const path = entry.isDirectory ? `src/${entry.name}/` : `src/${entry.name}`;
    assert.ok(paths.includes(path), `README.md's project layout has no row for ${path}`);
  }
  for (const path of paths) {
    const real = path.replace(/\/$/, "");
    Deno.statSync(`${REPO_ROOT}/${real}`); // throws for a row that names nothing
  }
});
