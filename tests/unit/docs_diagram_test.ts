/**
 * `docs/architecture.svg`, the hand-written diagram of the two sandbox
 * layers and the result pipeline: well-formed XML, nothing in it that runs
 * or loads from elsewhere, and what it claims checked against the sources
 * it draws from. Every group marked `data-layer="X"` claims to show layer X:
 * X must be a row of ARCHITECTURE.md's Layers table and its name must be
 * visible in the group's text. The pipeline stages (`data-stage`) must run
 * in the order `src/content/pipeline.ts` states, and the tool workers'
 * "no …" line must list exactly what their grant denies.
 */

import assert from "node:assert/strict";
import { XMLValidator } from "fast-xml-parser";
import { REPO_ROOT } from "../../scripts/lib/program.ts";
import { toolWorkerPermissions } from "../../src/isolation/permissions.ts";

const SVG_PATH = "docs/architecture.svg";
const svg = Deno.readTextFileSync(`${REPO_ROOT}/${SVG_PATH}`);
const read = (path: string) => Deno.readTextFileSync(`${REPO_ROOT}/${path}`);

/** The layers of the request path: the diagram must show each of them. */
const REQUIRED_LAYERS = ["transport", "protocol", "isolation", "content", "tools", "access"];

/** The layer names in ARCHITECTURE.md's Layers table (`| **name** | …`). */
function architectureLayers(): Set<string> {
  const doc = read("ARCHITECTURE.md");
  const section = doc.slice(doc.indexOf("\n## Layers\n"), doc.indexOf("\n## Module map\n"));
  return new Set([...section.matchAll(/^\| \*\*([a-z]+)\*\* +\|/gm)].map((m) => m[1]));
}

/** Each `<g data-NAME="value">…</g>` (no nested groups in the diagram), with its visible text. */
function groups(attribute: string): Array<{ value: string; text: string }> {
  const out: Array<{ value: string; text: string }> = [];
  const pattern = new RegExp(`<g [^>]*\\b${attribute}="([^"]+)"[^>]*>([\\s\\S]*?)</g>`, "g");
  for (const [, value, body] of svg.matchAll(pattern)) {
    out.push({ value, text: body.replace(/<[^>]+>/g, "").replace(/\s+/g, " ").trim() });
  }
  return out;
}

Deno.test("diagram: docs/architecture.svg is well-formed SVG", () => {
  assert.equal(XMLValidator.validate(svg), true);
  assert.match(
    svg,
    /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" /,
  );
  assert.match(svg, /<title id="title">[^<]+<\/title>/, "a title for screen readers");
});

Deno.test("diagram: nothing in it runs or loads from elsewhere", () => {
  assert.doesNotMatch(svg, /<script/i);
  assert.doesNotMatch(svg, /<foreignObject/i);
  assert.doesNotMatch(svg, /\son[a-z]+\s*=/i, "event handler attributes");
  assert.doesNotMatch(svg, /@import|@font-face/i);
  for (const [, target] of svg.matchAll(/\bhref\s*=\s*"([^"]*)"/g)) {
    assert.ok(target.startsWith("#"), `an external reference: ${target}`);
  }
  for (const [, target] of svg.matchAll(/url\(\s*([^)]*)\)/g)) {
    assert.ok(target.startsWith("#"), `an external url(): ${target}`);
  }
  // The only address is the SVG namespace itself.
  const addresses = [...svg.matchAll(/\b[a-z]+:\/\/[^\s"'<>)]+/gi)].map((m) => m[0]);
  assert.deepEqual([...new Set(addresses)], ["http://www.w3.org/2000/svg"]);
  // Fonts are generic families only: nothing to fetch.
  for (const [, family] of svg.matchAll(/font-family:\s*([^;]+);/g)) {
    assert.ok(["sans-serif", "monospace", "serif"].includes(family.trim()), family);
  }
});

Deno.test("diagram: every layer it claims to show is a layer of ARCHITECTURE.md, named visibly", () => {
  const known = architectureLayers();
  assert.ok(known.size >= 10, `parsed only ${[...known]} from the Layers table`);
  const shown = groups("data-layer");
  assert.ok(shown.length > 0);
  for (const { value, text } of shown) {
    assert.ok(known.has(value), `the diagram claims layer "${value}", not in ARCHITECTURE.md`);
    assert.match(text, new RegExp(`\\b${value}\\b`), `layer ${value} is not named in its box`);
  }
  const claimed = new Set(shown.map((g) => g.value));
  for (const layer of REQUIRED_LAYERS) assert.ok(claimed.has(layer), `the diagram lacks ${layer}`);
});

Deno.test("diagram: both sandbox layers are drawn, containment inside the tool workers", () => {
  const layer1 = groups("data-sandbox-layer").filter((g) => g.value === "1");
  assert.equal(layer1.length, 1);
  assert.match(layer1[0].text, /^Layer 1: containment in code/);
  assert.match(svg, /<g data-sandbox-layer="2">[\s\S]*Layer 2: Deno's permission system/);
  // The tool workers' "no …" line is exactly the grant's denied permissions.
  const line = svg.match(/<text [^>]*id="tool-worker-denied"[^>]*>no ([a-z, ]+)<\/text>/);
  assert.ok(line, "no tool-worker-denied line");
  const denied = Object.entries(toolWorkerPermissions("/w"))
    .filter(([, grant]) => grant === false).map(([name]) => name);
  assert.deepEqual(line[1].split(", ").sort(), denied.sort());
  const granted = toolWorkerPermissions("/w");
  assert.deepEqual(granted.run, ["git"]);
  assert.match(svg, /read = the workspace only; run = git;/);
});

Deno.test("diagram: the pipeline stages run in the order the pipeline module states", () => {
  const stages = groups("data-stage").map((g) => g.value);
  assert.equal(stages[0], "tool");
  assert.equal(stages.at(-1), "client");
  const source = read("src/content/pipeline.ts");
  const order = source.match(/Order: ([^.]+)\./)?.[1];
  assert.ok(order, "src/content/pipeline.ts no longer states its order");
  const stated = order.replace(/\s*\*\s*/g, " ").split("→").map((step) =>
    step.trim().split(" ")[0]
  );
  assert.deepEqual(stages.slice(1, -1), stated);
});

Deno.test("diagram: README.md and ARCHITECTURE.md show it", () => {
  assert.match(read("README.md"), /\]\(docs\/architecture\.svg\)/);
  assert.match(read("ARCHITECTURE.md"), /\]\(docs\/architecture\.svg\)/);
});
