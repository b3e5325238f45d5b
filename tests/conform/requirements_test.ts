/**
 * The requirements are data, and the data is complete: ids in order, one
 * check per requirement and one requirement per check, every source a page
 * of the 2026-07-28 specification (or JSON-RPC 2.0) with its section, and
 * docs/conformance.md saying exactly what the data says.
 */

import assert from "node:assert/strict";
import { CHECKS } from "../../src/conform/checks.ts";
import { REQUIREMENTS } from "../../src/conform/requirements.ts";
import { REPO_ROOT } from "../helpers/program.ts";

Deno.test("requirements: at least 30, numbered C001… in order without gaps", () => {
  assert.ok(REQUIREMENTS.length >= 30, `${REQUIREMENTS.length} requirements`);
  REQUIREMENTS.forEach((r, i) => assert.equal(r.id, `C${String(i + 1).padStart(3, "0")}`));
});

Deno.test("requirements: every requirement has a check and every check a requirement", () => {
  const ids = REQUIREMENTS.map((r) => r.id);
  assert.deepEqual(ids.filter((id) => !(id in CHECKS)), [], "requirements without a check");
  assert.deepEqual(
    Object.keys(CHECKS).filter((id) => !ids.includes(id)),
    [],
    "checks that cite no requirement",
  );
});

Deno.test("requirements: every source is a specification page with its section", () => {
  for (const r of REQUIREMENTS) {
    const url = new URL(r.source);
    const spec = url.href.startsWith("https://modelcontextprotocol.io/specification/2026-07-28/") ||
      url.href.startsWith("https://www.jsonrpc.org/specification#");
    assert.ok(spec, `${r.id}: ${r.source}`);
    // A section anchor, or a note saying where on the page the rule stands.
    assert.ok(url.hash.length > 1 || /before its first section/.test(r.note ?? ""), r.id);
    assert.ok(r.title.length > 0 && r.behaviour.length > 20, r.id);
    assert.ok(["MUST", "SHOULD"].includes(r.level), r.id);
  }
});

Deno.test("requirements: docs/conformance.md lists every check as the data states it", () => {
  const doc = Deno.readTextFileSync(`${REPO_ROOT}/docs/conformance.md`).replace(/\n {2}/g, " ");
  const headings = [...doc.matchAll(/^### (C\d{3}) · /gm)].map((m) => m[1]);
  assert.deepEqual(headings, REQUIREMENTS.map((r) => r.id));
  for (const r of REQUIREMENTS) {
    const start = doc.indexOf(`### ${r.id} · `);
    const end = doc.indexOf("\n### ", start + 1);
    const section = doc.slice(start, end < 0 ? undefined : end);
    assert.ok(
      section.startsWith(`### ${r.id} · ${r.level} · ${r.title}\n`),
      section.split("\n")[0],
    );
    assert.ok(section.includes(`- Source: <${r.source}>`), `${r.id} source`);
    assert.ok(section.includes(`- Scope: ${r.scope}`), `${r.id} scope`);
    assert.ok(section.includes(`- Checks: ${r.behaviour}`), `${r.id} behaviour`);
    if (r.note) assert.ok(section.includes(`- Note: ${r.note}`), `${r.id} note`);
  }
});
