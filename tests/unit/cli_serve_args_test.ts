/**
 * The `serve` command line of HTTP mode: `--transport http [--host H] [--port P]`
 * parse for `serve` only, and reach the configuration as flags that win
 * over the environment.
 */

import assert from "node:assert/strict";
import { parseCommandLine, UsageError } from "../../src/cli/args.ts";
import { COMMAND_TABLE } from "../../src/cli/commands.ts";
import { configFor } from "../../src/cli/config.ts";

Deno.test("cli: serve takes --transport http, --host and --port", () => {
  const args = parseCommandLine(
    ["--workspace", "/tmp", "serve", "--transport", "http", "--host", "::1", "--port", "0"],
    COMMAND_TABLE,
  );
  assert.equal(args.command, "serve");
  assert.equal(args.transport, "http");
  assert.equal(args.host, "::1");
  assert.equal(args.port, "0");
  const config = configFor(args);
  assert.equal(config.transport, "http");
  assert.equal(config.httpHost, "::1");
  assert.equal(config.httpPort, 0);
});

Deno.test("cli: --host and --port are usage errors on other commands", () => {
  for (const option of ["--host", "--port"]) {
    assert.throws(
      () => parseCommandLine(["call", "read_file", option, "1"], COMMAND_TABLE),
      (error: unknown) =>
        error instanceof UsageError && error.message === `${option} does not apply to call`,
    );
  }
});

Deno.test("cli: serve's help names the HTTP options and the listening line", () => {
  const help = COMMAND_TABLE.find((c) => c.name === "serve")!.help;
  assert.match(help, /--transport T\s+stdio or http/);
  assert.match(help, /--host H/);
  assert.match(help, /--port P/);
  assert.match(help, /listening on http:\/\/HOST:PORT\/mcp/);
});
