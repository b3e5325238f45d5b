/**
 * Helpers of the adversarial suite: call a tool with a deadline (a hang is a
 * failure, not a stuck test run), and check every refusal for its code and
 * for leaks of the host's paths or of the outside secret.
 *
 * @module
 */

import assert from "node:assert/strict";
import { dirname } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { DevServer } from "../../src/app.ts";
import type { RefusalCode } from "../../src/contract/refusal.ts";
import type { TempWorkspace } from "../helpers/fixtures.ts";
import { readRefusal } from "../helpers/results.ts";

/** The content of `<tmp>/outside/secret.txt`: must never reach a client. */
export const OUTSIDE_SECRET = "OUTSIDE-SECRET";

/**
 * How long an ordinary call may take before the suite calls it a hang. Generous:
 * the first call of a run also pays for loading (and type-checking) the workers.
 * Tests that prove "returns without blocking" warm the server up first and use
 * {@linkcode FAST_DEADLINE_MS}.
 */
export const HANG_DEADLINE_MS = 30_000;

/** The deadline for a call to a warmed-up server that must not block. */
export const FAST_DEADLINE_MS = 3_000;

/** Every text block of a result, joined. */
export function allText(result: CallToolResult): string {
  return (result.content ?? [])
    .map((block) => block.type === "text" ? block.text : JSON.stringify(block))
    .join("\n");
}

/** Rejects when `promise` has not settled within `ms`; never leaves a timer behind. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Calls `tool` through the real dispatcher, failing the test if it hangs. */
export function call(
  server: DevServer,
  tool: "read_file" | "list_directory",
  args: Record<string, unknown>,
  deadlineMs: number = HANG_DEADLINE_MS,
): Promise<CallToolResult> {
  return within(
    server.dispatcher.call(tool, args),
    deadlineMs,
    `${tool}(${JSON.stringify(args).slice(0, 80)})`,
  );
}

/**
 * Asserts that nothing in `result` (text or structured) names the host's
 * paths or carries the outside secret: not the workspace root, not the
 * outside directory, not their parent, not `/etc`, not `/proc`.
 */
export function assertNoLeak(result: CallToolResult, ws: TempWorkspace): void {
  const text = allText(result);
  const json = JSON.stringify(result.structuredContent ?? null);
  for (const needle of [ws.root, ws.outside, dirname(ws.root), "/etc", "/proc", OUTSIDE_SECRET]) {
    assert.ok(!text.includes(needle), `result text leaks ${JSON.stringify(needle)}: ${text}`);
    assert.ok(!json.includes(needle), `structuredContent leaks ${JSON.stringify(needle)}: ${json}`);
  }
}

/**
 * Asserts that `result` is a refusal with `code` (or one of `code`), shaped
 * as the pipeline promises, and that it leaks nothing. Returns the code.
 */
export function assertRefused(
  result: CallToolResult,
  code: RefusalCode | readonly RefusalCode[],
  ws: TempWorkspace,
): RefusalCode {
  const { error } = readRefusal(result, code);
  assertNoLeak(result, ws);
  return error;
}

/** Calls `tool` and asserts a leak-free refusal with `code`. */
export async function expectRefusal(
  server: DevServer,
  ws: TempWorkspace,
  tool: "read_file" | "list_directory",
  args: Record<string, unknown>,
  code: RefusalCode | readonly RefusalCode[],
  deadlineMs: number = HANG_DEADLINE_MS,
): Promise<RefusalCode> {
  const result = await call(server, tool, args, deadlineMs);
  try {
    return assertRefused(result, code, ws);
  } catch (error) {
    throw new Error(`${tool}(${JSON.stringify(args).slice(0, 120)}): ${(error as Error).message}`);
  }
}

/** The structured content of a successful result (asserts success). */
export function okStructured(result: CallToolResult): Record<string, unknown> {
  assert.notEqual(result.isError, true, `expected success, got: ${allText(result)}`);
  assert.ok(result.structuredContent, "a successful result carries structuredContent");
  return result.structuredContent as Record<string, unknown>;
}

/** Waits until both tool workers are loaded, so later deadlines measure the call, not start-up. */
export async function warmUp(server: DevServer): Promise<void> {
  await Promise.all([
    within(server.dispatcher.call("list_directory", {}), HANG_DEADLINE_MS, "warm-up"),
    within(server.dispatcher.call("list_directory", {}), HANG_DEADLINE_MS, "warm-up"),
  ]);
}
