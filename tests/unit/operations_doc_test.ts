/**
 * docs/operations.md names settings, metrics, readiness checks and tasks;
 * each must exist in the code, so the page cannot drift from what runs.
 */

import assert from "node:assert/strict";
import { SETTINGS } from "../../src/config/schema.ts";

const ROOT = new URL("../../", import.meta.url);
const doc = await Deno.readTextFile(new URL("docs/operations.md", ROOT));

Deno.test("operations doc: every MCP_* setting it names is a real setting", () => {
  const known = new Set(SETTINGS.map((s) => s.env));
  const named = [...new Set(doc.match(/MCP_[A-Z]+(?:__[A-Z_]*[A-Z])?(?![A-Z_]*\*)/g) ?? [])];
  assert.ok(named.length >= 10, named.join(" "));
  for (const name of named) assert.ok(known.has(name), `${name} is not a setting`);
});

Deno.test("operations doc: every metric it names is one /metrics emits, and it names them all", async () => {
  const source = await Deno.readTextFile(new URL("src/transport/http_metrics.ts", ROOT));
  const emitted = new Set(source.match(/devserver_[a-z_]+(?<!_)/g) ?? []);
  const families = [...emitted].filter((m) => !/_(bucket|sum|count)$/.test(m));
  const named = new Set(doc.match(/devserver_[a-z_]+[a-z]/g) ?? []);
  for (const name of named) assert.ok(emitted.has(name), `${name} is not emitted`);
  for (const name of families) assert.ok(named.has(name), `${name} is not documented`);
});

Deno.test("operations doc: the /readyz checks it names are the probe's", async () => {
  const serve = await Deno.readTextFile(new URL("src/cli/serve.ts", ROOT));
  const checks = /const checks = \{([^}]*)\}/.exec(serve)?.[1] ?? "";
  const names = [...checks.matchAll(/(\w+):/g)].map((m) => m[1]);
  assert.ok(names.length >= 3, checks);
  for (const name of names) assert.match(doc, new RegExp("`" + name + "`"), name);
});

Deno.test("operations doc: its nginx advice is what lb:check runs", async () => {
  const nginx = await Deno.readTextFile(new URL("scripts/lib/nginx.ts", ROOT));
  for (
    const directive of [
      "proxy_buffering off;",
      "proxy_http_version 1.1;",
      'proxy_set_header Connection "";',
      "proxy_set_header Host $host;",
      "client_header_timeout",
    ]
  ) {
    assert.ok(doc.includes(directive), `doc lacks ${directive}`);
    assert.ok(nginx.includes(directive), `lb:check lacks ${directive}`);
  }
  const tasks = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))).tasks;
  for (const task of doc.match(/deno task [a-z:]+/g) ?? []) {
    assert.ok(task.slice(10) in tasks, `${task} is not a task`);
  }
});
