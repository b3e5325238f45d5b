/**
 * The checker over HTTP: against the correct fixture endpoint (the SDK's
 * HTTP handler over this server's factory) and behind each HTTP mutation,
 * which must turn exactly its checks red. C027 (bogus cursors accepted) is
 * this server's finding over either transport and is expected red here; its
 * own mutation is proven over stdio.
 */

import assert from "node:assert/strict";
import { type ConformanceReport, runHttpConformance } from "../../src/conform/runner.ts";
import { makeWorkspace, startServer } from "../helpers/fixtures.ts";
import { serveHttpFixture } from "./http_fixture.ts";
import { HTTP_MUTATIONS } from "./http_mutations.ts";

const TIMINGS = { requestTimeoutMs: 3_000, stalledTimeoutMs: 500 };
const FINDINGS: string[] = [];

function failing(report: ConformanceReport): string[] {
  return report.results.filter((r) => r.status === "fail").map((r) => r.id);
}

function explain(report: ConformanceReport): string {
  return report.results.filter((r) => r.status === "fail").map((r) => `${r.id}: ${r.detail}`)
    .join("\n");
}

Deno.test("conform over HTTP: the fixture is green; each mutation turns its checks red", async (t) => {
  await using ws = await makeWorkspace({ "a.txt": "one\n", "dir/b.txt": "b\n" });
  using server = startServer(ws.root);
  await server.sandbox.ready;
  const run = async (mutate?: Parameters<typeof serveHttpFixture>[1]) => {
    const endpoint = serveHttpFixture(server, mutate);
    try {
      return await runHttpConformance({ url: endpoint.url, headers: {} }, { timings: TIMINGS });
    } finally {
      await endpoint.close();
    }
  };

  await t.step("unmutated", async () => {
    const report = await run();
    assert.equal(report.transport, "http");
    assert.deepEqual(failing(report), FINDINGS, explain(report));
    const http = report.results.filter((r) => Number(r.id.slice(1)) >= 44);
    assert.ok(http.length >= 11 && http.every((r) => r.status === "ok"), explain(report));
    for (const id of ["C039", "C040", "C043"]) {
      assert.equal(report.results.find((r) => r.id === id)!.status, "n/a", id);
    }
  });

  for (const mutation of HTTP_MUTATIONS) {
    await t.step(mutation.name, async () => {
      const report = await run(mutation.mutate);
      assert.deepEqual(failing(report), [...FINDINGS, ...mutation.breaks].sort(), explain(report));
    });
  }
});

Deno.test("conform over HTTP: --header and --token reach the endpoint; a dead URL is a connection error", async () => {
  const seen: Array<string | null> = [];
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    seen.push(request.headers.get("authorization"), request.headers.get("x-team"));
    return new Response("nope", { status: 500 });
  });
  const { httpEndpoint } = await import("../../src/cli/conform.ts");
  const endpoint = httpEndpoint(`http://127.0.0.1:${http.addr.port}/mcp`, ["X-Team: blue"], "t0k");
  const report = await runHttpConformance(endpoint, { timings: TIMINGS });
  await http.shutdown();
  assert.deepEqual(seen.slice(0, 2), ["Bearer t0k", "blue"]);
  assert.match(report.connectionError ?? "", /answered nothing/);
  assert.throws(() => httpEndpoint("ftp://x", [], undefined), /not an http\(s\) URL/);
  assert.throws(() => httpEndpoint("http://x", ["no colon"], undefined), /NAME:VALUE/);
});
