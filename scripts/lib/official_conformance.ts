/**
 * The official `@modelcontextprotocol/conformance` suite (the version
 * pinned in deno.json) run under Deno against an HTTP endpoint, one
 * scenario at a time at the 2026-07-28 wire, with our expected-failures
 * file; its per-check verdicts read back from the `checks.json` it writes.
 *
 * @module
 */

import { join } from "node:path";
import { childEnv, REPO_ROOT } from "./program.ts";

/** The server scenarios that apply to a tools-only server (issue 10). */
export const OFFICIAL_SCENARIOS = [
  "server-stateless",
  "tools-list",
  "caching",
  "http-header-validation",
  "dns-rebinding-protection",
  "server-sse-multiple-streams",
  "json-schema-2020-12",
] as const;

/** Our expected-failures file, in the suite's own format. */
export const EXPECTED_FAILURES = `${REPO_ROOT}/conformance/expected-failures.yaml`;

/** One check's verdict as the suite reports it. */
export interface OfficialCheck {
  readonly id: string;
  readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO";
  readonly description?: string;
  readonly errorMessage?: string;
}

/** One scenario's run: the suite's exit code (0: only expected failures) and its checks. */
export interface OfficialRun {
  readonly scenario: string;
  readonly code: number;
  readonly checks: OfficialCheck[];
  readonly output: string;
}

/** The suite's package as locked in deno.json (so `deno install --frozen` caches it). */
export function conformanceSpecifier(): string {
  const denoJson = JSON.parse(Deno.readTextFileSync(`${REPO_ROOT}/deno.json`));
  const specifier: unknown = denoJson.imports?.["@modelcontextprotocol/conformance"];
  if (typeof specifier !== "string") {
    throw new Error("deno.json does not import the conformance suite");
  }
  return specifier;
}

/** Runs one scenario against `url`; `expectedFailures` defaults to ours. */
export async function runOfficialScenario(
  url: string,
  scenario: string,
  expectedFailures: string | undefined = EXPECTED_FAILURES,
): Promise<OfficialRun> {
  const outDir = await Deno.makeTempDir({ prefix: "devserver-official-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--frozen",
        "--cached-only",
        "--quiet",
        conformanceSpecifier(),
        "server",
        "--url",
        url,
        "--scenario",
        scenario,
        "--spec-version",
        "2026-07-28",
        "-o",
        outDir,
        ...(expectedFailures ? ["--expected-failures", expectedFailures] : []),
      ],
      cwd: REPO_ROOT,
      // The suite is not ours to cover: no coverage directory for it.
      env: Object.fromEntries(
        Object.entries(childEnv({ NO_COLOR: "1" })).filter(([n]) => n !== "DENO_COVERAGE_DIR"),
      ),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(120_000),
    }).output();
    const decoder = new TextDecoder();
    const output = decoder.decode(out.stdout) + decoder.decode(out.stderr);
    const checks: OfficialCheck[] = [];
    for await (const entry of Deno.readDir(outDir)) {
      if (!entry.isDirectory) continue;
      try {
        checks.push(
          ...JSON.parse(await Deno.readTextFile(join(outDir, entry.name, "checks.json"))),
        );
      } catch { /* a scenario that failed to run writes none */ }
    }
    return { scenario, code: out.code, checks, output };
  } finally {
    await Deno.remove(outDir, { recursive: true }).catch(() => {});
  }
}

/** The entries of an expected-failures file with the reason comment above each. */
export function expectedFailureEntries(text: string): { entry: string; reason: string }[] {
  const entries: { entry: string; reason: string }[] = [];
  let reason: string[] = [];
  let inReason = false;
  for (const line of text.split("\n")) {
    const comment = /^\s*#\s?(.*)$/.exec(line);
    const item = /^\s*-\s*(\S+)\s*$/.exec(line);
    if (comment) {
      if (/^reason:/.test(comment[1])) {
        reason = [comment[1].slice("reason:".length).trim()];
        inReason = true;
      } else if (inReason) reason.push(comment[1].trim());
    } else if (item) {
      entries.push({ entry: item[1], reason: reason.join(" ") });
      reason = [];
      inReason = false;
    } else {
      inReason = false;
      reason = [];
    }
  }
  return entries;
}
