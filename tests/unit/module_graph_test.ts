/**
 * What each thread loads before its first call (ADR-108): every module a thread imports
 * statically is compiled into its heap, and the program runs four isolates (the main thread,
 * the supervisor and two tool workers). Parsers a thread needs only for some calls are
 * imported when those calls come: the manifest parsers for `project_overview`, the
 * conformance checker (and `ajv`) for `conform`, `jsonc-parser` for `setup`. The static
 * graphs are read from `deno info --json`, following only static imports, so a new static
 * import of one of them (anywhere below these roots) fails here.
 */

import assert from "node:assert/strict";
import { REPO_ROOT } from "../../scripts/lib/program.ts";

interface InfoModule {
  specifier: string;
  kind?: string;
  npmPackage?: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

/** The npm packages (names without versions) `root` reaches through static imports alone. */
async function staticNpmPackages(root: string): Promise<Set<string>> {
  return (await staticGraph(root)).packages;
}

/** The npm packages and the local modules (`file:` specifiers) `root` reaches statically. */
async function staticGraph(root: string): Promise<{ packages: Set<string>; files: Set<string> }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", `${REPO_ROOT}/deno.json`, `${REPO_ROOT}/${root}`],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: InfoModule[];
    redirects: Record<string, string>;
  };
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const packages = new Set<string>();
  const stack = [...info.roots];
  while (stack.length > 0) {
    const at = stack.pop()!;
    const specifier = info.redirects[at] ?? at;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    const module = modules.get(specifier);
    if (module === undefined) continue;
    if (module.kind === "npm" && module.npmPackage) {
      packages.add(module.npmPackage.slice(0, module.npmPackage.lastIndexOf("@")));
      continue;
    }
    for (const dep of module.dependencies ?? []) {
      if (!dep.isDynamic && dep.code) stack.push(dep.code.specifier);
    }
  }
  assert.ok(seen.size > 20, `only ${seen.size} modules: the graph was not read`);
  const files = new Set([...seen].filter((s) => s.startsWith("file:")));
  return { packages, files };
}

const ON_DEMAND = ["jsonc-parser", "smol-toml", "fast-xml-parser", "ajv", "ajv-formats"];

Deno.test("a tool worker loads no parser it needs only for some tools (ADR-108)", async () => {
  const packages = await staticNpmPackages("src/tool_worker.ts");
  assert.ok(packages.has("zod"), `zod is a static import (output schemas): ${[...packages]}`);
  for (const name of ON_DEMAND) {
    assert.ok(!packages.has(name), `the tool worker imports ${name} statically`);
  }
});

Deno.test("the main thread loads neither the manifest parsers, nor conform's checker, nor setup's parser (ADR-108)", async () => {
  const packages = await staticNpmPackages("src/cli/main.ts");
  assert.ok(packages.has("@modelcontextprotocol/server"), [...packages].join(", "));
  for (const name of ON_DEMAND) {
    assert.ok(!packages.has(name), `the main thread imports ${name} statically`);
  }
});

/** Handler modules the tool workers run and the main thread never does (ADR-117). */
const HANDLERS = [
  "src/tools/search_code.ts",
  "src/tools/search_matcher.ts",
  "src/tools/search_share.ts",
  "src/tools/find_symbol.ts",
  "src/tools/literal_prefilter.ts",
  "src/tools/wasm_encoder.ts",
];

Deno.test("the main thread loads search_code's and find_symbol's specs, not their handlers (ADR-117)", async () => {
  const main = await staticGraph("src/cli/main.ts");
  const worker = await staticGraph("src/tool_worker.ts");
  for (const spec of ["search_code_spec.ts", "find_symbol_spec.ts"]) {
    assert.ok(main.files.has(`file://${REPO_ROOT}/src/tools/${spec}`), `no ${spec} on main`);
  }
  // The worker does load them: the list names real modules, so its absence from main is news.
  for (const path of HANDLERS.slice(0, 4)) {
    assert.ok(worker.files.has(`file://${REPO_ROOT}/${path}`), `the tool worker lacks ${path}`);
  }
  for (const path of HANDLERS) {
    assert.ok(!main.files.has(`file://${REPO_ROOT}/${path}`), `the main thread imports ${path}`);
  }
});
