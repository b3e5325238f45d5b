/**
 * Scale-out behind a real load balancer (issue 11): nginx round-robin over
 * two devserver HTTP instances, each over its own clone of one repository.
 * With the cursor key shared through MCP_SERVER__CURSOR_KEY_FILE every
 * answer equals a single instance's and each listing cursor is redeemed by
 * the instance that did not issue it; without it, that redeem is refused —
 * the attack-shaped half: a cursor minted under another key is not accepted.
 *
 * nginx is required (`.ci/run` installs the Debian package): a missing
 * nginx fails this test rather than skipping it.
 */

import assert from "node:assert/strict";
import { lbVerdict, runLbCheck } from "../../scripts/lib/lb_check.ts";
import { nginxBinary, nginxConfig } from "../../scripts/lib/nginx.ts";

Deno.test("lb: nginx config is unprivileged: everything under its temp prefix, one worker", () => {
  const config = nginxConfig("/tmp/p", 8080, ["127.0.0.1:1", "127.0.0.1:2"]);
  const paths = [...config.matchAll(/(?:pid|_log|_path)\s+(\S+?)[;\s]/g)].map((m) => m[1]);
  assert.ok(paths.length >= 8, config);
  for (const path of paths) assert.match(path, /^\/tmp\/p\//, `${path} outside the prefix`);
  assert.match(config, /worker_processes 1;/);
  assert.doesNotMatch(config, /^\s*user\s/m);
  assert.match(config, /add_header X-Upstream \$upstream_addr always;/);
});

Deno.test({
  name: "lb: two instances behind nginx answer as one; cursors cross instances with a shared key",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    assert.ok(nginxBinary(), "nginx is not installed (apt-get install nginx; .ci/run does)");
    const report = await runLbCheck({ shareKey: true });
    assert.deepEqual(lbVerdict(report), []);
    assert.equal(report.crossRedeems.length, 4);
    assert.equal(Object.keys(report.perUpstream).length, 2);
  },
});

Deno.test({
  name:
    "lb attack: a cursor signed under another instance's key is refused (-32602), and the check fails",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    assert.ok(nginxBinary(), "nginx is not installed (apt-get install nginx; .ci/run does)");
    const report = await runLbCheck({ shareKey: false });
    const problems = lbVerdict(report);
    assert.ok(problems.length > 0, "the check passed without a shared cursor key");
    const refused = report.crossRedeems.filter((r) => !r.ok);
    assert.ok(refused.length > 0, JSON.stringify(report.crossRedeems));
    assert.notEqual(refused[0].issuedBy, refused[0].redeemedBy);
    assert.equal(refused[0].error?.code, -32602);
    assert.match(refused[0].error?.message ?? "", /Invalid cursor/);
  },
});
