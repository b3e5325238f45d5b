/**
 * The checker against the official reference servers (pinned in deno.json,
 * 2025 era, built on the SDK v1): a correct, non-crashing verdict that says
 * legacy-only, and the same findings each time.
 */

import assert from "node:assert/strict";
import { runConformance, runHttpConformance } from "../../src/conform/runner.ts";
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

Deno.test("conform --http vs server-everything's Streamable HTTP: legacy-only, its session followed", async () => {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const child = new Deno.Command(reference("server-everything", "streamableHttp")[0], {
    args: [
      ...reference("server-everything", "streamableHttp").slice(1, 5),
      "--allow-net",
      ...reference("server-everything", "streamableHttp").slice(5),
    ],
    cwd: REPO_ROOT,
    env: { PORT: String(port) },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    // Ready when the port answers anything (at most 30 s).
    for (let i = 0; i < 150; i++) {
      const up = await fetch(`http://127.0.0.1:${port}/`).then(async (r) => {
        await r.body?.cancel();
        return true;
      }, () => false);
      if (up) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const report = await runHttpConformance({ url: `http://127.0.0.1:${port}/mcp`, headers: {} }, {
      timings: QUICK,
    });
    assert.equal(report.connectionError, undefined);
    assert.equal(report.transport, "http");
    assert.equal(report.era, "legacy");
    const byId = new Map(report.results.map((r) => [r.id, r]));
    assert.match(byId.get("C001")!.detail, /legacy-only \(2025 era\)/);
    // The 2025 session (Mcp-Session-Id from initialize) carries the transport-independent checks.
    assert.equal(byId.get("C021")!.status, "ok", byId.get("C021")!.detail);
    assert.equal(byId.get("C013")!.status, "ok", byId.get("C013")!.detail);
    // The 2026-07-28 HTTP rules are not met by a 2025-era endpoint.
    assert.equal(byId.get("C044")!.status, "fail");
    assert.match(byId.get("C053")!.detail, /GET: HTTP 400/);
    assert.equal(report.conformant, false);
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
});
