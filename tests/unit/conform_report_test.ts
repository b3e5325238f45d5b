import assert from "node:assert/strict";
import { formatJson, formatJunit, formatTable, visible } from "../../src/conform/report.ts";
import type { ConformanceReport } from "../../src/conform/runner.ts";

const base: ConformanceReport = {
  target: "srv\x1b[31m",
  transport: "stdio",
  era: "modern",
  strict: false,
  conformant: false,
  stderrTail: "",
  results: [
    {
      id: "C001",
      level: "MUST",
      title: "t1",
      source: "https://x/#a",
      status: "fail",
      detail: 'bad \u202e<b>&"',
      ms: 12,
    },
    {
      id: "C002",
      level: "SHOULD",
      title: "t2",
      source: "https://x/#b",
      status: "n/a",
      detail: "none",
      ms: 1,
    },
    {
      id: "C003",
      level: "MUST",
      title: "t3",
      source: "https://x/#c",
      status: "ok",
      detail: "fine",
      ms: 0,
    },
  ],
};

Deno.test("conform report: control and bidi characters from the target are shown escaped", () => {
  assert.equal(visible("a\x1b[0m\u202eb\nc\u0085"), "a\\x1b[0m\\u202eb\\nc\\x85");
  const table = formatTable(base);
  assert.ok(!table.includes("\x1b") && !table.includes("\u202e"));
  assert.match(table, /^target: srv\\x1b\[31m \(stdio\)$/m);
  assert.match(table, /^FAIL {2}C001 MUST {3}t1\n {6}bad \\u202e<b>&"\n {6}https:\/\/x\/#a$/m);
  assert.match(table, /^n\/a {3}C002 SHOULD t2$/m);
  assert.match(table, /\nnot conformant: 1 MUST and 0 SHOULD check\(s\) failed$/);
});

Deno.test("conform report: JSON carries the verdict; JUnit marks failures, skips and escapes", () => {
  const json = JSON.parse(formatJson(base));
  assert.equal(json.verdict, "not conformant: 1 MUST and 0 SHOULD check(s) failed");
  assert.equal(json.results.length, 3);
  const xml = formatJunit(base);
  assert.match(xml, /<testsuite name="devserver conform" tests="3" failures="1" skipped="1">/);
  assert.match(
    xml,
    /<failure message="bad \\u202e&lt;b&gt;&amp;&quot;">https:\/\/x\/#a<\/failure>/,
  );
  assert.match(xml, /name="C003 t3 \(MUST\)" time="0.000"\/>/);
});

Deno.test("conform report: a connection error is the verdict, with the target's stderr", () => {
  const report: ConformanceReport = {
    ...base,
    era: undefined,
    results: [],
    connectionError: "the target exited before answering anything",
    stderrTail: "panic: boom\n",
  };
  const table = formatTable(report);
  assert.match(table, /^target stderr \(tail\): panic: boom\\n$/m);
  assert.match(table, /\nconnection error: the target exited before answering anything$/);
  assert.match(formatJunit(report), /tests="1" failures="1" skipped="0"/);
  const legacy = formatTable({ ...base, era: "legacy", results: [], conformant: false });
  assert.match(
    legacy,
    /not conformant \(legacy-only: the target speaks the 2025 era, not 2026-07-28\)/,
  );
});
