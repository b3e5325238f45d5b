/**
 * Attacks on the platform's path rules, through the real tool handlers and
 * result pipeline (in this thread, no workers): Windows and macOS semantics
 * injected on whatever OS runs the test, and files on the real filesystem
 * whose names are spellings of denied names (case, Unicode, trailing dots
 * and spaces, backslashes), which every tool must hide.
 */

import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { sandboxSettings } from "../../src/app.ts";
import type { RefusalCode } from "../../src/contract/refusal.ts";
import { createToolContext } from "../../src/tools/runtime.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { callDirect, configFor, makeWorkspace, type TempWorkspace } from "../helpers/fixtures.ts";
import { assertRefused, okStructured } from "./helpers.ts";

const KELVIN_KEY = "server.\u212Aey";
const NFC_DIR = "caf\u00e9-secrets";
const NFD_DIR = "cafe\u0301-secrets";

function contextFor(
  ws: TempWorkspace,
  pathSemantics: "posix" | "windows" | "darwin" | undefined,
  env: Record<string, string> = {},
): ToolContext {
  return createToolContext({ ...sandboxSettings(configFor(ws.root, env)), pathSemantics });
}

async function run(ctx: ToolContext, tool: string, args: Record<string, unknown>) {
  const result = await callDirect(ctx, tool, args);
  assert.ok(!("invalidParams" in result), JSON.stringify(result));
  return result as CallToolResult;
}

async function expectCode(
  ctx: ToolContext,
  ws: TempWorkspace,
  tool: string,
  path: string,
  code: RefusalCode,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const result = await run(ctx, tool, { path, ...extra });
  try {
    assertRefused(result, code, ws);
  } catch (error) {
    throw new Error(`${tool}(${JSON.stringify(path)}): ${(error as Error).message}`);
  }
}

function windowsWorkspace() {
  return makeWorkspace({
    ".git/config": "[remote] url = https://token@example.com\n",
    ".ssh/id_rsa": "PRIVATE-KEY\n",
    "x/readme.md": "x\n",
    "src/app.ts": "export const app = 1;\n",
    "a.txt": "alpha\n",
  });
}

Deno.test("attack: backslash paths into denied places (.git\\config, x\\..\\.ssh\\id_rsa, mixed .GIT/config) are refused denied_path under Windows semantics", async () => {
  await using ws = await windowsWorkspace();
  const ctx = contextFor(ws, "windows");
  for (
    const path of [
      ".git\\config",
      "x\\..\\.ssh\\id_rsa",
      ".GIT/config",
      ".Git\\CONFIG",
      "src\\..\\.ssh",
    ]
  ) {
    await expectCode(ctx, ws, "read_file", path, "denied_path");
  }
  await expectCode(ctx, ws, "list_directory", "x\\..\\.ssh", "denied_path");
  await expectCode(ctx, ws, "search_code", ".git\\", "denied_path", { pattern: "token" });
  await expectCode(ctx, ws, "find_symbol", "src\\..\\.git", "denied_path", { symbol: "x" });
});

Deno.test("attack: Windows drive, UNC and device paths (C:x, C:\\Windows, \\\\server\\share\\x, \\\\.\\PhysicalDrive0, \\\\?\\C:\\x) never reach the filesystem", async () => {
  await using ws = await windowsWorkspace();
  const ctx = contextFor(ws, "windows");
  const cases: [string, RefusalCode][] = [
    ["C:x", "invalid_path"],
    ["C:..\\..\\x", "invalid_path"],
    ["C:\\Windows", "outside_workspace"],
    ["c:/Windows/System32/config/SAM", "outside_workspace"],
    ["\\\\server\\share\\x", "outside_workspace"],
    ["//server/share/.git/config", "outside_workspace"],
    ["\\\\.\\PhysicalDrive0", "invalid_path"],
    ["\\\\?\\C:\\x", "invalid_path"],
    ["\\??\\C:\\x", "invalid_path"],
    ["\\Windows\\win.ini", "invalid_path"],
    [ws.root + "/a.txt", "invalid_path"], // a posix absolute path is drive-less under Windows rules
  ];
  for (const tool of ["read_file", "list_directory"]) {
    for (const [path, code] of cases) await expectCode(ctx, ws, tool, path, code);
  }
});

Deno.test("attack: Windows device names, data streams, trailing dots and spaces and 8.3 short names (CON, nul.txt, COM1, file::$DATA, .env::$DATA, .env , server.pem., GIT~1\\config) are refused invalid_path", async () => {
  await using ws = await makeWorkspace({
    "a.txt": "alpha\n",
    ".env": "TOKEN=1\n",
    "server.pem": "KEY\n",
    "CON": "not a device on linux\n",
  });
  const ctx = contextFor(ws, "windows");
  for (
    const path of [
      "CON",
      "nul.txt",
      "COM1",
      "src/LPT1.log",
      "a.txt::$DATA",
      "file::$DATA",
      ".env::$DATA",
      ".env:hidden",
      ".env ",
      ".env.",
      "server.pem.",
      "server.pem . ",
      "GIT~1\\config",
      "SSH~1/id_rsa",
    ]
  ) {
    await expectCode(ctx, ws, "read_file", path, "invalid_path");
  }
});

Deno.test("attack: a short name (GIT~1) is refused unless the folder lists it as a long name; a denied long name is denied_path either way", async () => {
  await using ws = await makeWorkspace({
    ".git/config": "[remote] url = https://token@example.com\n",
    "report~1.txt": "a real long name\n",
    "id_rsa~1": "PRIVATE-KEY\n",
  });
  const ctx = contextFor(ws, "windows");
  await expectCode(ctx, ws, "read_file", "GIT~1\\config", "invalid_path");
  await expectCode(ctx, ws, "read_file", "REPORT~1.TXT", "invalid_path"); // not the exact long name
  await expectCode(ctx, ws, "read_file", "id_rsa~1", "denied_path");
  await expectCode(ctx, ws, "read_file", "id_rsa~2", "denied_path");
  const served = okStructured(await run(ctx, "read_file", { path: "report~1.txt" }));
  assert.match(JSON.stringify(served), /a real long name/);
});

Deno.test("windows: ordinary paths still work with either separator (regression)", async () => {
  await using ws = await windowsWorkspace();
  const ctx = contextFor(ws, "windows");
  for (const path of ["src\\app.ts", "src/app.ts", ".\\src\\.\\app.ts", "x\\..\\a.txt"]) {
    const result = await run(ctx, "read_file", { path });
    const content = okStructured(result);
    assert.match(JSON.stringify(content), /app = 1|alpha/, path);
  }
  const listing = okStructured(await run(ctx, "list_directory", { path: "src\\" }));
  assert.deepEqual((listing.entries as { name: string }[]).map((e) => e.name), ["app.ts"]);
});

function spellingsWorkspace() {
  return makeWorkspace({
    [KELVIN_KEY]: "KELVIN-SECRET\n",
    "prod.ENV": "CASE-SECRET\n",
    "server.pem.": "DOT-SECRET\n",
    "tls.key ": "SPACE-SECRET\n",
    "config\\.env": "BACKSLASH-SECRET\n",
    [`${NFD_DIR}/api.ts`]: "export function leakedNfdSymbol() { return 'NFD-SECRET'; }\n",
    "src/ok.ts": "export function visibleSymbol() { return 'PLAIN-VISIBLE'; }\n",
  });
}

const SECRETS = [
  "KELVIN-SECRET",
  "CASE-SECRET",
  "DOT-SECRET",
  "SPACE-SECRET",
  "BACKSLASH-SECRET",
  "NFD-SECRET",
];

for (const flavor of [undefined, "posix", "darwin"] as const) {
  const label = flavor ?? "host";
  Deno.test(`attack (${label} semantics): files named as spellings of denied names (Kelvin-sign key, prod.ENV, server.pem., "tls.key ", config\\.env, an NFD folder under an NFC user pattern) are refused by read_file and hidden by list_directory, search_code and find_symbol`, async () => {
    await using ws = await spellingsWorkspace();
    const ctx = contextFor(ws, flavor, { MCP_SANDBOX__DENY_EXTRA: NFC_DIR });
    for (
      const path of [
        KELVIN_KEY,
        "prod.ENV",
        "server.pem.",
        "tls.key ",
        "config\\.env",
        `${NFD_DIR}/api.ts`,
      ]
    ) {
      await expectCode(ctx, ws, "read_file", path, "denied_path");
    }
    await expectCode(ctx, ws, "list_directory", NFD_DIR, "denied_path");

    const listing = okStructured(await run(ctx, "list_directory", { include_hidden: true }));
    assert.deepEqual((listing.entries as { name: string }[]).map((e) => e.name), ["src"]);
    assert.equal(listing.denied_count, 6);

    const search = await run(ctx, "search_code", { pattern: "SECRET" });
    const searchText = JSON.stringify(search);
    for (const secret of SECRETS) assert.ok(!searchText.includes(secret), `search leaks ${secret}`);
    const visible = JSON.stringify(await run(ctx, "search_code", { pattern: "PLAIN-VISIBLE" }));
    assert.ok(visible.includes("src/ok.ts"), "the search itself works: " + visible.slice(0, 300));

    const hidden = JSON.stringify(await run(ctx, "find_symbol", { symbol: "leakedNfdSymbol" }));
    assert.ok(!hidden.includes("NFD-SECRET") && !hidden.includes("api.ts"), hidden.slice(0, 300));
    const found = JSON.stringify(await run(ctx, "find_symbol", { symbol: "visibleSymbol" }));
    assert.ok(found.includes("src/ok.ts"), "find_symbol itself works: " + found.slice(0, 300));
  });
}

Deno.test("posix: names that only look like hazards elsewhere are served on posix (CON, a~1.txt, backslash names with no denied part)", async () => {
  await using ws = await makeWorkspace({
    "CON": "con\n",
    "GIT~1": "tilde\n",
    "a\\b.txt": "backslash\n",
    "x::y": "colons\n",
  });
  const ctx = contextFor(ws, "posix");
  for (const path of ["CON", "GIT~1", "a\\b.txt", "x::y"]) {
    okStructured(await run(ctx, "read_file", { path }));
  }
  // Under Windows rules a device name and a stream are refused before the filesystem is
  // asked; GIT~1 is served, because here it is a long name the folder lists.
  const windows = contextFor(ws, "windows");
  for (const path of ["CON", "x::y"]) {
    await expectCode(windows, ws, "read_file", path, "invalid_path");
  }
  okStructured(await run(windows, "read_file", { path: "GIT~1" }));
});
