/**
 * Proven able to fail: the checker against this server in-process, behind
 * the mutating proxy. Unmutated (with the baseline correction for finding
 * C027) every check is ok or n/a; each mutation turns exactly the checks it
 * names red. A gate test requires a mutation for every check.
 */

import assert from "node:assert/strict";
import { connectInProcess } from "../../src/cli/conform.ts";
import { CHECKS } from "../../src/conform/checks.ts";
import { REQUIREMENTS } from "../../src/conform/requirements.ts";
import { type ConformanceReport, runConformance } from "../../src/conform/runner.ts";
import { configFor, makeWorkspace, startServer } from "../helpers/fixtures.ts";
import { HTTP_MUTATIONS } from "./http_mutations.ts";
import { BASELINE, chain, type Hooks, mutatingProxy, MUTATIONS } from "./mutations.ts";

const TIMINGS = { requestTimeoutMs: 3_000, stalledTimeoutMs: 500 };

function failing(report: ConformanceReport): string[] {
  return report.results.filter((r) => r.status === "fail").map((r) => r.id);
}

function explain(report: ConformanceReport): string {
  return report.results.filter((r) => r.status === "fail").map((r) => `${r.id}: ${r.detail}`)
    .join("\n");
}

Deno.test("conform gate: every check has a mutation (stdio or HTTP) and every mutation names real checks", () => {
  const broken = new Set([...MUTATIONS, ...HTTP_MUTATIONS].flatMap((m) => m.breaks));
  const unproven = REQUIREMENTS.map((r) => r.id).filter((id) => !broken.has(id));
  assert.deepEqual(unproven, [], "checks no mutation turns red");
  for (const m of [...MUTATIONS, ...HTTP_MUTATIONS]) {
    for (const id of m.breaks) assert.ok(id in CHECKS, `${m.name} names unknown check ${id}`);
  }
});

Deno.test("conform mutations: each turns exactly its checks red", async (t) => {
  await using ws = await makeWorkspace({ "a.txt": "one\n", "dir/b.txt": "b\n" });
  using server = startServer(ws.root);
  await server.sandbox.ready;
  const config = configFor(ws.root);
  const run = async (hooks: Hooks) => {
    const { target, close } = connectInProcess(server, config);
    try {
      return await runConformance(mutatingProxy(target, hooks), { timings: TIMINGS });
    } finally {
      close();
    }
  };

  await t.step(
    "the server as it is fails no check (C027, bogus cursors accepted, was fixed)",
    async () => {
      const report = await run({});
      assert.deepEqual(failing(report), [], explain(report));
    },
  );

  await t.step("unmutated, through the proxy, every check is ok or n/a", async () => {
    const report = await run(BASELINE);
    assert.deepEqual(failing(report), [], explain(report));
    assert.ok(report.conformant);
    assert.ok(report.results.filter((r) => r.status === "ok").length >= 38);
  });

  for (const mutation of MUTATIONS) {
    await t.step(mutation.name, async () => {
      const hooks = mutation.breaks.includes("C027")
        ? mutation.hooks()
        : chain(mutation.hooks(), BASELINE);
      const report = await run(hooks);
      assert.deepEqual(failing(report), [...mutation.breaks].sort(), explain(report));
    });
  }
});
