/**
 * The command-line contract of the real program, run as the task runs it:
 * exit codes, what goes to stdout and what to stderr, help for every
 * command, configuration errors, `doctor`, `call` and `tools`, and relative
 * paths resolved against the directory the user ran from.
 */

import assert from "node:assert/strict";
import { makeWorkspace } from "../helpers/fixtures.ts";
import { runProgram } from "../helpers/program.ts";
import { REPO_ROOT } from "../../scripts/lib/program.ts";
import { childEnv, FENCE_OPEN, MODERN } from "./support.ts";

const COMMANDS = ["serve", "call", "tools", "doctor", "version", "help"];

/** stderr as lines, without the trailing newline. */
function stderrLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line !== "");
}

Deno.test("version names the program and the 2026-07-28 revision", async () => {
  for (const argv of [["version"], ["--version"], ["-V"]]) {
    const out = await runProgram(argv);
    assert.equal(out.code, 0, argv.join(" "));
    assert.match(out.stdout, /^devserver \d+\.\d+\.\d+\n/);
    assert.match(out.stdout, new RegExp(`protocol ${MODERN}`));
    assert.equal(out.stderr, "");
  }
});

Deno.test("help and --help work for the program and every command", async () => {
  // [argv, the command whose help is expected (undefined: the program's)]
  const runs: Array<[string[], string | undefined]> = [
    [["help"], undefined],
    [["--help"], undefined],
    [["-h"], undefined],
    [[], undefined],
    ...COMMANDS.flatMap((command): Array<[string[], string | undefined]> => [
      // `CMD --help` is that command's help, `help --help` included.
      [[command, "--help"], command],
      [[command, "-h"], command],
      [["help", command], command],
    ]),
  ];
  const results = await Promise.all(runs.map(([argv]) => runProgram(argv)));
  runs.forEach(([argv, command], i) => {
    const { code, stdout, stderr } = results[i];
    const label = `devserver ${argv.join(" ")}`;
    assert.equal(code, 0, label);
    assert.equal(stderr, "", label);
    if (command) {
      assert.match(stdout, new RegExp(`^Usage: devserver .*\\b${command}\\b`), label);
    } else {
      assert.match(stdout, /^Usage: devserver \[--workspace DIR\] <command>/m, label);
      for (const name of COMMANDS) assert.match(stdout, new RegExp(`^  ${name}\\b`, "m"), label);
    }
  });
});

Deno.test("an unknown command: exit 2, one stderr line with a suggestion, empty stdout", async () => {
  const out = await runProgram(["serv"]);
  assert.equal(out.code, 2);
  assert.equal(out.stdout, "");
  const lines = stderrLines(out.stderr);
  assert.equal(lines.length, 1, out.stderr);
  assert.match(lines[0], /unknown command "serv" \(did you mean serve\?\)/);

  const help = await runProgram(["help", "nope"]);
  assert.equal(help.code, 2);
  assert.equal(help.stdout, "");
  assert.equal(stderrLines(help.stderr).length, 1);
});

Deno.test("unknown MCP_ variables are named with the nearest known one; exit 2", async () => {
  await using ws = await makeWorkspace();
  const cases: Array<[string, string]> = [
    ["MCP_SANDBOX__MAX_FILE_BYTE", "MCP_SANDBOX__MAX_FILE_BYTES"], // unknown field
    ["MCP_SANDBX__WORKSPACE", "MCP_SANDBOX__WORKSPACE"], // unknown section
    ["MCP_ENVIROMENT", "MCP_ENVIRONMENT"], // top-level typo
  ];
  const results = await Promise.all(
    cases.map(([name]) => runProgram(["--workspace", ws.root, "serve"], { env: { [name]: "1" } })),
  );
  cases.forEach(([name, nearest], i) => {
    const { code, stdout, stderr } = results[i];
    assert.equal(code, 2, name);
    assert.equal(stdout, "", name);
    const lines = stderrLines(stderr);
    assert.equal(lines.length, 1, stderr);
    assert.ok(lines[0].includes(`unknown setting ${name}`), lines[0]);
    assert.ok(lines[0].includes(`did you mean ${nearest}?`), lines[0]);
  });
});

Deno.test("bad setting values and unsafe production settings: exit 2, one line", async () => {
  await using ws = await makeWorkspace();
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ MCP_SANDBOX__MAX_FILE_BYTES: "lots" }, /MCP_SANDBOX__MAX_FILE_BYTES must be a whole number/],
    [
      { MCP_SANDBOX__FOLLOW_SYMLINKS: "maybe" },
      /MCP_SANDBOX__FOLLOW_SYMLINKS must be true or false/,
    ],
    [{ MCP_LOG__LEVEL: "loud" }, /MCP_LOG__LEVEL must be one of/],
    [
      { MCP_ENVIRONMENT: "production", MCP_CONTENT__REDACT_SECRETS: "false" },
      /MCP_ENVIRONMENT=production refuses to start: MCP_CONTENT__REDACT_SECRETS is off/,
    ],
  ];
  const results = await Promise.all(
    cases.map(([env]) => runProgram(["--workspace", ws.root, "serve"], { env })),
  );
  cases.forEach(([env, expected], i) => {
    const { code, stdout, stderr } = results[i];
    assert.equal(code, 2, JSON.stringify(env));
    assert.equal(stdout, "");
    const lines = stderrLines(stderr);
    assert.equal(lines.length, 1, stderr);
    assert.match(lines[0], expected);
  });
  // The same production settings with redaction on do start (and end at EOF on stdin).
  const ok = await runProgram(["--workspace", ws.root, "serve"], {
    env: { MCP_ENVIRONMENT: "production" },
  });
  assert.equal(ok.code, 0, ok.stderr);
});

Deno.test("doctor: ready on a workspace (exit 0), cannot serve a missing one (exit 1)", async () => {
  await using ws = await makeWorkspace({ "a.txt": "a\n" });
  const [ready, missing] = await Promise.all([
    runProgram(["--workspace", ws.root, "doctor"]),
    runProgram(["--workspace", ws.path("does-not-exist"), "doctor"]),
  ]);
  assert.equal(ready.code, 0, ready.stdout + ready.stderr);
  assert.match(ready.stdout, /^ready to serve$/m);
  assert.match(ready.stdout, /permission layer active/);
  const rules = Deno.build.os === "windows"
    ? "windows"
    : Deno.build.os === "darwin"
    ? "darwin"
    : "posix";
  assert.match(ready.stdout, new RegExp(`path rules: ${rules} \\(from the host`));
  assert.doesNotMatch(ready.stdout, /^FAIL/m);

  assert.equal(missing.code, 1);
  assert.match(missing.stdout, /^FAIL {2}configuration: the workspace .* does not exist/m);
  assert.match(missing.stdout, /^cannot serve$/m);
});

Deno.test("call: fenced text, --json, refusals exit 1, bad JSON exits 2", async () => {
  await using ws = await makeWorkspace({ "x": "first\nsecond\n", ".env": "KEY=v\n" });
  const [text, json, refused, badJson, unknownTool] = await Promise.all([
    runProgram(["--workspace", ws.root, "call", "read_file", '{"path":"x"}']),
    runProgram(["--workspace", ws.root, "call", "read_file", '{"path":"x"}', "--json"]),
    runProgram(["--workspace", ws.root, "call", "read_file", '{"path":".env"}']),
    runProgram(["--workspace", ws.root, "call", "read_file", "{path:x}"]),
    runProgram(["--workspace", ws.root, "call", "rm", "{}"]),
  ]);

  assert.equal(text.code, 0, text.stderr);
  const nonce = text.stdout.match(FENCE_OPEN)?.[1];
  assert.ok(nonce, text.stdout);
  assert.ok(text.stdout.includes(`1\tfirst\n2\tsecond\n</untrusted-file-content id=${nonce}>`));
  assert.equal(text.stderr, "");

  assert.equal(json.code, 0, json.stderr);
  const result = JSON.parse(json.stdout);
  assert.equal(result.content[0].type, "text");
  assert.match(result.content[0].text, FENCE_OPEN);
  assert.equal(result.structuredContent.content, "first\nsecond\n");
  assert.equal(result.structuredContent.untrusted_content, true);

  assert.equal(refused.code, 1);
  assert.match(refused.stdout, /^Refused \(denied_path\)/);
  assert.match(refused.stdout, /\nRemedy: /);
  assert.ok(!refused.stdout.includes("KEY=v"));

  assert.equal(badJson.code, 2);
  assert.equal(badJson.stdout, "");
  assert.equal(stderrLines(badJson.stderr).length, 1);
  assert.match(badJson.stderr, /not valid JSON/);

  assert.equal(unknownTool.code, 2);
  assert.equal(unknownTool.stdout, "");
  assert.match(unknownTool.stderr, /Unknown tool: "rm"/);
});

Deno.test("tools --json lists every tool with its schemas", async () => {
  const [json, plain] = await Promise.all([runProgram(["tools", "--json"]), runProgram(["tools"])]);
  assert.equal(json.code, 0);
  const { tools } = JSON.parse(json.stdout);
  assert.deepEqual(tools.map((tool: { name: string }) => tool.name), [
    "read_file",
    "list_directory",
    "search_code",
    "find_symbol",
    "project_overview",
    "git_log",
    "git_diff",
  ]);
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, "object");
    assert.equal(tool.outputSchema.type, "object");
    assert.equal(tool.annotations.readOnlyHint, true);
  }
  assert.ok("path" in tools[0].inputSchema.properties);
  assert.ok("cursor" in tools[1].inputSchema.properties);
  assert.equal(plain.code, 0);
  assert.match(plain.stdout, /^read_file — Read file$/m);
  assert.match(plain.stdout, /^list_directory — List directory$/m);
  assert.match(plain.stdout, /^search_code — Search code$/m);
});

Deno.test("a relative --workspace resolves against --cwd, not the process directory", async () => {
  await using ws = await makeWorkspace({ "sub/inner.txt": "inner\n" });
  const out = await runProgram(
    ["--cwd", ws.root, "--workspace", "sub", "call", "read_file", '{"path":"inner.txt"}', "--json"],
  );
  assert.equal(out.code, 0, out.stderr);
  assert.equal(JSON.parse(out.stdout).structuredContent.content, "inner\n");
});

Deno.test("deno task devserver resolves relative paths against where the user ran it", async () => {
  await using ws = await makeWorkspace({ "here.txt": "h\n", "dir/nested.txt": "n\n" });
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "task",
      "-q",
      "--config",
      `${REPO_ROOT}/deno.json`,
      "devserver",
      "--workspace",
      ".",
      "call",
      "list_directory",
    ],
    cwd: ws.root,
    env: childEnv(),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.equal(stderr, "");
  // stdout is exactly the program's output: no task banner before it, nothing after it.
  const lines = stdout.trimEnd().split("\n");
  assert.equal(lines[0], "list_directory: 2 entries.", stdout);
  const nonce = lines[1].match(/^<untrusted-directory-listing id=([0-9a-f]{32})>$/)?.[1];
  assert.ok(nonce, stdout);
  assert.deepEqual(lines.slice(2, -1), ["dir/", "here.txt  2 bytes"]);
  assert.equal(lines.at(-1), `</untrusted-directory-listing id=${nonce}>`);
});

Deno.test("concurrent starts all get a working sandbox", async () => {
  // Regression: the main thread used to drop its read grant before the
  // supervisor worker's modules had loaded (Deno checks that loading against
  // the creating thread), and a start now and then lost its sandbox.
  await using ws = await makeWorkspace({ "a.txt": "a\n" });
  const runs = await Promise.all(
    Array.from(
      { length: 8 },
      () => runProgram(["--workspace", ws.root, "call", "read_file", '{"path":"a.txt"}']),
    ),
  );
  for (const run of runs) {
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /1\ta\n/);
  }
});
