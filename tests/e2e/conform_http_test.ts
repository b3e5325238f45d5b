/**
 * `devserver conform` as a child program against devserver's real HTTP
 * transport (`serve --transport http`): green as it is; `--strict` turning
 * a SHOULD failure into exit 1 behind a mutating proxy; `--junit FILE`
 * written atomically in the real permission set, and a refused write a
 * clear usage error (exit 2) that leaves the old report intact.
 */

import assert from "node:assert/strict";
import { startHttpInstance } from "../../scripts/lib/http_instance.ts";
import { makeWorkspace } from "../helpers/fixtures.ts";
import { devserverRunFlags, MAIN_MODULE, REPO_ROOT, runProgram } from "../helpers/program.ts";
import { childEnv } from "./support.ts";

const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

/** Drops serverInfo from every result's `_meta` (a SHOULD of 2026-07-28: C004, C036). */
function dropServerInfo(text: string, eventStream: boolean): string {
  const strip = (json: string) => {
    try {
      const message = JSON.parse(json);
      if (message?.result?._meta) delete message.result._meta[SERVER_INFO];
      return JSON.stringify(message);
    } catch {
      return json;
    }
  };
  if (!eventStream) return text === "" ? text : strip(text);
  return text.split("\n").map((line) =>
    line.startsWith("data:") ? `data: ${strip(line.slice(5).trim())}` : line
  )
    .join("\n");
}

/** A proxy in front of `upstream` that applies {@linkcode dropServerInfo} to every answer. */
function mutatingProxy(upstream: string): { url: string; close: () => Promise<void> } {
  const base = new URL(upstream);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const headers = new Headers(request.headers);
      headers.set("host", base.host);
      const answer = await fetch(new URL(new URL(request.url).pathname, base), {
        method: request.method,
        headers,
        body: request.body,
      });
      const eventStream = (answer.headers.get("content-type") ?? "").startsWith(
        "text/event-stream",
      );
      const text = dropServerInfo(await answer.text(), eventStream);
      const out = new Headers(answer.headers);
      out.delete("content-length");
      return new Response(answer.status === 202 || answer.status === 204 ? null : text, {
        status: answer.status,
        headers: out,
      });
    },
  );
  return { url: `http://127.0.0.1:${server.addr.port}/mcp`, close: () => server.shutdown() };
}

Deno.test({
  name: "conform --http: devserver's real HTTP transport is conformant, SHOULDs included",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using ws = await makeWorkspace({ "a.txt": "one\n" });
    await using server = await startHttpInstance(ws.root);
    const { code, stdout, stderr } = await runProgram([
      "conform",
      "--strict",
      "--http",
      server.url,
    ]);
    assert.equal(code, 0, stdout + stderr);
    assert.match(stdout, /^ok {4}C049 MUST {3}HTTP: an invalid Origin is 403$/m);
    assert.match(stdout, /^ok {4}C053 SHOULD HTTP: GET and DELETE are 405$/m);
    assert.doesNotMatch(stdout, /^FAIL /m);
    assert.match(stdout, /^conformant: 0 MUST and 0 SHOULD/m);
  },
});

Deno.test({
  name:
    "conform --strict: a server dropping serverInfo (a SHOULD) passes plain, fails strict (exit 1)",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using ws = await makeWorkspace({ "a.txt": "one\n" });
    await using server = await startHttpInstance(ws.root);
    const proxy = mutatingProxy(server.url);
    try {
      const only = ["--only", "C001,C004,C036", "--http", proxy.url];
      const plain = await runProgram(["conform", ...only]);
      assert.equal(plain.code, 0, plain.stdout + plain.stderr);
      assert.match(plain.stdout, /^FAIL {2}C036 SHOULD every result carries serverInfo in _meta$/m);
      const strict = await runProgram(["conform", "--strict", ...only]);
      assert.equal(strict.code, 1, strict.stdout + strict.stderr);
      assert.match(strict.stdout, /^FAIL {2}C036 SHOULD/m);
      assert.match(strict.stdout, /^ok {4}C001 MUST/m);
    } finally {
      await proxy.close();
    }
  },
});

Deno.test("conform --junit FILE in the real permission set: written, or a clear exit 2", async () => {
  await using ws = await makeWorkspace({ "a.txt": "one\n" });
  const file = `${ws.outside}/report.xml`;
  const args = ["--workspace", ws.root, "conform", "--only", "C001", "--junit", file];
  const denoJson = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/deno.json`));
  const { code, stdout, stderr } = await runProgram(args);
  if (denoJson.permissions.devserver.write === true) {
    assert.equal(code, 0, stderr);
    assert.match(await Deno.readTextFile(file), /tests="1" failures="0"/);
  } else {
    assert.equal(code, 2, stdout);
    assert.match(
      stderr,
      /^devserver: --junit .*report\.xml: this run may not write files; grant write/,
    );
    assert.match(stderr, /--junit -/);
  }
});

Deno.test("conform --junit FILE: replaced atomically; a refused write keeps the old report", async () => {
  await using ws = await makeWorkspace({ "a.txt": "one\n" });
  const file = `${ws.outside}/report.xml`;
  await Deno.writeTextFile(file, "previous report\n");
  const args = ["--workspace", ws.root, "conform", "--only", "C001", "--junit", file];
  const run = async (grant: string) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...devserverRunFlags(), grant, MAIN_MODULE, ...args],
      cwd: REPO_ROOT,
      env: childEnv(),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
  };
  // Attack-shaped: write explicitly denied where the report goes.
  const denied = await run(`--deny-write=${ws.outside}`);
  assert.equal(denied.code, 2, denied.stderr);
  assert.match(denied.stderr, /this run may not write files/);
  assert.equal(await Deno.readTextFile(file), "previous report\n");
  const granted = await run(`--allow-write=${ws.outside}`);
  assert.equal(granted.code, 0, granted.stderr);
  assert.match(
    await Deno.readTextFile(file),
    /^<\?xml [^]*tests="1" failures="0"[^]*<\/testsuite>\n$/,
  );
  const left = [...Deno.readDirSync(ws.outside)].map((e) => e.name);
  assert.deepEqual(left.filter((n) => n.endsWith(".tmp")), [], "a temporary file was left behind");
});
