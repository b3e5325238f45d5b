/**
 * The import graph under `src/`: no cycles, and no edge the architecture
 * forbids. Modelled on Deno std's `_tools/check_circular_package_dependencies.ts`:
 * the layers and their allowed directions are data here, and ARCHITECTURE.md's
 * module map is checked to state the same table.
 *
 * @module
 */

import assert from "node:assert/strict";
import { relative } from "node:path";
import { REPO_ROOT } from "../helpers/program.ts";

/** A layer: the files it holds, and the layers it may import from. */
interface Layer {
  readonly name: string;
  /** Path prefixes under the repository (a folder ends with `/`). */
  readonly members: readonly string[];
  readonly mayImport: readonly string[];
}

/** The layers, bottom up. A layer may always import from itself (acyclically). */
export const LAYERS: readonly Layer[] = [
  { name: "contract", members: ["src/contract/"], mayImport: [] },
  { name: "secrets", members: ["src/secrets/"], mayImport: [] },
  { name: "base", members: ["src/log.ts", "src/version.ts", "src/paths.ts"], mayImport: [] },
  { name: "access", members: ["src/access/"], mayImport: ["contract", "base"] },
  { name: "config", members: ["src/config/"], mayImport: ["contract", "base", "access"] },
  // Parsers and definition extractors: pure functions over (path, text), ADR-031.
  { name: "symbols", members: ["src/symbols/"], mayImport: ["contract", "base"] },
  {
    name: "tools",
    members: ["src/tools/"],
    mayImport: ["contract", "secrets", "base", "access", "symbols"],
  },
  { name: "isolation", members: ["src/isolation/"], mayImport: ["contract", "base"] },
  { name: "content", members: ["src/content/"], mayImport: ["contract", "secrets"] },
  {
    name: "protocol",
    members: ["src/protocol/"],
    mayImport: ["contract", "secrets", "base", "content", "tools", "isolation"],
  },
  { name: "transport", members: ["src/transport/"], mayImport: ["contract", "base"] },
  // The conformance checker judges any server: it never sees this one's internals.
  { name: "conform", members: ["src/conform/"], mayImport: ["base"] },
  {
    name: "app",
    members: ["src/app.ts", "src/tool_worker.ts"],
    mayImport: [
      "contract",
      "secrets",
      "base",
      "config",
      "access",
      "symbols",
      "tools",
      "isolation",
      "content",
      "protocol",
      "transport",
    ],
  },
  {
    name: "cli",
    members: ["src/cli/"],
    mayImport: [
      "contract",
      "secrets",
      "base",
      "config",
      "access",
      "symbols",
      "tools",
      "isolation",
      "content",
      "protocol",
      "transport",
      "conform",
      "app",
    ],
  },
];

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']/g;
const SIDE_EFFECT_IMPORT = /(?:^|\n)\s*import\s+["']([^"']+)["']/g;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;
const WORKER_URL = /new URL\(\s*["'](\.[^"']+\.ts)["']\s*,\s*import\.meta\.url\s*\)/g;

/** Every project module under `src/` and the project modules it imports (by repository path). */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(`${REPO_ROOT}/${dir}`)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (entry.name.endsWith(".ts")) graph.set(path, importsOf(path));
    }
  };
  walk("src");
  return graph;
}

function importsOf(path: string): string[] {
  const source = Deno.readTextFileSync(`${REPO_ROOT}/${path}`);
  const specifiers = [IMPORT, SIDE_EFFECT_IMPORT, DYNAMIC_IMPORT, WORKER_URL].flatMap((re) =>
    [...source.matchAll(re)].map((m) => m[1])
  );
  const dir = path.slice(0, path.lastIndexOf("/"));
  return [
    ...new Set(
      specifiers.filter((s) => s.startsWith("."))
        .map((s) => relative(REPO_ROOT, `${REPO_ROOT}/${dir}/${s}`)),
    ),
  ];
}

/** The layer a module belongs to, or undefined. */
export function layerOf(path: string): Layer | undefined {
  return LAYERS.find((layer) =>
    layer.members.some((m) => m.endsWith("/") ? path.startsWith(m) : path === m)
  );
}

/** Every cycle's members (strongly connected components of more than one module, or self-loops). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string) => {
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indices.get(w)!));
      }
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!indices.has(v)) connect(v);
  return found;
}

Deno.test("layers: every module under src/ belongs to exactly one layer", () => {
  for (const path of importGraph().keys()) {
    const owners = LAYERS.filter((layer) =>
      layer.members.some((m) => m.endsWith("/") ? path.startsWith(m) : path === m)
    );
    assert.equal(owners.length, 1, `${path} belongs to ${owners.map((l) => l.name)}`);
  }
});

Deno.test("layers: every import resolves to a module that exists", () => {
  const graph = importGraph();
  for (const [from, targets] of graph) {
    for (const to of targets) {
      if (to.startsWith("src/")) assert.ok(graph.has(to), `${from} imports missing ${to}`);
    }
  }
});

Deno.test("layers: the import graph under src/ has no cycles", () => {
  assert.deepEqual(cycles(importGraph()), []);
});

Deno.test("layers: no import runs against the allowed directions", () => {
  const violations: string[] = [];
  for (const [from, targets] of importGraph()) {
    const source = layerOf(from)!;
    for (const to of targets) {
      if (!to.startsWith("src/")) {
        violations.push(`${from} → ${to} (outside src/)`);
        continue;
      }
      const target = layerOf(to);
      if (!target || target === source) continue;
      if (!source.mayImport.includes(target.name)) {
        violations.push(`${from} (${source.name}) → ${to} (${target.name})`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

Deno.test("layers: the checker finds a planted cycle and a planted forbidden edge", () => {
  const planted = new Map([
    ["src/contract/a.ts", ["src/contract/b.ts"]],
    ["src/contract/b.ts", ["src/contract/a.ts"]],
    ["src/content/c.ts", []],
  ]);
  assert.deepEqual(cycles(planted), [["src/contract/a.ts", "src/contract/b.ts"]]);
  assert.ok(!layerOf("src/content/pipeline.ts")!.mayImport.includes("tools"));
  assert.ok(!layerOf("src/isolation/sandbox.ts")!.mayImport.includes("tools"));
  assert.ok(!layerOf("src/access/workspace.ts")!.mayImport.includes("tools"));
  for (const internal of ["contract", "tools", "isolation", "content", "protocol", "transport"]) {
    assert.ok(!layerOf("src/conform/checks.ts")!.mayImport.includes(internal), internal);
  }
});

Deno.test("layers: ARCHITECTURE.md's module map states the same layers and directions", () => {
  const doc = Deno.readTextFileSync(`${REPO_ROOT}/ARCHITECTURE.md`);
  for (const layer of LAYERS) {
    const row = new RegExp(
      `^\\| \\*\\*${layer.name}\\*\\* +\\|[^\\n]*\\|\\s*${
        layer.mayImport.length ? layer.mayImport.join(", ") : "nothing"
      }\\s*\\|$`,
      "m",
    );
    assert.match(doc, row, `ARCHITECTURE.md needs the row for layer ${layer.name}`);
  }
});
