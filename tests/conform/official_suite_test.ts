/**
 * The official `@modelcontextprotocol/conformance` suite (pinned in
 * deno.json, run under Deno) against devserver's real HTTP transport, each
 * scenario that applies to a tools-only server, with
 * conformance/expected-failures.yaml; and our own checker against the same
 * process, so that where both judge one behaviour they agree. The
 * documented disagreement (the suite's `caching` scenario, its issue #516)
 * is asserted as documented, so a change on either side is noticed.
 *
 * The adversarial half: a proxy that defeats the DNS-rebinding defence (it
 * rewrites `Host` to loopback and strips `Origin`) must turn both the
 * suite's rebinding check and our C049 red.
 */

import assert from "node:assert/strict";
import {
  EXPECTED_FAILURES,
  expectedFailureEntries,
  OFFICIAL_SCENARIOS,
  type OfficialCheck,
  runOfficialScenario,
} from "../../scripts/lib/official_conformance.ts";
import { startHttpInstance } from "../../scripts/lib/http_instance.ts";
import { runHttpConformance } from "../../src/conform/runner.ts";
import { makeWorkspace } from "../helpers/fixtures.ts";

/**
 * Official check id → our checks judging the same behaviour. Both sides
 * must give the same verdict (official SUCCESS ⇔ all ours ok).
 */
export const SAME_BEHAVIOUR: Readonly<Record<string, readonly string[]>> = {
  "sep-2575-server-implements-discover": ["C001"],
  "sep-2575-request-meta-invalid-missing-client-capabilities": ["C007"],
  "sep-2575-http-server-meta-invalid-400": ["C054"],
  "sep-2575-server-identifies-in-result-meta": ["C036"],
  "sep-2575-server-unsupported-version-error": ["C010"],
  "sep-2575-http-server-unsupported-version-400": ["C048"],
  "sep-2575-http-server-header-mismatch-400": ["C047"],
  "sep-2575-http-server-method-not-found-404": ["C046"],
  "sep-2243-server-reject-invalid-headers": ["C050", "C051", "C052"],
  "sep-2243-server-reject-error-code": ["C050", "C051", "C052"],
  "sep-2549-tools-list-caching-hints": ["C025"],
  "tools-list": ["C021"],
  "tools-name-format": ["C022"],
  "tools-list-deterministic-order": ["C033"],
  "localhost-host-rebinding-rejected": ["C049"],
};

/** Where the suite contradicts the specification: its verdict, ours (docs/conformance.md). */
export const DISAGREEMENTS: Readonly<Record<string, { official: string; ours: string[] }>> = {
  "sep-2549-prompts-list-caching-hints": { official: "FAILURE", ours: ["C020"] },
  "sep-2549-resources-list-caching-hints": { official: "FAILURE", ours: ["C020"] },
};

/** One verdict per check id: FAILURE if any instance of it failed. */
function verdicts(checks: OfficialCheck[]): Map<string, string> {
  const byId = new Map<string, string>();
  for (const check of checks) {
    const before = byId.get(check.id);
    if (before === undefined || check.status === "FAILURE") byId.set(check.id, check.status);
  }
  return byId;
}

Deno.test("official suite: every expected failure names scenario:check and gives its reason", async () => {
  const entries = expectedFailureEntries(await Deno.readTextFile(EXPECTED_FAILURES));
  assert.ok(entries.length > 0);
  for (const { entry, reason } of entries) {
    const [scenario, check] = entry.split(":");
    assert.ok(check, `${entry}: not scenario:check-id`);
    assert.ok(
      (OFFICIAL_SCENARIOS as readonly string[]).includes(scenario),
      `${entry}: not a scenario we run`,
    );
    assert.ok(reason.length >= 30, `${entry}: no reason`);
    // Only the two allowed kinds: a fixture a production server does not publish, or #516.
    assert.match(reason, /needs the (diagnostic|fixture) tool|#516/, `${entry}: ${reason}`);
  }
});

Deno.test({
  name:
    "official suite: the tools-only scenarios pass against the real HTTP transport, and agree with ours",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using ws = await makeWorkspace({ "src/a.ts": "export const a = 1;\n" });
    await using server = await startHttpInstance(ws.root);
    const runs = await Promise.all(
      OFFICIAL_SCENARIOS.map((scenario) => runOfficialScenario(server.url, scenario)),
    );
    for (const run of runs) {
      assert.ok(run.checks.length > 0, `${run.scenario} reported no checks:\n${run.output}`);
      assert.equal(run.code, 0, `${run.scenario}: unexpected or stale failures:\n${run.output}`);
    }
    const official = verdicts(runs.flatMap((r) => r.checks));
    const ours = await runHttpConformance({ url: server.url, headers: {} });
    assert.equal(
      ours.conformant,
      true,
      JSON.stringify(ours.results.filter((r) => r.status !== "ok")),
    );
    const status = new Map(ours.results.map((r) => [r.id, r.status]));
    for (const [id, mine] of Object.entries(SAME_BEHAVIOUR)) {
      const theirs = official.get(id);
      assert.ok(theirs !== undefined, `the suite ran no check ${id}`);
      const oursOk = mine.every((c) => status.get(c) === "ok");
      assert.equal(theirs === "SUCCESS", oursOk, `${id}=${theirs} but ${mine.join(",")} ${oursOk}`);
    }
    for (const [id, { official: theirs, ours: mine }] of Object.entries(DISAGREEMENTS)) {
      assert.equal(official.get(id), theirs, `${id}: the documented disagreement changed`);
      for (const c of mine) assert.equal(status.get(c), "ok", `${c} no longer passes`);
    }
  },
});

Deno.test({
  name:
    "official suite attack: a proxy defeating the Host/Origin check turns the suite's rebinding check and our C049 red",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using ws = await makeWorkspace({ "src/a.ts": "export const a = 1;\n" });
    await using server = await startHttpInstance(ws.root);
    const upstream = new URL(server.url);
    // DNS rebinding made easy: whatever Host and Origin the browser sent, the server sees loopback.
    const proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
      const headers = new Headers(request.headers);
      headers.set("host", upstream.host);
      headers.delete("origin");
      return fetch(new URL(new URL(request.url).pathname, upstream), {
        method: request.method,
        headers,
        body: request.body,
      });
    });
    try {
      const url = `http://127.0.0.1:${proxy.addr.port}/mcp`;
      const run = await runOfficialScenario(url, "dns-rebinding-protection");
      assert.equal(verdicts(run.checks).get("localhost-host-rebinding-rejected"), "FAILURE");
      assert.notEqual(run.code, 0);
      const ours = await runHttpConformance({ url, headers: {} }, { only: ["C049"] });
      assert.equal(ours.results.find((r) => r.id === "C049")?.status, "fail");
      assert.equal(ours.conformant, false);
    } finally {
      await proxy.shutdown();
    }
  },
});
