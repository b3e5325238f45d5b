/**
 * The swap race under load, as an attacker would run it: a separate process
 * exchanges a directory on the path (`sub`) and a symlink to outside,
 * atomically and in a tight loop, while the real tools run in a loop under
 * the real tool-worker permissions (substitute worker
 * `fixtures/stress_worker.ts`, which calls the real tool handlers). Every
 * moment of the call is raced: during the resolution walk, between
 * resolution and open, and around a directory read. Outside content or
 * outside names must never come back.
 *
 * Before the path was confirmed after the read (THREAT-MODEL.md, row 3),
 * about a quarter of `read_file` calls here returned the outside file and
 * one `list_directory` in twenty listed the outside directory. Now each
 * swapped call survives the random probes with probability about 2^-32, so
 * a run of some 10^5 swapped calls asserts none.
 *
 * `search_code` walks the workspace root: a swapped `sub` read through the
 * link would match the outside file's text; the walker checks each
 * directory it read files in (THREAT-MODEL.md, the walk row) and drops it.
 *
 * Linux only (`renameat2`). `RACE_STRESS_MS` sets how long each tool is
 * raced at least (default 3000); a run that has not made 1,000 calls by then
 * goes on until it has, for at most four times as long. `RACE_STRESS_PAUSE_US`
 * sets how long the swapper may hold each state (default 20 µs, 0 for a bare
 * loop). The rates are printed.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { sandboxSettings } from "../../src/app.ts";
import { type Sandbox, startSandbox } from "../../src/isolation/sandbox.ts";
import { configFor, makeWorkspace, startServer, type TempWorkspace } from "../helpers/fixtures.ts";
import type { StressArgs, StressReport } from "./fixtures/stress_worker.ts";
import { HANG_DEADLINE_MS, OUTSIDE_SECRET, within } from "./helpers.ts";
import { QUIET_MS } from "../../src/access/workspace.ts";

const STRESS_WORKER = new URL("./fixtures/stress_worker.ts", import.meta.url);
const SWAPPER = new URL("./fixtures/swapper.ts", import.meta.url);
const STRESS_MS = Number(Deno.env.get("RACE_STRESS_MS") ?? "3000");
const PAUSE_US = Deno.env.get("RACE_STRESS_PAUSE_US") ?? "20";
/** Calls a run needs to mean anything ({@linkcode assertRaced}); a loaded machine runs longer for them. */
const MIN_ATTEMPTS = 1000;
/** The longest a run may take to make them: four times `STRESS_MS`. */
const MAX_STRESS_MS = 4 * STRESS_MS;
/** A name that exists only in the outside directory. */
const OUTSIDE_NAME = "outside-only-name.txt";

async function stressUnderSwap(
  tool: StressArgs["tool"],
  args: Record<string, unknown>,
  needle: string,
  options: { quiet?: boolean } = {},
): Promise<StressReport> {
  await using ws = await makeWorkspace({
    "sub/secret.txt": "INSIDE\n",
    "sub/inside.txt": "INSIDE\n",
    "swap": { symlink: "../outside" },
  });
  await Deno.writeTextFile(`${ws.outside}/${OUTSIDE_NAME}`, "x\n");
  // Files old enough for the read cache to keep them (QUIET_MS plus Deno's second of ctime
  // rounding): the inside file is then answered from the cache in the loop (ADR-098).
  if (options.quiet) await new Promise((resolve) => setTimeout(resolve, QUIET_MS + 1100));
  const settings = sandboxSettings(
    configFor(ws.root, { MCP_SANDBOX__TOOL_TIMEOUT_MS: String(MAX_STRESS_MS + 20_000) }),
  );
  const sandbox = startSandbox({ ...settings, poolSize: 1 }, { toolWorkerUrl: STRESS_WORKER });
  try {
    // Warm up (loads the worker), and a control: without the swapper nothing leaks.
    const control = await runStress(sandbox, { tool, args, ms: 50, needle });
    assert.equal(control.leaks, 0, JSON.stringify(control));
    assert.equal(control.outcomes.ok, control.attempts, JSON.stringify(control));
    await using swapper = await startSwapper(ws, MAX_STRESS_MS + 10_000);
    const report = await runStress(sandbox, {
      tool,
      args,
      ms: STRESS_MS,
      minAttempts: MIN_ATTEMPTS,
      maxMs: MAX_STRESS_MS,
      needle,
    });
    swapper.stop();
    console.log(`${tool} under a swap loop: ${JSON.stringify(report)}`);
    return report;
  } finally {
    sandbox.close();
  }
}

async function runStress(sandbox: Sandbox, job: StressArgs): Promise<StressReport> {
  const result = await within(
    sandbox.run("stress", job),
    Math.max(job.ms, job.maxMs ?? 0) + HANG_DEADLINE_MS,
    "stress",
  );
  assert.equal(result.kind, "ok", JSON.stringify(result));
  return (result as { structured: unknown }).structured as StressReport;
}

/** Starts exchanging `sub` and `swap` in another process; resolves once it is running. */
async function startSwapper(
  ws: TempWorkspace,
  ms: number,
  a = ws.path("sub"),
  b = ws.path("swap"),
): Promise<{ stop(): void } & AsyncDisposable> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--no-prompt",
      "--allow-ffi",
      fileURLToPath(SWAPPER),
      a,
      b,
      String(ms),
      PAUSE_US,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const first = await within(reader.read(), HANG_DEADLINE_MS, "the swapper to start");
  assert.equal(first.value?.trim(), "ready");
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
  };
  return {
    stop,
    async [Symbol.asyncDispose]() {
      stop();
      await reader.cancel().catch(() => {});
      await child.status;
    },
  };
}

/** The swap must really have raced the calls: some of them saw it and were refused. */
function assertRaced(report: StressReport): void {
  const refused = report.attempts - (report.outcomes.ok ?? 0);
  assert.ok(
    report.attempts >= MIN_ATTEMPTS,
    `too few attempts to mean anything: ${report.attempts}`,
  );
  assert.ok(refused >= report.attempts / 20, `the swap barely raced: ${JSON.stringify(report)}`);
}

const linux = Deno.build.os === "linux";

Deno.test({
  name:
    "attack: read_file while a directory on the path is exchanged with a link to outside in a loop never returns outside content",
  ignore: !linux,
  async fn() {
    const report = await stressUnderSwap(
      "read_file",
      { path: "sub/secret.txt" },
      OUTSIDE_SECRET,
    );
    assertRaced(report);
    assert.equal(report.leaks, 0, `outside content was returned: ${JSON.stringify(report)}`);
  },
});

Deno.test({
  name:
    "attack: read_file answered from the read cache (no open on a hit, ADR-098) while a directory on the path is exchanged with a link to outside in a loop never returns outside content",
  ignore: !linux,
  async fn() {
    const report = await stressUnderSwap(
      "read_file",
      { path: "sub/secret.txt" },
      OUTSIDE_SECRET,
      { quiet: true },
    );
    assertRaced(report);
    assert.ok(report.cacheHits >= 100, `the cache barely answered: ${JSON.stringify(report)}`);
    assert.equal(report.leaks, 0, `outside content was returned: ${JSON.stringify(report)}`);
  },
});

Deno.test({
  name:
    "attack: list_directory while the directory is exchanged with a link to outside in a loop never lists outside names",
  ignore: !linux,
  async fn() {
    const report = await stressUnderSwap(
      "list_directory",
      { path: "sub" },
      OUTSIDE_NAME,
    );
    assertRaced(report);
    assert.equal(report.leaks, 0, `outside names were listed: ${JSON.stringify(report)}`);
  },
});

Deno.test({
  name:
    "attack: search_code while a directory it walks is exchanged with a link to outside in a loop never returns outside content",
  ignore: !linux,
  async fn() {
    const report = await stressUnderSwap(
      "search_code",
      { pattern: OUTSIDE_SECRET, max_results: 10 },
      OUTSIDE_SECRET,
    );
    assertRaced(report);
    assert.equal(report.leaks, 0, `outside content was returned: ${JSON.stringify(report)}`);
  },
});

Deno.test({
  name:
    "attack: search_code on two threads (ADR-064) while a directory inside a claimed subtree is exchanged with a link to outside in a loop never returns outside content",
  ignore: !linux,
  async fn() {
    await using ws = await makeWorkspace({
      "mmm/deep/er/sub/inside.txt": "INSIDE\n",
      "mmm/deep/er/swap": { symlink: "../../../../outside" },
    });
    // Enough files before and around the swapped directory that the walk asks for help and
    // both threads are at work when they reach it (`mmm/deep/er` is a subtree either may claim,
    // three levels down since ADR-084).
    for (const top of ["aaa", "mmm", "zzz"]) {
      for (let a = 0; a < 12; a++) {
        for (let b = 0; b < 6; b++) {
          const dir = ws.path(top, `p${a}`, `q${b}`);
          await Deno.mkdir(dir, { recursive: true });
          const files = top === "aaa" ? 16 : 6; // the help is asked for inside aaa
          for (let f = 0; f < files; f++) {
            await Deno.writeTextFile(`${dir}/f${f}.txt`, "filler\n");
          }
        }
      }
    }
    using server = startServer(ws.root, { MCP_SANDBOX__TOOL_TIMEOUT_MS: "60000" });
    await within(server.sandbox.ready, HANG_DEADLINE_MS, "the pool warming up");
    const search = () =>
      server.dispatcher.call("search_code", { pattern: OUTSIDE_SECRET, max_results: 10 });
    const control = await search();
    assert.ok(!control.isError && !JSON.stringify(control).includes("secret.txt"));
    await using swapper = await startSwapper(
      ws,
      STRESS_MS + 10_000,
      ws.path("mmm/deep/er/sub"),
      ws.path("mmm/deep/er/swap"),
    );
    const end = Date.now() + STRESS_MS;
    let calls = 0, leaks = 0;
    const lentBefore = server.sandbox.lentWorkers;
    while (Date.now() < end) {
      const result = await within(search(), HANG_DEADLINE_MS, "a search under the swap");
      calls++;
      const files = (result.structuredContent as { files?: unknown[] } | undefined)?.files ?? [];
      if (files.length > 0 || JSON.stringify(result).includes("secret.txt")) leaks++;
    }
    swapper.stop();
    console.log(
      `search_code on two threads under a swap loop: ${calls} calls, ${
        server.sandbox.lentWorkers - lentBefore
      } helped, ${leaks} leaks`,
    );
    assert.ok(server.sandbox.lentWorkers > lentBefore, "no call was helped: one thread only");
    assert.equal(leaks, 0, "outside content was returned");
  },
});
