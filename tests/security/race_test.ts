/**
 * The check-then-open race: the path is resolved (layer 1), then the file is
 * replaced before it is opened. Layer 2 does not help here (Deno checks the
 * path string, not where a link leads), so the open itself must refuse
 * anything but the regular file that was checked — and must never block.
 * The race is made deterministic by a substitute worker that splits
 * resolution and reading into two jobs, run under the real tool-worker
 * permissions; the test replaces the file in between.
 */

import assert from "node:assert/strict";
import { sandboxSettings } from "../../src/app.ts";
import { type Sandbox, startSandbox } from "../../src/isolation/sandbox.ts";
import type { RefusalCode } from "../../src/contract/refusal.ts";
import type { RawToolResult } from "../../src/contract/result.ts";
import { configFor, makeWorkspace, startServer, type TempWorkspace } from "../helpers/fixtures.ts";
import {
  call,
  FAST_DEADLINE_MS,
  HANG_DEADLINE_MS,
  okStructured,
  OUTSIDE_SECRET,
  within,
} from "./helpers.ts";

const RACE_WORKER = new URL("./fixtures/race_worker.ts", import.meta.url);

function startRaceSandbox(ws: TempWorkspace): Sandbox & Disposable {
  const settings = sandboxSettings(
    configFor(ws.root, { MCP_SANDBOX__TOOL_TIMEOUT_MS: "20000" }),
  );
  // One worker, so the `read` job lands on the worker that kept the target.
  const sandbox = startSandbox({ ...settings, poolSize: 1 }, { toolWorkerUrl: RACE_WORKER });
  return Object.assign(sandbox, { [Symbol.dispose]: () => sandbox.close() });
}

async function resolveThenRead(
  sandbox: Sandbox,
  path: string,
  replace: () => Promise<void>,
): Promise<RawToolResult> {
  const resolved = await within(sandbox.run("resolve", { path }), HANG_DEADLINE_MS, "resolve");
  assert.equal(resolved.kind, "ok", JSON.stringify(resolved));
  await replace();
  return await within(sandbox.run("read", {}), FAST_DEADLINE_MS, "read after the swap");
}

/** A clean refusal (one of `codes`, never a crash or a timeout) that leaks neither secret nor path. */
function assertCleanRefusal(
  result: RawToolResult,
  ws: TempWorkspace,
  codes: readonly RefusalCode[],
): void {
  const json = JSON.stringify(result);
  assert.equal(result.kind, "refused", json);
  assert.ok(result.kind === "refused" && codes.includes(result.error), json);
  for (const needle of [OUTSIDE_SECRET, ws.root, ws.outside]) {
    assert.ok(!json.includes(needle), `leaks ${needle}: ${json}`);
  }
}

/** What a swapped-in link or directory may be refused as. */
const SWAP_CODES: readonly RefusalCode[] = [
  "unreadable",
  "symlink_not_followed",
  "outside_workspace",
];

Deno.test("attack: swapping the checked file for a symlink to outside before it is opened is refused, never read", async () => {
  await using ws = await makeWorkspace({ "a.txt": "INSIDE\n" });
  using sandbox = startRaceSandbox(ws);
  const result = await resolveThenRead(sandbox, "a.txt", async () => {
    await Deno.remove(ws.path("a.txt"));
    await Deno.symlink(ws.outside + "/secret.txt", ws.path("a.txt"));
  });
  assertCleanRefusal(result, ws, SWAP_CODES);
});

Deno.test("attack: swapping a checked parent directory for a symlink to outside before the open is refused, never read", async () => {
  await using ws = await makeWorkspace({ "sub/secret.txt": "INSIDE\n" });
  using sandbox = startRaceSandbox(ws);
  const result = await resolveThenRead(sandbox, "sub/secret.txt", async () => {
    await Deno.rename(ws.path("sub"), ws.path("sub.orig"));
    await Deno.symlink(ws.outside, ws.path("sub"));
  });
  assertCleanRefusal(result, ws, SWAP_CODES);
});

Deno.test("attack: swapping the checked file for a FIFO before it is opened is refused without blocking", async () => {
  await using ws = await makeWorkspace({ "a.txt": "INSIDE\n" });
  using sandbox = startRaceSandbox(ws);
  const result = await resolveThenRead(sandbox, "a.txt", async () => {
    await Deno.remove(ws.path("a.txt"));
    const made = await new Deno.Command("mkfifo", { args: [ws.path("a.txt")] }).output();
    assert.ok(made.success);
  });
  assertCleanRefusal(result, ws, ["special_file", "unreadable"]);
});

Deno.test("attack: replacing the checked file by another regular file (rename over it) is noticed, not served as the old one", async () => {
  await using ws = await makeWorkspace({ "a.txt": "OLD\n", "b.txt": "NEW\n" });
  using sandbox = startRaceSandbox(ws);
  const result = await resolveThenRead(sandbox, "a.txt", async () => {
    await Deno.rename(ws.path("b.txt"), ws.path("a.txt"));
  });
  // Either refused (the file changed under the call) or the new bytes: never a mix.
  if (result.kind === "ok") assert.equal(result.structured.content, "NEW\n");
  else assertCleanRefusal(result, ws, ["unreadable"]);
});

Deno.test("control: with no swap the race worker reads the checked file", async () => {
  await using ws = await makeWorkspace({ "a.txt": "INSIDE\n" });
  using sandbox = startRaceSandbox(ws);
  const result = await resolveThenRead(sandbox, "a.txt", () => Promise.resolve());
  assert.equal(result.kind, "ok", JSON.stringify(result));
  assert.equal(result.kind === "ok" && result.structured.content, "INSIDE\n");
});

Deno.test("control: once no folder on the path has changed for two seconds, a file is read and a directory listed in one pass", async () => {
  // The usual case, where the check after the read is a single pass (no random
  // probes): no folder on the path changed during the call or shortly before.
  await using ws = await makeWorkspace({ "sub/deeper/a.txt": "QUIET\n" });
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  using server = startServer(ws.root);
  const read = okStructured(await call(server, "read_file", { path: "sub/deeper/a.txt" }));
  assert.equal(read.content, "QUIET\n");
  const listed = okStructured(await call(server, "list_directory", { path: "sub/deeper" }));
  assert.deepEqual((listed.entries as { name: string }[]).map((e) => e.name), ["a.txt"]);
});
