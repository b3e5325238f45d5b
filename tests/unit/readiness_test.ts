/**
 * `/readyz` needs no token, so its probe must not turn a flood of requests
 * into a flood of tool calls: concurrent probes share one listing, and an
 * answer is reused for a second.
 */

import assert from "node:assert/strict";
import type { DevServer } from "../../src/app.ts";
import { READINESS_REUSE_MS, readinessProbe } from "../../src/cli/serve.ts";

function fakeServer(isError: boolean): { server: DevServer; calls: () => number } {
  let calls = 0;
  const server = {
    dispatcher: {
      call: () => {
        calls++;
        return new Promise((resolve) => setTimeout(() => resolve({ content: [], isError }), 20));
      },
    },
  } as unknown as DevServer;
  return { server, calls: () => calls };
}

Deno.test("attack: 500 concurrent /readyz probes cost one listing through the tool worker", async () => {
  const { server, calls } = fakeServer(false);
  const probe = readinessProbe(server, true);
  const answers = await Promise.all(Array.from({ length: 500 }, () => probe()));
  assert.equal(calls(), 1);
  assert.ok(answers.every((a) => a.ready));
  await probe();
  assert.equal(calls(), 1, "reused within the reuse window");
  await new Promise((resolve) => setTimeout(resolve, READINESS_REUSE_MS + 50));
  await probe();
  assert.equal(calls(), 2, "probed again after the window");
});

Deno.test("readiness: a failed listing or a missing git is not ready, each check named", async () => {
  const failing = readinessProbe(fakeServer(true).server, true);
  assert.deepEqual(await failing(), {
    ready: false,
    checks: { workspace_readable: false, tool_worker: true, git: true },
  });
  const noGit = readinessProbe(fakeServer(false).server, false);
  assert.deepEqual(await noGit(), {
    ready: false,
    checks: { workspace_readable: true, tool_worker: true, git: false },
  });
});
