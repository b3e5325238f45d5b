/**
 * find_symbol and project_overview through the CLI (`devserver call`), the
 * program as shipped: its permission set, its sandbox workers.
 *
 * @module
 */

import assert from "node:assert/strict";
import { makeWorkspace } from "../helpers/fixtures.ts";
import { runProgram } from "../helpers/program.ts";

Deno.test("devserver call find_symbol and project_overview answer from the real program", async () => {
  await using ws = await makeWorkspace({
    "pkg/engine.rs": "struct Engine;\nimpl Engine {\n    fn start(&self) {}\n}\n",
    "package.json": '{"name": "cli-fixture", "devDependencies": {"jest": "29"}}',
  });
  const [symbol, overview] = await Promise.all([
    runProgram(["--cwd", ws.root, "call", "find_symbol", '{"symbol":"Engine.start"}', "--json"]),
    runProgram(["--cwd", ws.root, "call", "project_overview", "{}", "--json"]),
  ]);
  assert.equal(symbol.code, 0, symbol.stderr);
  const found = JSON.parse(symbol.stdout).structuredContent;
  assert.deepEqual(
    found.results.map((r: { path: string; line: number; method: string }) =>
      `${r.path}:${r.line} ${r.method}`
    ),
    ["pkg/engine.rs:3 parsed"],
  );
  assert.equal(overview.code, 0, overview.stderr);
  const out = JSON.parse(overview.stdout).structuredContent;
  assert.equal(out.manifests[0].name, "cli-fixture");
  assert.deepEqual(out.tests.frameworks, ["jest"]);
});
