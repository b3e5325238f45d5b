/**
 * The HTTP-mode settings: the listening address and port (and their flags),
 * the Host/Origin allowlists, the bearer token (inline or from a file, never
 * echoed), the cursor key file, and production's refusal of HTTP without a
 * token.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { isLoopbackHost, loadConfig } from "../../src/config/load.ts";
import { TOOL_QUEUE_LIMIT, TOOL_WORKER_POOL_SIZE } from "../../src/app.ts";
import { assertRefused } from "../helpers/config.ts";
import { makeWorkspace } from "../helpers/fixtures.ts";

const TOKEN = "s3cr3t-token-value-0123456789";

Deno.test("config http: defaults are loopback, port 8080, no token, no shared cursor key", async () => {
  await using ws = await makeWorkspace();
  const config = loadConfig({}, { cwd: ws.root });
  assert.equal(config.httpHost, "127.0.0.1");
  assert.equal(config.httpPort, 8080);
  assert.deepEqual(config.httpAllowedHosts, []);
  assert.deepEqual(config.httpAllowedOrigins, []);
  assert.equal(config.bearerToken, undefined);
  assert.equal(config.cursorKey, undefined);
  assert.equal(config.httpMetrics, false);
});

Deno.test("config http: the default call cap keeps the workers fed and queues the rest in ours (ADR-096)", async () => {
  await using ws = await makeWorkspace();
  const { httpMaxConcurrentCalls: cap, httpMaxQueuedCalls: queued } = loadConfig({}, {
    cwd: ws.root,
  });
  // A worker that answers finds its next call already in the sandbox's queue ...
  assert.ok(cap >= 2 * TOOL_WORKER_POOL_SIZE, `cap ${cap}`);
  // ... which therefore never answers busy, and the other calls wait before the SDK, where a
  // waiting call holds less (fewer objects for every scavenge to copy).
  assert.ok(cap <= TOOL_QUEUE_LIMIT / 2, `cap ${cap}`);
  // 96 accepted at once, as with 32 + 64 before: a 64-connection client is queued, never
  // refused, and memory stays bounded by as many bodies as before.
  assert.equal(cap + queued, 96);
});

Deno.test("config http: --host and --port win over the environment and are checked the same way", async () => {
  await using ws = await makeWorkspace();
  const env = { MCP_HTTP__HOST: "localhost", MCP_HTTP__PORT: "9000" };
  const config = loadConfig(env, { cwd: ws.root, hostFlag: "[::1]", portFlag: "0" });
  assert.equal(config.httpHost, "::1");
  assert.equal(config.httpPort, 0);
  assertRefused(
    () => loadConfig(env, { cwd: ws.root, portFlag: "65536" }),
    /^--port must be between 0 and 65535, got "65536"$/,
  );
  assertRefused(
    () => loadConfig(env, { cwd: ws.root, hostFlag: "a b" }),
    /^--host must be an IP address or a host name, got "a b"$/,
  );
  assertRefused(
    () => loadConfig({ MCP_HTTP__HOST: "http://x" }, { cwd: ws.root }),
    /^MCP_HTTP__HOST must be/,
  );
});

Deno.test("config http: allowed hosts are lower-cased names; allowed origins are normalised origins", async () => {
  await using ws = await makeWorkspace();
  const config = loadConfig({
    MCP_HTTP__ALLOWED_HOSTS: "MCP.Example.com, 10.0.0.5",
    MCP_HTTP__ALLOWED_ORIGINS: "https://App.Example.com:443, http://10.0.0.5:8080",
  }, { cwd: ws.root });
  assert.deepEqual(config.httpAllowedHosts, ["mcp.example.com", "10.0.0.5"]);
  assert.deepEqual(config.httpAllowedOrigins, ["https://app.example.com", "http://10.0.0.5:8080"]);
  assertRefused(
    () => loadConfig({ MCP_HTTP__ALLOWED_HOSTS: "a.example:8080" }, { cwd: ws.root }),
    /^MCP_HTTP__ALLOWED_HOSTS entries are host names or IP addresses without a port/,
  );
  for (
    const origin of [
      "https://a.example/path",
      "ftp://a.example",
      "a.example",
      "https://u@a.example",
    ]
  ) {
    assertRefused(
      () => loadConfig({ MCP_HTTP__ALLOWED_ORIGINS: origin }, { cwd: ws.root }),
      /^MCP_HTTP__ALLOWED_ORIGINS entries are origins, scheme:\/\/host\[:port\]/,
    );
  }
});

Deno.test("attack: a bad bearer token is refused without the error repeating it", async () => {
  await using ws = await makeWorkspace();
  const short = "tooShort-123";
  const message = assertRefused(
    () => loadConfig({ MCP_HTTP__BEARER_TOKEN: short }, { cwd: ws.root }),
    /^MCP_HTTP__BEARER_TOKEN must be 16 to 4096 characters long \(it is 12\)$/,
  );
  assert.ok(!message.includes(short));
  const spaced = "has spaces inside the token value";
  const other = assertRefused(
    () => loadConfig({ MCP_HTTP__BEARER_TOKEN: spaced }, { cwd: ws.root }),
    /^MCP_HTTP__BEARER_TOKEN may hold only/,
  );
  assert.ok(!other.includes("spaces"));
  assert.equal(loadConfig({ MCP_HTTP__BEARER_TOKEN: TOKEN }, { cwd: ws.root }).bearerToken, TOKEN);
});

Deno.test("config http: the token file is read at start, a trailing newline dropped; both sources is refused", async () => {
  await using ws = await makeWorkspace({ "token.txt": TOKEN + "\n", "empty.txt": "" });
  const file = join(ws.root, "token.txt");
  assert.equal(
    loadConfig({ MCP_HTTP__BEARER_TOKEN_FILE: file }, { cwd: ws.root }).bearerToken,
    TOKEN,
  );
  // Relative to the directory the command ran from.
  assert.equal(
    loadConfig({ MCP_HTTP__BEARER_TOKEN_FILE: "token.txt" }, { cwd: ws.root }).bearerToken,
    TOKEN,
  );
  assertRefused(
    () =>
      loadConfig({ MCP_HTTP__BEARER_TOKEN_FILE: file, MCP_HTTP__BEARER_TOKEN: TOKEN }, {
        cwd: ws.root,
      }),
    /^set MCP_HTTP__BEARER_TOKEN or MCP_HTTP__BEARER_TOKEN_FILE, not both$/,
  );
  assertRefused(
    () => loadConfig({ MCP_HTTP__BEARER_TOKEN_FILE: "empty.txt" }, { cwd: ws.root }),
    /^the file named by MCP_HTTP__BEARER_TOKEN_FILE is empty$/,
  );
  assertRefused(
    () => loadConfig({ MCP_HTTP__BEARER_TOKEN_FILE: "missing.txt" }, { cwd: ws.root }),
    /^the file named by MCP_HTTP__BEARER_TOKEN_FILE does not exist: /,
  );
});

Deno.test("config http: the cursor key file holds at least 32 bytes, else start is refused", async () => {
  await using ws = await makeWorkspace({ "key.bin": "k".repeat(32), "short.bin": "12345" });
  const config = loadConfig({ MCP_SERVER__CURSOR_KEY_FILE: "key.bin" }, { cwd: ws.root });
  assert.deepEqual(config.cursorKey, new TextEncoder().encode("k".repeat(32)));
  assertRefused(
    () => loadConfig({ MCP_SERVER__CURSOR_KEY_FILE: "short.bin" }, { cwd: ws.root }),
    /^the file named by MCP_SERVER__CURSOR_KEY_FILE holds 5 bytes; a cursor key needs at least 32/,
  );
  assertRefused(
    () => loadConfig({ MCP_SERVER__CURSOR_KEY_FILE: "nope.bin" }, { cwd: ws.root }),
    /^the file named by MCP_SERVER__CURSOR_KEY_FILE does not exist/,
  );
  assertRefused(
    () => loadConfig({ MCP_SERVER__CURSOR_KEY_FILE: "." }, { cwd: ws.root }),
    /^MCP_SERVER__CURSOR_KEY_FILE does not name a regular file$/,
  );
});

Deno.test("config http: production refuses HTTP mode without a bearer token, and serves with one", async () => {
  await using ws = await makeWorkspace();
  const env = { MCP_ENVIRONMENT: "production", MCP_SERVER__TRANSPORT: "http" };
  assertRefused(
    () => loadConfig(env, { cwd: ws.root }),
    /^MCP_ENVIRONMENT=production refuses to start: HTTP mode needs a bearer token/,
  );
  assertRefused(
    () => loadConfig({ MCP_ENVIRONMENT: "production" }, { cwd: ws.root, transportFlag: "http" }),
    /HTTP mode needs a bearer token/,
  );
  const config = loadConfig({ ...env, MCP_HTTP__BEARER_TOKEN: TOKEN }, { cwd: ws.root });
  assert.equal(config.transport, "http");
  // stdio in production needs no token.
  assert.equal(loadConfig({ MCP_ENVIRONMENT: "production" }, { cwd: ws.root }).transport, "stdio");
});

Deno.test("config http: loopback hosts are recognised, others are not", () => {
  for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "LOCALHOST"]) {
    assert.ok(isLoopbackHost(host), host);
  }
  for (const host of ["0.0.0.0", "::", "10.0.0.1", "example.com", "127.0.0.1.example.com"]) {
    assert.ok(!isLoopbackHost(host), host);
  }
});
