/**
 * Logs never carry secrets or file contents: the real program over real
 * pipes, at the most verbose log level, reads secret-bearing files (in
 * content, in a name, in a range cut through a PEM block, in a refusal) and
 * its stderr is searched for every secret and every line of file text.
 */

import assert from "node:assert/strict";
import { fakeSecret } from "../../src/secrets/rule.ts";
import { makeWorkspace } from "../helpers/fixtures.ts";
import { META, RawServer } from "./support.ts";

const GH = "ghp_" + fakeSecret("log-gh", 36);
const AWS = "AKIA" + fakeSecret("log-aws", 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567");
const PASSWORD = fakeSecret("log-pw", 20, "ABCDEFGHJKabcdefgh23456789#%");
const KEY = Array.from({ length: 4 }, (_, i) => fakeSecret("log-key" + i, 64));
const MARKER = "file-text-marker-7d1f";

Deno.test("attack: stderr logs of a run that reads secret-bearing files hold no secret and no file text", async () => {
  await using ws = await makeWorkspace({
    "config.env.txt":
      `${MARKER}\nGITHUB_TOKEN=${GH}\naws_access_key_id = ${AWS}\ndb_password = "${PASSWORD}"\n`,
    "docs/key.md": ["-----BEGIN RSA PRIVATE KEY-----", ...KEY, "-----END RSA PRIVATE KEY-----"]
      .join("\n") + "\n",
    [`${GH}.txt`]: `${MARKER}\n`,
  });
  await using server = new RawServer(ws.root, { MCP_LOG__LEVEL: "debug" });
  // Generous: under a loaded test run the first call also waits for the tool workers.
  const call = async (name: string, args: Record<string, unknown>) => {
    const id = server.nextId();
    await server.send({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args, _meta: META },
    });
    return await server.responseFor(id, 60_000);
  };
  const answers = [
    await call("read_file", { path: "config.env.txt" }),
    await call("read_file", { path: "docs/key.md", start_line: 2, end_line: 3 }),
    await call("list_directory", {}),
    await call("read_file", { path: `${GH}/missing.txt` }),
    await call("read_file", { path: "config.env.txt", start_line: 99 }),
  ];
  for (const answer of answers) assert.ok(answer.result, JSON.stringify(answer));
  const stdout = server.lines.join("\n");
  assert.ok(!stdout.includes(GH) && !stdout.includes(KEY[0]), "the answers are redacted too");
  await server.closeStdin();
  await server.exit(30_000);
  const stderr = server.stderr;
  assert.match(stderr, /serving workspace/, "the logs were captured at debug level");
  for (const secret of [GH, AWS, PASSWORD, ...KEY, MARKER]) {
    assert.ok(!stderr.includes(secret), `stderr holds ${secret.slice(0, 8)}…:\n${stderr}`);
  }
});
