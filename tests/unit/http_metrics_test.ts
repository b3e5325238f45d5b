/**
 * The Prometheus text of HTTP mode: counters and the latency histogram add
 * up, and a client cannot add series by sending methods, tools or codes of
 * its own (each becomes `other`), nor break the format with quotes.
 */

import assert from "node:assert/strict";
import { HttpMetrics, LATENCY_BUCKETS } from "../../src/transport/http_metrics.ts";

function metrics(): HttpMetrics {
  return new HttpMetrics({
    methods: ["tools/call", "tools/list"],
    tools: ["read_file"],
    refusalCodes: ["not_found"],
    workerRestarts: () => 3,
  });
}

Deno.test("metrics: requests, latency buckets, refusals, saturation and restarts are rendered", () => {
  const m = metrics();
  m.countRequest({ method: "tools/call", tool: "read_file", outcome: "ok", durationMs: 30 });
  m.countRequest({ method: "tools/call", tool: "read_file", outcome: "ok", durationMs: 3000 });
  m.countRequest({ method: "tools/list", outcome: "ok", durationMs: 1 });
  m.countRequest({ outcome: "refused", errorCode: "invalid_host", durationMs: 0.1 });
  m.countRefusal("not_found");
  m.countSaturated();
  const text = m.render();
  assert.match(text, /^devserver_http_requests_total\{method="tools\/call",outcome="ok"\} 2$/m);
  assert.match(text, /^devserver_http_requests_total\{method="none",outcome="refused"\} 1$/m);
  assert.match(
    text,
    /^devserver_tool_call_duration_seconds_bucket\{tool="read_file",le="0\.05"\} 1$/m,
  );
  assert.match(text, /^devserver_tool_call_duration_seconds_bucket\{tool="read_file",le="5"\} 2$/m);
  assert.match(
    text,
    /^devserver_tool_call_duration_seconds_bucket\{tool="read_file",le="\+Inf"\} 2$/m,
  );
  assert.match(text, /^devserver_tool_call_duration_seconds_sum\{tool="read_file"\} 3\.03$/m);
  assert.match(text, /^devserver_tool_refusals_total\{code="not_found"\} 1$/m);
  assert.match(text, /^devserver_http_saturated_total 1$/m);
  assert.match(text, /^devserver_worker_restarts_total 3$/m);
  // Buckets are cumulative and ordered.
  assert.deepEqual([...LATENCY_BUCKETS].sort((a, b) => a - b), [...LATENCY_BUCKETS]);
});

Deno.test("attack: client-chosen methods, tools, outcomes and codes cannot add series or break the format", () => {
  const m = metrics();
  for (let i = 0; i < 100; i++) {
    m.countRequest({
      method: `evil/${i}"} 1\n# injected`,
      tool: `tool${i}`,
      outcome: 'x"} 9',
      durationMs: 1,
    });
    m.countRequest({ method: "tools/call", tool: `tool"${i}`, outcome: "ok", durationMs: 1 });
    m.countRefusal(`code${i}"`);
  }
  const text = m.render();
  assert.ok(!text.includes("evil") && !text.includes("injected") && !text.includes("tool1"));
  assert.match(text, /^devserver_http_requests_total\{method="other",outcome="other"\} 100$/m);
  assert.match(text, /^devserver_tool_call_duration_seconds_count\{tool="other"\} 100$/m);
  assert.match(text, /^devserver_tool_refusals_total\{code="other"\} 100$/m);
  const series = text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
  assert.ok(series.length < 30, `${series.length} series`);
});
