/**
 * The report in three forms: a table for people, JSON for programs, and
 * JUnit XML for CI. Control characters from the target are escaped, so a
 * hostile server cannot drive the terminal through its error messages.
 *
 * @module
 */

import type { ConformanceReport } from "./runner.ts";

const MARK = { ok: "ok", fail: "FAIL", "n/a": "n/a" } as const;

/** Control characters (C0, DEL, C1) and bidi/zero-width controls as visible escapes. */
export function visible(text: string): string {
  return text.replace(
    // deno-lint-ignore no-control-regex
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g,
    (c) => {
      const code = c.charCodeAt(0);
      return code < 0x100
        ? `\\x${code.toString(16).padStart(2, "0")}`
        : `\\u${code.toString(16).padStart(4, "0")}`;
    },
  ).replace(/\n/g, "\\n");
}

/** The verdict line. */
export function verdictLine(report: ConformanceReport): string {
  if (report.connectionError) return `connection error: ${report.connectionError}`;
  const failedMust = report.results.filter((r) => r.status === "fail" && r.level === "MUST").length;
  const failedShould = report.results.filter((r) => r.status === "fail" && r.level === "SHOULD")
    .length;
  const era = report.era === "legacy"
    ? " (legacy-only: the target speaks the 2025 era, not 2026-07-28)"
    : "";
  const counts = `${failedMust} MUST and ${failedShould} SHOULD check(s) failed`;
  return (report.conformant ? "conformant" : "not conformant") + era + `: ${counts}` +
    (report.strict ? " (strict)" : "");
}

/** The human table: one row per check, detail lines under it, the verdict last. */
export function formatTable(report: ConformanceReport): string {
  const lines = [`target: ${visible(report.target)} (${report.transport})`];
  for (const r of report.results) {
    lines.push(`${MARK[r.status].padEnd(5)} ${r.id} ${r.level.padEnd(6)} ${r.title}`);
    lines.push(`      ${visible(r.detail)}`);
    if (r.status === "fail") lines.push(`      ${r.source}`);
  }
  if (report.connectionError && report.stderrTail) {
    lines.push(`target stderr (tail): ${visible(report.stderrTail.slice(-500))}`);
  }
  lines.push(verdictLine(report));
  return lines.join("\n");
}

/** The report as JSON. */
export function formatJson(report: ConformanceReport): string {
  return JSON.stringify({ ...report, verdict: verdictLine(report) }, null, 2);
}

function xml(text: string): string {
  return visible(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

/** The report as JUnit XML: one test case per check; n/a is skipped, FAIL a failure. */
export function formatJunit(report: ConformanceReport): string {
  const failures = report.results.filter((r) => r.status === "fail").length +
    (report.connectionError ? 1 : 0);
  const skipped = report.results.filter((r) => r.status === "n/a").length;
  const cases = report.results.map((r) => {
    const head = `  <testcase classname="conform" name="${r.id} ${
      xml(r.title)
    } (${r.level})" time="${(r.ms / 1000).toFixed(3)}"`;
    if (r.status === "ok") return `${head}/>`;
    if (r.status === "n/a") return `${head}><skipped message="${xml(r.detail)}"/></testcase>`;
    return `${head}><failure message="${xml(r.detail)}">${xml(r.source)}</failure></testcase>`;
  });
  if (report.connectionError) {
    cases.push(
      `  <testcase classname="conform" name="connection"><failure message="${
        xml(report.connectionError)
      }"/></testcase>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="devserver conform" tests="${cases.length}" failures="${failures}" skipped="${skipped}">
${cases.join("\n")}
</testsuite>
`;
}
