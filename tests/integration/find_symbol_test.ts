/**
 * find_symbol through the real server: permission-scoped tool workers,
 * where the grammars' `.wasm` must load without a read grant on Deno's npm
 * cache (ADR-032).
 *
 * @module
 */

import assert from "node:assert/strict";
import { FindSymbolOutput } from "../../src/tools/find_symbol.ts";
import { ProjectOverviewOutput } from "../../src/tools/project_overview.ts";
import { makeWorkspace, startServer, textOf } from "../helpers/fixtures.ts";
import { readRefusal } from "../helpers/results.ts";

type Out = {
  results: {
    qualified_name: string;
    kind: string;
    path: string;
    method: string;
    language: string;
  }[];
  pattern_languages: { language: string }[];
  unparseable_files: { path: string }[];
};

Deno.test("find_symbol through the server: grammars load inside the sandboxed worker", async () => {
  await using ws = await makeWorkspace({
    "src/engine.ts": "export class Engine {\n  start(): void {}\n}\n",
    "lib/engine.py": "class Engine:\n    def start(self):\n        pass\n",
    "go/engine.go": "package e\ntype Engine struct{}\nfunc (e *Engine) start() {}\n",
    "kt/Engine.kt": "class Engine {\n  fun start() {}\n}\n",
  });
  using server = startServer(ws.root);
  const result = await server.dispatcher.call("find_symbol", { symbol: "start" });
  assert.equal(result.isError, undefined, textOf(result));
  const parsed = FindSymbolOutput.safeParse(result.structuredContent);
  assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
  const out = result.structuredContent as Out;
  const got = out.results.map((r) => `${r.path} ${r.qualified_name} ${r.method}`).sort();
  assert.deepEqual(got, [
    "go/engine.go Engine.start parsed",
    "kt/Engine.kt Engine.start pattern",
    "lib/engine.py Engine.start parsed",
    "src/engine.ts Engine.start parsed",
  ]);
  // Parsed results rank first; the pattern-matched language is named.
  assert.equal(out.results.at(-1)!.method, "pattern");
  assert.deepEqual(out.pattern_languages.map((l) => l.language), ["kotlin"]);
  assert.deepEqual(out.unparseable_files, []);
});

Deno.test("find_symbol through the server: a path outside the workspace is refused", async () => {
  await using ws = await makeWorkspace({ "a.ts": "export const a = 1;\n" });
  using server = startServer(ws.root);
  const result = await server.dispatcher.call("find_symbol", { symbol: "a", path: "../outside" });
  readRefusal(result, "outside_workspace");
});

Deno.test("project_overview through the server: manifests, git state and the walk inside the sandbox", async () => {
  await using ws = await makeWorkspace({
    "README.md": "# Served\n",
    "Cargo.toml": '[package]\nname = "served"\nversion = "0.1.0"\n[dependencies]\nserde = "1"\n',
    "src/main.rs": "fn main() {}\n",
  });
  await new Deno.Command("git", { args: ["-C", ws.root, "init", "-q", "-b", "main"] }).output();
  using server = startServer(ws.root);
  const result = await server.dispatcher.call("project_overview", {});
  assert.equal(result.isError, undefined, textOf(result));
  const parsed = ProjectOverviewOutput.safeParse(result.structuredContent);
  assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
  const out = parsed.data!;
  assert.equal(out.files, 3);
  assert.deepEqual(out.manifests.map((m) => [m.name, m.dependency_names]), [["served", ["serde"]]]);
  assert.equal(out.version_control?.branch, "main");
  assert.deepEqual(out.readme, { path: "README.md", heading: "Served" });
  assert.ok(out.entry_points.includes("src/main.rs"));
});
