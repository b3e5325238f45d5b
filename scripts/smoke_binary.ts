/**
 * The smoke test of a built program, the same locally and in the release
 * workflow: on a fresh git workspace it runs `version`, `doctor`, `conform`
 * in-process, `conform` against the program itself over stdio, and every
 * published tool once over stdio, each answer checked. A compiled binary is
 * where the supervisor's read grant (computed from module URLs, which differ
 * inside a binary) and the embedded assets (worker modules, grammar `.wasm`)
 * are settled, so this is run on every runner OS with the binary it just
 * built, before it is attached to a release.
 *
 * Usage:
 *   deno run -A scripts/smoke_binary.ts dist/devserver-x86_64-unknown-linux-gnu
 *   deno run -A scripts/smoke_binary.ts -- deno run -P=devserver … src/cli/main.ts
 *
 * The second form smokes any command line (the program run from source, in
 * the local tests). `--expect-build` requires `version` to name a baked
 * commit (a compiled binary); `--sha256sums FILE` requires the binary's digest
 * to be the one FILE lists for its name. Exit 0 when every step passed, 1 otherwise;
 * one `ok`/`FAIL` line per step on stdout.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { Connection } from "../src/conform/connection.ts";
import { spawnTarget } from "../src/conform/target.ts";
import { sha256Sums } from "./compile.ts";

/** The tools a release must publish, each with arguments that succeed on the smoke workspace. */
export const SMOKE_CALLS: Readonly<Record<string, { args: unknown; expect: RegExp }>> = {
  read_file: { args: { path: "README.md" }, expect: /smoke workspace/ },
  list_directory: { args: { path: "src" }, expect: /greet\.ts/ },
  search_code: { args: { pattern: "greet" }, expect: /src\/greet\.ts/ },
  find_symbol: { args: { symbol: "greet" }, expect: /"method":"parsed"/ },
  project_overview: { args: {}, expect: /"language":"typescript"/ },
  git_log: { args: {}, expect: /smoke: first commit/ },
  git_diff: { args: {}, expect: /\+\/\/ changed after the commit/ },
};

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** One step's outcome. */
export interface Step {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=smoke", "-c", "user.email=smoke@example.invalid", ...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`git ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
}

/** A small git repository with a README, a TypeScript function, one commit and one change. */
export async function makeSmokeWorkspace(): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "devserver-smoke-" }));
  await Deno.mkdir(`${root}/src`);
  await Deno.writeTextFile(`${root}/README.md`, "# smoke workspace\n\nA release smoke test.\n");
  await Deno.writeTextFile(
    `${root}/src/greet.ts`,
    "export function greet(name: string): string {\n  return `hello ${name}`;\n}\n",
  );
  await git(root, "init", "-q");
  await git(root, "add", ".");
  await git(root, "commit", "-q", "-m", "smoke: first commit");
  await Deno.writeTextFile(`${root}/src/greet.ts`, "// changed after the commit\n", {
    append: true,
  });
  return root;
}

async function run(
  argv: readonly string[],
  timeoutMs: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
  }, timeoutMs);
  const out = await child.output();
  clearTimeout(timer);
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

function tail(text: string): string {
  return text.trim().split("\n").slice(-5).join(" | ").slice(0, 600);
}

/** Every tool once over stdio: `serve`, `tools/list`, then one `tools/call` each. */
async function toolsOverStdio(program: readonly string[], workspace: string): Promise<Step[]> {
  const target = spawnTarget([...program, "--workspace", workspace, "serve"]);
  const connection = new Connection(target, { requestTimeoutMs: 60_000, stalledTimeoutMs: 60_000 });
  const steps: Step[] = [];
  try {
    const list = await connection.request("tools/list", { _meta: META }, { modern: true });
    const names = list.kind === "response"
      ? ((list.message.result?.tools ?? []) as Array<{ name: string }>).map((t) => t.name).sort()
      : [];
    const wanted = Object.keys(SMOKE_CALLS).sort();
    steps.push({
      name: "tools/list over stdio",
      ok: JSON.stringify(names) === JSON.stringify(wanted),
      detail: list.kind === "response"
        ? names.join(", ")
        : `${list.kind}; ${tail(target.stderr())}`,
    });
    for (const [name, call] of Object.entries(SMOKE_CALLS)) {
      const reply = await connection.request(
        "tools/call",
        { name, arguments: call.args, _meta: META },
        { modern: true },
      );
      if (reply.kind !== "response") {
        steps.push({ name: `tools/call ${name}`, ok: false, detail: `${reply.kind}` });
        continue;
      }
      const result = reply.message.result ?? {};
      const text = JSON.stringify(result);
      const ok = result.isError !== true && call.expect.test(text);
      steps.push({
        name: `tools/call ${name}`,
        ok,
        detail: ok ? `${text.length} bytes` : text.slice(0, 600),
      });
    }
    await connection.closeInput();
    const ended = await Promise.race([
      target.ended,
      new Promise<{ code: null }>((resolve) => setTimeout(() => resolve({ code: null }), 20_000)),
    ]);
    steps.push({
      name: "serve exits 0 at end of input",
      ok: ended.code === 0,
      detail: `${ended.code}`,
    });
  } finally {
    await connection.close().catch(() => {});
    await target.kill();
  }
  return steps;
}

/** Whether `binary`'s SHA-256 is the one `sumsFile` (`sha256sum` format) lists for its name. */
export async function checksumStep(binary: string, sumsFile: string): Promise<Step> {
  const line = (await sha256Sums([binary])).trim();
  const listed = (await Deno.readTextFile(sumsFile)).split("\n").map((l) => l.trim());
  return {
    name: "checksum",
    ok: listed.includes(line),
    detail: listed.includes(line) ? line : `${line} is not in ${sumsFile}`,
  };
}

/** Runs every step against `program` (a binary, or a whole command line). */
export async function smoke(
  program: readonly string[],
  options: { expectBuild?: boolean; conform?: boolean } = {},
): Promise<Step[]> {
  const workspace = await makeSmokeWorkspace();
  const steps: Step[] = [];
  const ws = ["--workspace", workspace];
  try {
    const version = await run([...program, "version"], 30_000);
    const built = /^commit [0-9a-f]{40}(-dirty)? \(compiled for [\w-]+\)$/m.test(version.stdout);
    steps.push({
      name: "version",
      ok: version.code === 0 && /^devserver \d+\.\d+\.\d+/.test(version.stdout) &&
        /^permissions at start .*write=granted/m.test(version.stdout) &&
        (!options.expectBuild || built),
      detail: tail(version.stdout + version.stderr),
    });
    const doctor = await run([...program, ...ws, "doctor"], 60_000);
    steps.push({
      name: "doctor",
      ok: doctor.code === 0,
      detail: tail(doctor.stdout + doctor.stderr),
    });
    if (options.conform === false) {
      steps.push(...await toolsOverStdio(program, workspace));
      return steps;
    }
    const inProcess = await run([...program, ...ws, "conform"], 120_000);
    steps.push({
      name: "conform (in-process)",
      ok: inProcess.code === 0,
      detail: tail(inProcess.stdout + inProcess.stderr),
    });
    const itself = await run(
      [...program, "conform", "--stdio", "--", ...program, ...ws, "serve"],
      120_000,
    );
    steps.push({
      name: "conform --stdio against itself",
      ok: itself.code === 0,
      detail: tail(itself.stdout + itself.stderr),
    });
    steps.push(...await toolsOverStdio(program, workspace));
  } finally {
    await Deno.remove(workspace, { recursive: true }).catch(() => {});
  }
  return steps;
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: { "expect-build": { type: "boolean" }, sha256sums: { type: "string" } },
  });
  if (positionals.length === 0) {
    console.error("usage: smoke_binary.ts [--expect-build] BINARY | -- CMD ARGS…");
    Deno.exit(2);
  }
  const steps = values.sha256sums ? [await checksumStep(positionals[0], values.sha256sums)] : [];
  steps.push(...await smoke(positionals, { expectBuild: values["expect-build"] }));
  for (const step of steps) {
    console.log(`${step.ok ? "ok  " : "FAIL"} ${step.name}: ${step.detail}`);
  }
  const failed = steps.filter((s) => !s.ok).length;
  console.log(`${steps.length - failed} passed, ${failed} failed`);
  Deno.exit(failed === 0 ? 0 : 1);
}
