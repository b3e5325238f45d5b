/**
 * Runs the checks against one target, in requirement order, each bounded in
 * time, and gives the verdict: conformant when no MUST check failed (with
 * `strict`, no SHOULD check either). A target that never answers at all is
 * a connection error, not a verdict.
 *
 * @module
 */

import { type Check, CHECKS, type Status } from "./checks.ts";
import { Connection, type ConnectionTimings, DEFAULT_TIMINGS } from "./connection.ts";
import { CheckContext, type Era } from "./context.ts";
import { type Level, REQUIREMENTS } from "./requirements.ts";
import { type HttpEndpoint, httpTarget } from "./http.ts";
import type { StreamTarget } from "./target.ts";

/** Options of one run. */
export interface RunOptions {
  /** Only these check ids (the checks they depend on still make their requests). */
  readonly only?: readonly string[];
  /** SHOULD failures count against the verdict too. */
  readonly strict?: boolean;
  readonly timings?: ConnectionTimings;
  /** The longest one check may take. */
  readonly checkTimeoutMs?: number;
  /** Set when `target` is an HTTP endpoint seen through {@linkcode httpTarget}. */
  readonly http?: HttpEndpoint;
}

/** Runs the checks against an MCP endpoint over Streamable HTTP. */
export function runHttpConformance(
  endpoint: HttpEndpoint,
  options: RunOptions = {},
): Promise<ConformanceReport> {
  return runConformance(httpTarget(endpoint), { ...options, http: endpoint });
}

/** One check's row in the report. */
export interface CheckResult {
  readonly id: string;
  readonly level: Level;
  readonly title: string;
  readonly source: string;
  readonly status: Status;
  readonly detail: string;
  readonly ms: number;
}

/** The outcome of one run. */
export interface ConformanceReport {
  readonly target: string;
  readonly transport: "stdio" | "http";
  /** `modern` (speaks 2026-07-28), `legacy` (2025 era only), or undefined on a connection error. */
  readonly era?: Era;
  readonly strict: boolean;
  readonly results: readonly CheckResult[];
  /** Set when the target could not be talked to at all. */
  readonly connectionError?: string;
  readonly conformant: boolean;
  /** The tail of the target's stderr. */
  readonly stderrTail: string;
}

/** Check ids that are not known, for a usage error. */
export function unknownCheckIds(ids: readonly string[]): string[] {
  return ids.filter((id) => !(id in CHECKS));
}

/** Runs the checks against `target` (a stdio-style stream pair), then ends it. */
export async function runConformance(
  target: StreamTarget,
  options: RunOptions = {},
): Promise<ConformanceReport> {
  const conn = new Connection(target, options.timings ?? DEFAULT_TIMINGS);
  const transport = options.http ? "http" : "stdio";
  const ctx = new CheckContext(conn, transport, options.http);
  const strict = options.strict ?? false;
  const results: CheckResult[] = [];
  let connectionError: string | undefined;
  try {
    const first = await ctx.discover();
    if (first.kind !== "response" && conn.lines.length === 0) {
      const initialize = await ctx.initialize();
      if (initialize.kind !== "response" && conn.lines.length === 0) {
        connectionError = first.kind === "closed"
          ? "the target exited before answering anything"
          : "the target answered nothing (neither server/discover nor initialize)";
      }
    }
    if (!connectionError) {
      const selected = options.only ? new Set(options.only) : undefined;
      for (const requirement of REQUIREMENTS) {
        if (selected && !selected.has(requirement.id)) continue;
        const started = Date.now();
        const outcome = await bounded(
          CHECKS[requirement.id],
          ctx,
          options.checkTimeoutMs ?? 60_000,
        );
        results.push({
          id: requirement.id,
          level: requirement.level,
          title: requirement.title,
          source: requirement.source,
          ...outcome,
          ms: Date.now() - started,
        });
      }
    }
  } finally {
    await conn.close();
  }
  const era = connectionError ? undefined : (await ctx.era());
  const conformant = !connectionError &&
    !results.some((r) => r.status === "fail" && (r.level === "MUST" || strict));
  return {
    target: target.description,
    transport,
    era,
    strict,
    results,
    connectionError,
    conformant,
    stderrTail: target.stderr().slice(-2000),
  };
}

async function bounded(
  check: Check,
  ctx: CheckContext,
  timeoutMs: number,
): Promise<{ status: Status; detail: string }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<{ status: Status; detail: string }>((resolve) => {
    timer = setTimeout(
      () => resolve({ status: "fail", detail: `the check did not finish within ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([
      check(ctx).catch((error) => ({
        status: "fail" as const,
        detail: `checker error: ${error instanceof Error ? error.message : String(error)}`,
      })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
