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
  return packages;
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
