/**
 * The checker against the official reference servers (pinned in deno.json,
 * 2025 era, built on the SDK v1): a correct, non-crashing verdict that says
 * legacy-only, and the same findings each time.
 */

import assert from "node:assert/strict";
import { runConformance } from "../../src/conform/runner.ts";
import { spawnTarget } from "../../src/conform/target.ts";
import { makeWorkspace } from "../helpers/fixtures.ts";
import { REPO_ROOT } from "../helpers/program.ts";

const QUICK = { requestTimeoutMs: 3_000, stalledTimeoutMs: 500 };

function reference(name: string, ...args: string[]): string[] {
  const denoJson = JSON.parse(Deno.readTextFileSync(`${REPO_ROOT}/deno.json`));
  const specifier: string = denoJson.imports[`@modelcontextprotocol/${name}`];
  assert.match(specifier, /^npm:@modelcontextprotocol\/server-[a-z]+@\d+\.\d+\.\d+$/);
  return [
    Deno.execPath(),
    "run",
    "--quiet",
    "--frozen",
    "--allow-read",
    "--allow-env",
    specifier,
    ...args,
  ];
}

/** What the SDK v1 servers get wrong by the 2026-07-28 text, as the checker reports it. */
const SDK_V1_FAILURES = ["C001", "C013", "C014", "C027", "C028"];

async function judge(argv: string[]) {
  const report = await runConformance(spawnTarget(argv, REPO_ROOT), { timings: QUICK });
  assert.equal(report.connectionError, undefined, report.stderrTail);
  assert.equal(report.era, "legacy");
  assert.equal(report.conformant, false);
  const byId = new Map(report.results.map((r) => [r.id, r]));
  assert.match(byId.get("C001")!.detail, /legacy-only \(2025 era\)/);
  assert.match(byId.get("C041")!.detail, /^served as 2025 era, protocolVersion 2025-11-25$/);
  assert.equal(byId.get("C002")!.status, "n/a");
  assert.equal(byId.get("C021")!.status, "ok", byId.get("C021")!.detail);
  assert.equal(byId.get("C043")!.status, "ok", "it exits when stdin closes");
  assert.match(byId.get("C028")!.detail, /got result .*"isError":true/);
  return report;
}

Deno.test("conform vs @modelcontextprotocol/server-everything: legacy-only, SDK v1 findings", async () => {
  const report = await judge(reference("server-everything", "stdio"));
  assert.deepEqual(
    report.results.filter((r) => r.status === "fail").map((r) => r.id),
    SDK_V1_FAILURES,
  );
  assert.equal(report.results.find((r) => r.id === "C029")!.status, "ok");
});

Deno.test("conform vs @modelcontextprotocol/server-filesystem: legacy-only, SDK v1 findings", async () => {
  await using ws = await makeWorkspace({ "a.txt": "one\n", "dir/b.txt": "b\n" });
  const report = await judge(reference("server-filesystem", ws.root));
  assert.deepEqual(
    report.results.filter((r) => r.status === "fail").map((r) => r.id),
    SDK_V1_FAILURES,
  );
  const c031 = report.results.find((r) => r.id === "C031")!;
  assert.equal(c031.status, "ok", c031.detail);
});
