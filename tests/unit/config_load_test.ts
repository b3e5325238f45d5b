import assert from "node:assert/strict";
import { join, parse as parsePath } from "node:path";
import { type Config, loadConfig, type LoadOptions } from "../../src/config/load.ts";
import { SETTINGS } from "../../src/config/schema.ts";
import { assertRefused } from "../helpers/config.ts";
import { makeWorkspace } from "../helpers/fixtures.ts";

/** Loads with `cwd` = `root` (no workspace flag) unless options say otherwise. */
function load(root: string, env: Record<string, string> = {}, options: Partial<LoadOptions> = {}) {
  return loadConfig(env, { cwd: root, ...options });
}

Deno.test("config: every setting takes its documented default when the environment is empty", async () => {
  await using ws = await makeWorkspace();
  const config = load(ws.root);
  const expected: Partial<Config> = {
    environment: "development",
    followSymlinks: false,
    maxFileBytes: 1024 * 1024,
    maxLines: 4000,
    denyExtra: [],
    toolTimeoutMs: 15000,
    listPageSize: 500,
    legacyClients: "serve",
    maxLineBytes: 1024 * 1024,
    transport: "stdio",
    redactSecrets: true,
    logLevel: "warn",
  };
  for (const [key, value] of Object.entries(expected)) {
    assert.deepEqual(config[key as keyof Config], value, key);
  }
  // Unset workspace means the current directory.
  assert.equal(config.workspace, ws.root);
  assert.equal(config.workspaceRoot, ws.root);
  assert.equal(config.workspaceName, "ws");
});

Deno.test("config: SETTINGS defaults parse to the values the loader uses", async () => {
  await using ws = await makeWorkspace();
  const config = load(ws.root);
  for (const spec of SETTINGS) {
    if (spec.key === "workspace") continue;
    const explicit = load(ws.root, { [spec.env]: spec.defaultText });
    assert.deepEqual(explicit[spec.key], config[spec.key], spec.env);
  }
});

Deno.test("config: booleans accept true/false spellings and refuse anything else", async () => {
  await using ws = await makeWorkspace();
  for (const text of ["true", "TRUE", " 1 ", "yes", "On"]) {
    assert.equal(load(ws.root, { MCP_SANDBOX__FOLLOW_SYMLINKS: text }).followSymlinks, true, text);
  }
  for (const text of ["false", "False", "0", "no", "OFF"]) {
    assert.equal(load(ws.root, { MCP_CONTENT__REDACT_SECRETS: text }).redactSecrets, false, text);
  }
  for (const text of ["maybe", "", "2", "truee"]) {
    assertRefused(
      () => load(ws.root, { MCP_CONTENT__REDACT_SECRETS: text }),
      /^MCP_CONTENT__REDACT_SECRETS must be true or false, got /,
    );
  }
});

Deno.test("config: integers accept whole numbers (with _ separators) inside their range", async () => {
  await using ws = await makeWorkspace();
  assert.equal(load(ws.root, { MCP_SANDBOX__MAX_LINES: "25" }).maxLines, 25);
  assert.equal(load(ws.root, { MCP_SANDBOX__MAX_LINES: " 1_000 " }).maxLines, 1000);
  assert.equal(load(ws.root, { MCP_SANDBOX__MAX_FILE_BYTES: "1" }).maxFileBytes, 1);
  assert.equal(
    load(ws.root, { MCP_SANDBOX__MAX_FILE_BYTES: String(64 * 1024 * 1024) }).maxFileBytes,
    64 * 1024 * 1024,
  );
  assert.equal(load(ws.root, { MCP_SANDBOX__TOOL_TIMEOUT_MS: "100" }).toolTimeoutMs, 100);
});

Deno.test("config: integers refuse non-numbers with a message naming the variable", async () => {
  await using ws = await makeWorkspace();
  for (const text of ["ten", "1.5", "1e3", "0x10", "", "12abc"]) {
    const message = assertRefused(
      () => load(ws.root, { MCP_SANDBOX__MAX_LINES: text }),
      /^MCP_SANDBOX__MAX_LINES must be a whole number, got /,
    );
    assert.ok(message.includes(JSON.stringify(text)), message);
  }
});

Deno.test("config: integers outside their range are refused with the bounds", async () => {
  await using ws = await makeWorkspace();
  const cases: [string, string, RegExp][] = [
    ["MCP_SANDBOX__MAX_FILE_BYTES", "0", /between 1 and 67108864, got "0"/],
    ["MCP_SANDBOX__MAX_FILE_BYTES", "67108865", /between 1 and 67108864/],
    ["MCP_SANDBOX__MAX_LINES", "-5", /between 1 and 1000000, got "-5"/],
    ["MCP_SANDBOX__TOOL_TIMEOUT_MS", "99", /between 100 and 600000/],
    ["MCP_SANDBOX__LIST_PAGE_SIZE", "10001", /between 1 and 10000/],
    ["MCP_SERVER__MAX_LINE_BYTES", "1023", /between 1024 and 67108864/],
    ["MCP_SANDBOX__MAX_LINES", "99999999999999999999", /between 1 and 1000000/],
  ];
  for (const [env, text, pattern] of cases) {
    assertRefused(() => load(ws.root, { [env]: text }), new RegExp(`^${env} must be`), pattern);
  }
});

Deno.test("config: enums accept their values case-insensitively and refuse others", async () => {
  await using ws = await makeWorkspace();
  assert.equal(load(ws.root, { MCP_LOG__LEVEL: "DEBUG" }).logLevel, "debug");
  assert.equal(load(ws.root, { MCP_SERVER__LEGACY_CLIENTS: " reject " }).legacyClients, "reject");
  assert.equal(load(ws.root, { MCP_SERVER__TRANSPORT: "stdio" }).transport, "stdio");
  assertRefused(
    () => load(ws.root, { MCP_LOG__LEVEL: "verbose" }),
    /^MCP_LOG__LEVEL must be one of error, warn, info, debug, got "verbose"$/,
  );
  assert.equal(load(ws.root, { MCP_SERVER__TRANSPORT: "HTTP" }).transport, "http");
  assertRefused(
    () => load(ws.root, { MCP_SERVER__TRANSPORT: "websocket" }),
    /^MCP_SERVER__TRANSPORT must be one of stdio, http, got "websocket"$/,
  );
  assertRefused(
    () => load(ws.root, { MCP_ENVIRONMENT: "prod" }),
    /^MCP_ENVIRONMENT must be one of development, production/,
  );
});

Deno.test("config: --transport wins over the environment and is checked the same way", async () => {
  await using ws = await makeWorkspace();
  assert.equal(load(ws.root, {}, { transportFlag: "STDIO" }).transport, "stdio");
  assert.equal(
    load(ws.root, { MCP_SERVER__TRANSPORT: "stdio" }, { transportFlag: "http" }).transport,
    "http",
  );
  assertRefused(
    () => load(ws.root, { MCP_SERVER__TRANSPORT: "stdio" }, { transportFlag: "sse" }),
    /^--transport must be one of stdio, http, got "sse"$/,
  );
});

Deno.test("config: lists split on commas, trim, drop empties, and are frozen", async () => {
  await using ws = await makeWorkspace();
  const config = load(ws.root, { MCP_SANDBOX__DENY_EXTRA: " *.log, ,internal.txt,," });
  assert.deepEqual(config.denyExtra, ["*.log", "internal.txt"]);
  assert.ok(Object.isFrozen(config.denyExtra));
});

Deno.test("config: list entries that are not names or name/name paths, or too long, are refused", async () => {
  await using ws = await makeWorkspace();
  assert.deepEqual(
    load(ws.root, { MCP_SANDBOX__DENY_EXTRA: "ok,dir/file,ci/*.token" }).denyExtra,
    ["ok", "dir/file", "ci/*.token"],
  );
  for (const bad of ["/etc/passwd", "dir/", "a//b", "a/../b", "./x"]) {
    assertRefused(
      () => load(ws.root, { MCP_SANDBOX__DENY_EXTRA: `ok,${bad}` }),
      /^MCP_SANDBOX__DENY_EXTRA entries are names or name\/name paths/,
      new RegExp(JSON.stringify(bad).replace(/[.*/]/g, "\\$&")),
    );
  }
  assertRefused(
    () => load(ws.root, { MCP_SANDBOX__DENY_EXTRA: "x".repeat(257) }),
    /^MCP_SANDBOX__DENY_EXTRA entries are names .* is longer than 256 characters$/,
  );
  assert.equal(
    load(ws.root, { MCP_SANDBOX__DENY_EXTRA: "x".repeat(256) }).denyExtra[0].length,
    256,
  );
  const many = Array.from({ length: 257 }, (_, i) => `n${i}`).join(",");
  assertRefused(
    () => load(ws.root, { MCP_SANDBOX__DENY_EXTRA: many }),
    /^MCP_SANDBOX__DENY_EXTRA takes at most 256 entries$/,
  );
  assert.equal(
    load(ws.root, { MCP_SANDBOX__DENY_EXTRA: many.slice(0, many.lastIndexOf(",")) }).denyExtra
      .length,
    256,
  );
});

Deno.test("config: a path setting with a NUL byte is refused", async () => {
  await using ws = await makeWorkspace();
  assertRefused(
    () => load(ws.root, { MCP_SANDBOX__WORKSPACE: "a\0b" }),
    /^MCP_SANDBOX__WORKSPACE must not contain a NUL byte$/,
  );
});

Deno.test("config: an unknown field in a known section is refused with a did-you-mean", async () => {
  await using ws = await makeWorkspace();
  assertRefused(
    () => load(ws.root, { MCP_SANDBOX__MAX_FILE_BYTE: "10" }),
    /^unknown setting MCP_SANDBOX__MAX_FILE_BYTE \(did you mean MCP_SANDBOX__MAX_FILE_BYTES\?\)/,
    /see docs\/configuration\.md/,
  );
});

Deno.test("config: an unknown section is refused with a did-you-mean", async () => {
  await using ws = await makeWorkspace();
  assertRefused(
    () => load(ws.root, { MCP_SANDBOXX__MAX_FILE_BYTES: "10" }),
    /^unknown setting MCP_SANDBOXX__MAX_FILE_BYTES \(did you mean MCP_SANDBOX__MAX_FILE_BYTES\?\)/,
  );
});

Deno.test("config: a top-level typo is refused with a did-you-mean", async () => {
  await using ws = await makeWorkspace();
  assertRefused(
    () => load(ws.root, { MCP_ENVIROMENT: "production" }),
    /^unknown setting MCP_ENVIROMENT \(did you mean MCP_ENVIRONMENT\?\)/,
  );
});

Deno.test("config: a lower-case mcp_ name is still an MCP setting and gets a hint", async () => {
  await using ws = await makeWorkspace();
  assertRefused(
    () => load(ws.root, { mcp_log__level: "debug" }),
    /^unknown setting mcp_log__level \(did you mean MCP_LOG__LEVEL\?\)/,
  );
});

Deno.test("config: an unrelated MCP_ name is refused without a hint", async () => {
  await using ws = await makeWorkspace();
  for (const name of ["MCP_PROXY_URL", "MCP_API_KEY", "MCP_X"]) {
    const message = assertRefused(
      () => load(ws.root, { [name]: "1" }),
      new RegExp(`^unknown setting ${name}; see docs/configuration\\.md`),
    );
    assert.ok(!message.includes("did you mean"), message);
  }
});

Deno.test("config: variables without the MCP_ prefix are ignored", async () => {
  await using ws = await makeWorkspace();
  const config = load(ws.root, {
    PATH: "/usr/bin",
    HOME: "/nonexistent",
    MCPX: "1",
    NOT_MCP_LOG__LEVEL: "verbose",
    LOG__LEVEL: "verbose",
  });
  assert.equal(config.logLevel, "warn");
  assert.equal(config.workspaceRoot, ws.root);
});

Deno.test("config: --workspace wins over MCP_SANDBOX__WORKSPACE, which wins over cwd", async () => {
  await using ws = await makeWorkspace({ "a/x.txt": "", "b/y.txt": "" });
  const both = load(ws.root, { MCP_SANDBOX__WORKSPACE: ws.path("b") }, {
    workspaceFlag: ws.path("a"),
  });
  assert.equal(both.workspaceRoot, ws.path("a"));
  assert.equal(both.workspaceName, "a");
  const envOnly = load(ws.root, { MCP_SANDBOX__WORKSPACE: ws.path("b") });
  assert.equal(envOnly.workspaceRoot, ws.path("b"));
  assert.equal(load(ws.path("a")).workspaceRoot, ws.path("a"));
});

Deno.test("config: a relative workspace resolves against cwd, not the process directory", async () => {
  await using ws = await makeWorkspace({ "sub/deeper/f.txt": "" });
  const fromEnv = load(ws.root, { MCP_SANDBOX__WORKSPACE: "sub/deeper" });
  assert.equal(fromEnv.workspace, ws.path("sub", "deeper"));
  assert.equal(fromEnv.workspaceRoot, ws.path("sub", "deeper"));
  const fromFlag = load(ws.path("sub"), {}, { workspaceFlag: "./deeper" });
  assert.equal(fromFlag.workspaceRoot, ws.path("sub", "deeper"));
  const up = load(ws.path("sub", "deeper"), {}, { workspaceFlag: ".." });
  assert.equal(up.workspaceRoot, ws.path("sub"));
});

Deno.test("config: a symlinked workspace keeps the configured path and resolves the root", async () => {
  await using ws = await makeWorkspace({ "real/f.txt": "", "alias": { symlink: "real" } });
  const config = load(ws.root, {}, { workspaceFlag: "alias" });
  assert.equal(config.workspace, ws.path("alias"));
  assert.equal(config.workspaceRoot, ws.path("real"));
  assert.equal(config.workspaceName, "real");
});

Deno.test("config: a workspace that does not exist is refused naming its source", async () => {
  await using ws = await makeWorkspace();
  assertRefused(
    () => load(ws.root, {}, { workspaceFlag: "missing" }),
    /^the workspace from --workspace does not exist: /,
    new RegExp(`"${ws.path("missing").replaceAll("/", "\\/")}"$`),
  );
  assertRefused(
    () => load(ws.root, { MCP_SANDBOX__WORKSPACE: "missing" }),
    /^the workspace from MCP_SANDBOX__WORKSPACE does not exist: /,
  );
  assertRefused(
    () => load(ws.path("gone")),
    /^the workspace from the current directory does not exist: /,
  );
});

Deno.test("config: a file given as the workspace is refused", async () => {
  await using ws = await makeWorkspace({ "file.txt": "x" });
  assertRefused(
    () => load(ws.root, {}, { workspaceFlag: "file.txt" }),
    /^the workspace from --workspace is not a directory: /,
  );
});

Deno.test("config: a workspace path through a file cannot be opened and is refused", async () => {
  await using ws = await makeWorkspace({ "file.txt": "x" });
  assertRefused(
    () => load(ws.root, { MCP_SANDBOX__WORKSPACE: "file.txt/inner" }),
    /^the workspace from MCP_SANDBOX__WORKSPACE cannot be opened: /,
  );
});

Deno.test("config: production refuses redaction off", async () => {
  await using ws = await makeWorkspace();
  assertRefused(
    () => load(ws.root, { MCP_ENVIRONMENT: "production", MCP_CONTENT__REDACT_SECRETS: "false" }),
    /^MCP_ENVIRONMENT=production refuses to start: MCP_CONTENT__REDACT_SECRETS is off$/,
  );
});

Deno.test("config: production refuses symlink following", async () => {
  await using ws = await makeWorkspace();
  assertRefused(
    () => load(ws.root, { MCP_ENVIRONMENT: "production", MCP_SANDBOX__FOLLOW_SYMLINKS: "true" }),
    /^MCP_ENVIRONMENT=production refuses to start: MCP_SANDBOX__FOLLOW_SYMLINKS is on$/,
  );
});

Deno.test("config: production refuses the filesystem root as workspace", async () => {
  await using ws = await makeWorkspace();
  const root = parsePath(ws.root).root;
  assertRefused(
    () => load(ws.root, { MCP_ENVIRONMENT: "production" }, { workspaceFlag: root }),
    /refuses to start: the workspace is a filesystem root$/,
  );
  // Development serves it (the refusal is production's rule, not a general one).
  assert.equal(load(ws.root, {}, { workspaceFlag: root }).workspaceRoot, root);
});

Deno.test("config: production refuses the home directory, also through a symlink", async () => {
  await using ws = await makeWorkspace({ "home/me/project/f.txt": "" });
  const home = ws.path("home", "me");
  assertRefused(
    () => load(ws.root, { MCP_ENVIRONMENT: "production" }, { workspaceFlag: home, homeDir: home }),
    /refuses to start: the workspace is a home directory$/,
  );
  const link = join(ws.outside, "home-link");
  await Deno.symlink(home, link);
  assertRefused(
    () => load(ws.root, { MCP_ENVIRONMENT: "production" }, { workspaceFlag: home, homeDir: link }),
    /the workspace is a home directory$/,
  );
});

Deno.test("config: production starts with safe settings, a project under home included", async () => {
  await using ws = await makeWorkspace({ "home/me/project/f.txt": "" });
  const config = load(ws.root, { MCP_ENVIRONMENT: "PRODUCTION" }, {
    workspaceFlag: ws.path("home", "me", "project"),
    homeDir: ws.path("home", "me"),
  });
  assert.equal(config.environment, "production");
  assert.equal(config.workspaceName, "project");
  // An unknown home (undefined) skips only the home check.
  assert.equal(load(ws.root, { MCP_ENVIRONMENT: "production" }).workspaceRoot, ws.root);
});

Deno.test("config: the loaded configuration is frozen", async () => {
  await using ws = await makeWorkspace();
  const config = load(ws.root);
  assert.ok(Object.isFrozen(config));
  assert.throws(() => {
    (config as { maxLines: number }).maxLines = 1;
  }, TypeError);
  assert.equal(config.maxLines, 4000);
});
