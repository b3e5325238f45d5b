/**
 * The permission layer (layer 2), proven without layer 1: a substitute tool
 * worker that skips containment on purpose runs under the real tool-worker
 * grant and tries to read, run, write, reach the network and read the
 * environment. Everything outside the grant must fail with NotCapable. The
 * gaps layer 2 leaves (links inside pointing outside; permitted
 * subprocesses) are asserted too, with the real tool refusing the same path.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { sandboxSettings } from "../../src/app.ts";
import { startSandbox } from "../../src/isolation/sandbox.ts";
import { configFor, makeWorkspace, startServer } from "../helpers/fixtures.ts";
import type { Outcome, ProbeArgs } from "./fixtures/bypass_worker.ts";
import { expectRefusal, HANG_DEADLINE_MS, OUTSIDE_SECRET, within } from "./helpers.ts";

const BYPASS_WORKER = new URL("./fixtures/bypass_worker.ts", import.meta.url);
const PROGRAM_SOURCE = fileURLToPath(new URL("../../src/app.ts", import.meta.url));

interface ProbeReport {
  probes: Record<string, Outcome>;
  permissions: Record<string, Deno.PermissionState>;
}

async function runProbes(): Promise<{ report: ProbeReport; requestsSeen: number }> {
  const { reports, requestsSeen } = await runProbesOnPool(1);
  return { report: reports[0], requestsSeen };
}

/**
 * Runs `workers` probes at once on a pool of `workers`, so each runs on its
 * own worker: with more than one, some were created by the supervisor, not
 * by the main thread.
 */
async function runProbesOnPool(
  workers: number,
): Promise<{ reports: ProbeReport[]; requestsSeen: number }> {
  await using ws = await makeWorkspace({
    "inside.txt": "INSIDE\n",
    "flink": { symlink: "../outside/secret.txt" },
    "outlink": { symlink: "../outside" },
  });
  await Deno.writeTextFile(
    `${ws.outside}/module.js`,
    `export const secret = "${OUTSIDE_SECRET}";\n`,
  );
  let requestsSeen = 0;
  await using http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    requestsSeen++;
    return new Response("REACHED");
  });
  // Control: the loopback server answers this (unsandboxed) test thread.
  assert.equal(await (await fetch(`http://127.0.0.1:${http.addr.port}/`)).text(), "REACHED");
  const sandbox = startSandbox(
    { ...sandboxSettings(configFor(ws.root)), poolSize: workers, directWorkers: 1 },
    { toolWorkerUrl: BYPASS_WORKER },
  );
  try {
    await within(sandbox.ready, HANG_DEADLINE_MS, "the pool");
    const args: ProbeArgs = {
      workspace: ws.root,
      outside: ws.outside,
      port: http.addr.port,
      programSource: PROGRAM_SOURCE,
    };
    const results = await within(
      Promise.all(Array.from({ length: workers }, () => sandbox.run("probe", args))),
      HANG_DEADLINE_MS,
      "probe",
    );
    for (const result of results) assert.equal(result.kind, "ok", JSON.stringify(result));
    // Nothing was written or removed by the worker.
    assert.equal(await Deno.readTextFile(ws.path("inside.txt")), "INSIDE\n");
    await assert.rejects(Deno.lstat(ws.path("written.txt")), Deno.errors.NotFound);
    await assert.rejects(Deno.lstat(ws.path("made")), Deno.errors.NotFound);
    const reports = results.map((r) => (r as { structured: unknown }).structured as ProbeReport);
    return { reports, requestsSeen: requestsSeen - 1 };
  } finally {
    sandbox.close();
  }
}

function assertNotCapable(outcome: Outcome, what: string): void {
  assert.equal(outcome.ok, false, `${what} was allowed: ${JSON.stringify(outcome)}`);
  assert.equal(outcome.error, "NotCapable", `${what}: ${JSON.stringify(outcome)}`);
  assert.ok(!JSON.stringify(outcome).includes(OUTSIDE_SECRET), what);
}

Deno.test("attack: a tool worker that skips containment is still stopped by the permission layer (NotCapable for everything outside its grant)", async () => {
  const { report } = await runProbes();
  const p = report.probes;
  // Reads outside the workspace, existing or not (no existence oracle either).
  assertNotCapable(p.readOutside, "Deno.readTextFile of the outside secret");
  assertNotCapable(p.readEtcHostname, "Deno.readTextFile of /etc/hostname");
  assertNotCapable(p.readMissingOutside, "Deno.readTextFile of a missing outside path");
  assertNotCapable(p.statOutside, "Deno.stat outside");
  assertNotCapable(p.readDirOutside, "Deno.readDir outside");
  assertNotCapable(p.readProcEnviron, "Deno.readTextFile of /proc/self/environ");
  assertNotCapable(p.readProgramSource, "reading the program's own source");
  // Subprocesses other than git; the environment; writing; system info; FFI.
  assertNotCapable(p.runLs, 'new Deno.Command("ls")');
  assertNotCapable(p.runShell, 'new Deno.Command("sh")');
  assertNotCapable(p.envGet, "Deno.env.get");
  assertNotCapable(p.envToObject, "Deno.env.toObject");
  assertNotCapable(p.writeInside, "Deno.writeTextFile inside the workspace");
  assertNotCapable(p.removeInside, "Deno.remove inside the workspace");
  assertNotCapable(p.mkdirInside, "Deno.mkdir inside the workspace");
  assertNotCapable(p.sysHostname, "Deno.hostname");
  assertNotCapable(p.ffiDlopen, "Deno.dlopen");
  // A nested worker cannot be given more than the tool worker holds.
  assertNotCapable(p.escalateWorker, "a nested Worker asking for read: true");
  // A module outside the workspace cannot be imported (the loader's read check).
  assert.equal(p.importOutside.ok, false, JSON.stringify(p.importOutside));
  assert.match(p.importOutside.message ?? "", /Requires read access/);
  assert.ok(!JSON.stringify(p.importOutside).includes(`"${OUTSIDE_SECRET}"`));
});

Deno.test("attack: the tool worker cannot reach the network, not even loopback (fetch and connect are NotCapable)", async () => {
  const { report, requestsSeen } = await runProbes();
  assertNotCapable(report.probes.fetchLoopback, "fetch to 127.0.0.1");
  assertNotCapable(report.probes.connectLoopback, "Deno.connect to 127.0.0.1");
  assert.equal(requestsSeen, 0, "the loopback server saw a request from the worker");
});

Deno.test("attack: the tool worker may run git (clearEnv) and read the workspace, and nothing else is granted", async () => {
  const { report } = await runProbes();
  const p = report.probes;
  assert.equal(p.runGitVersion.ok, true, JSON.stringify(p.runGitVersion));
  assert.match(String(p.runGitVersion.value), /^git version \d/);
  assert.equal(p.readInside.ok, true, JSON.stringify(p.readInside));
  assert.equal(p.readInside.value, "INSIDE\n");
  const perms = report.permissions;
  assert.equal(perms["read:workspace"], "granted");
  assert.equal(perms["run:git"], "granted");
  for (
    const key of [
      "read:outside",
      "read:etc",
      "read",
      "run",
      "run:sh",
      "net",
      "net:loopback",
      "env",
      "write",
      "write:workspace",
      "sys",
      "ffi",
    ]
  ) {
    assert.notEqual(perms[key], "granted", `${key} is granted`);
  }
});

Deno.test("documented gap: layer 2 does not stop a link inside the workspace that points outside; layer 1 (read_file) refuses the same paths", async () => {
  const { report } = await runProbes();
  // Deno checks the path as given: the link's location is inside, so the read succeeds.
  for (const key of ["readViaInsideLinkToOutsideFile", "readViaInsideLinkToOutsideDir"]) {
    const outcome = report.probes[key];
    assert.equal(outcome.ok, true, `${key}: ${JSON.stringify(outcome)}`);
    assert.equal(outcome.value, `${OUTSIDE_SECRET}\n`);
  }
  // The real tool refuses both paths, with symlinks followed or not.
  await using ws = await makeWorkspace({
    "flink": { symlink: "../outside/secret.txt" },
    "outlink": { symlink: "../outside" },
  });
  for (const env of [{}, { MCP_SANDBOX__FOLLOW_SYMLINKS: "true" }]) {
    using server = startServer(ws.root, env as Record<string, string>);
    await expectRefusal(server, ws, "read_file", { path: "outlink/secret.txt" }, [
      "outside_workspace",
    ]);
    await expectRefusal(server, ws, "read_file", { path: "flink" }, [
      "outside_workspace",
      "symlink_not_followed",
    ]);
  }
});

Deno.test("documented gap: a permitted subprocess (git) is outside Deno's permission model and can read outside the workspace", async () => {
  const { report } = await runProbes();
  // Whatever git is asked to read, it reads: the run grant is the boundary, so every
  // tool that runs git must pass it only paths that went through layer 1.
  const outcome = report.probes.gitReadsOutside;
  assert.equal(outcome.ok, true, JSON.stringify(outcome));
  assert.match(String(outcome.value), new RegExp(`\\+${OUTSIDE_SECRET}`));
});

Deno.test("attack: a tool worker the supervisor created (the rest of the pool, every replacement) holds exactly the grant of one the main thread created", async () => {
  const { reports, requestsSeen } = await runProbesOnPool(2);
  assert.equal(reports.length, 2);
  const [direct, fromSupervisor] = reports;
  assert.deepEqual(fromSupervisor.permissions, direct.permissions);
  for (const report of reports) {
    const p = report.probes;
    assertNotCapable(p.readOutside, "reading outside");
    assertNotCapable(p.readProgramSource, "reading the program's own source");
    assertNotCapable(p.runShell, 'new Deno.Command("sh")');
    assertNotCapable(p.envGet, "Deno.env.get");
    assertNotCapable(p.writeInside, "writing inside");
    assertNotCapable(p.fetchLoopback, "fetch to 127.0.0.1");
    assertNotCapable(p.escalateWorker, "a nested Worker asking for read: true");
    assert.equal(p.readInside.ok, true, JSON.stringify(p.readInside));
    assert.equal(report.permissions["read:workspace"], "granted");
    assert.equal(report.permissions["run:git"], "granted");
  }
  assert.equal(requestsSeen, 0);
});
