/**
 * The release build, checked here without building: `deno task compile`
 * compiles with exactly the permission set and V8 flags of
 * `deno task devserver` (both parsed from deno.json), every unstable
 * feature deno.json names, every module the program starts by URL, all
 * five targets; the generated entry bakes the commit and the permission
 * set; SHA256SUMS matches `sha256sum`; the smoke script passes against the
 * program run from source.
 */

import assert from "node:assert/strict";
import {
  binaryName,
  compileArgs,
  entrySource,
  GENERATED_ENTRY,
  gitCommit,
  sha256Sums,
  TARGETS,
  WORKER_MODULES,
} from "../../scripts/compile.ts";
import { devserverRunFlags, MAIN_MODULE, REPO_ROOT } from "../../scripts/lib/program.ts";
import { smoke } from "../../scripts/smoke_binary.ts";

const denoJson = JSON.parse(Deno.readTextFileSync(`${REPO_ROOT}/deno.json`));

/** The `deno run` flags of a deno.json task whose script is `entry`. */
function taskFlags(task: string, entry: string): string[] {
  const tokens = (denoJson.tasks[task] as string).split(/\s+/);
  assert.equal(tokens[0], "deno", task);
  assert.equal(tokens[1], "run", task);
  const at = tokens.indexOf(entry);
  assert.ok(at > 1, `${task} does not run ${entry}`);
  return tokens.slice(2, at);
}

Deno.test("compile: the compile task and the devserver task use the same permission set and the same V8 flags", () => {
  const run = taskFlags("devserver", "src/cli/main.ts");
  // The compile task runs the compile script, which builds its flags from the devserver task.
  taskFlags("compile", "scripts/compile.ts");
  const runPermission = run.filter((f) => /^(-P|--permission-set)\b/.test(f));
  const runV8 = run.filter((f) => f.startsWith("--v8-flags="));
  assert.deepEqual(runPermission, ["-P=devserver"]);
  assert.equal(runV8.length, 1);
  assert.match(runV8[0], /--enable-experimental-regexp-engine-on-excessive-backtracks/);
  for (const target of TARGETS) {
    const args = compileArgs(target, `dist/${binaryName(target)}`);
    assert.equal(args[0], "compile");
    assert.deepEqual(args.filter((f) => /^(-P|--permission-set)\b/.test(f)), runPermission);
    assert.deepEqual(args.filter((f) => f.startsWith("--v8-flags=")), runV8);
    assert.ok(!args.some((f) => /^--allow-|^-A$/.test(f)), "compile adds its own grants");
    assert.equal(args[args.indexOf("--target") + 1], target);
    assert.equal(args.at(-1), GENERATED_ENTRY);
  }
  // The set itself is what the binary gets; write is in it (ADR-045).
  assert.equal(denoJson.permissions.devserver.write, true);
  assert.deepEqual(devserverRunFlags().filter((f) => f.startsWith("-P")), runPermission);
});

Deno.test("compile: every unstable feature deno.json names is a compile flag (worker-options among them)", () => {
  const unstable: string[] = denoJson.unstable;
  assert.ok(unstable.includes("worker-options"));
  const args = compileArgs(TARGETS[0], "dist/x");
  for (const feature of unstable) assert.ok(args.includes(`--unstable-${feature}`), feature);
});

Deno.test("compile: the five release targets, the Windows one with .exe", () => {
  assert.deepEqual([...TARGETS].sort(), [
    "aarch64-apple-darwin",
    "aarch64-unknown-linux-gnu",
    "x86_64-apple-darwin",
    "x86_64-pc-windows-msvc",
    "x86_64-unknown-linux-gnu",
  ]);
  assert.equal(binaryName("x86_64-pc-windows-msvc"), "devserver-x86_64-pc-windows-msvc.exe");
  assert.equal(binaryName("aarch64-apple-darwin"), "devserver-aarch64-apple-darwin");
});

Deno.test("compile: every module started by URL under src/ is embedded with --include", () => {
  const started = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(`${REPO_ROOT}/${dir}`)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (entry.name.endsWith(".ts")) {
        const source = Deno.readTextFileSync(`${REPO_ROOT}/${path}`);
        for (const m of source.matchAll(/new URL\(\s*"(\.[^"]+\.ts)"\s*,\s*import\.meta\.url\)/g)) {
          const url = new URL(m[1], `file:///${path}`);
          started.add(url.pathname.slice(1));
        }
      }
    }
  };
  walk("src");
  assert.ok(started.size >= 2, [...started].join(", "));
  const args = compileArgs(TARGETS[0], "dist/x");
  const included = args.flatMap((a, i) => args[i - 1] === "--include" ? [a] : []);
  assert.deepEqual(included.sort(), [...started].sort());
  assert.deepEqual([...WORKER_MODULES].sort(), [...started].sort());
});

Deno.test("compile: the generated entry bakes the commit, target, V8 flags and deno.json's permission set, then runs main", async () => {
  const commit = await gitCommit();
  assert.match(commit, /^[0-9a-f]{40}(-dirty)?$/);
  const source = entrySource({ commit, target: "aarch64-apple-darwin" });
  const baked = JSON.parse(source.match(/setBuildInfo\((.*)\);/)![1]);
  assert.equal(baked.commit, commit);
  assert.equal(baked.target, "aarch64-apple-darwin");
  assert.deepEqual(baked.permissionSet, denoJson.permissions.devserver);
  assert.deepEqual([baked.v8Flags], devserverRunFlags().filter((f) => f.startsWith("--v8-flags")));
  assert.match(source, /import \{ main \} from "\.\.\/\.\.\/src\/cli\/main\.ts"/);
  assert.ok(source.indexOf("setBuildInfo(") < source.indexOf("main(Deno.args)"));
});

Deno.test("compile: the generated entry, run from source, makes version print the baked build", async () => {
  const dir = `${REPO_ROOT}/dist/.build`;
  await Deno.mkdir(dir, { recursive: true });
  const entry = `${dir}/version_test_entry.ts`;
  const commit = "0123456789abcdef0123456789abcdef01234567";
  await Deno.writeTextFile(entry, entrySource({ commit, target: "x86_64-unknown-linux-gnu" }));
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...devserverRunFlags(), entry, "version"],
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.match(
      text,
      new RegExp(`^commit ${commit} \\(compiled for x86_64-unknown-linux-gnu\\)$`, "m"),
    );
    assert.match(text, /^v8 \d+\.\d+/m);
    assert.match(text, /^v8 flags --enable-experimental-regexp-engine-on-excessive-backtracks,/m);
    assert.match(text, /^permission set devserver \{"read":true,.*"write":true/m);
    assert.match(
      text,
      /^permissions at start read=granted write=granted net=granted env=granted run=granted/m,
    );
  } finally {
    await Deno.remove(entry);
  }
});

Deno.test("compile: SHA256SUMS lines are what sha256sum -c reads, with the same digests", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/devserver-b`, "second binary\n");
    await Deno.writeFile(`${dir}/devserver-a`, new Uint8Array([0, 1, 2, 255]));
    const sums = await sha256Sums([`${dir}/devserver-b`, `${dir}/devserver-a`]);
    const lines = sums.trimEnd().split("\n");
    assert.equal(lines.length, 2);
    assert.match(lines[0], /^[0-9a-f]{64} {2}devserver-a$/);
    assert.match(lines[1], /^[0-9a-f]{64} {2}devserver-b$/);
    await Deno.writeTextFile(`${dir}/SHA256SUMS`, sums);
    let check: Deno.CommandOutput;
    try {
      check = await new Deno.Command("sha256sum", { args: ["-c", "SHA256SUMS"], cwd: dir })
        .output();
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      console.error("sha256sum not installed: the digests are checked against crypto only");
      return;
    }
    assert.ok(check.success, new TextDecoder().decode(check.stderr));
    // A changed binary is caught.
    await Deno.writeTextFile(`${dir}/devserver-b`, "tampered\n");
    const tampered = await new Deno.Command("sha256sum", {
      args: ["-c", "SHA256SUMS"],
      cwd: dir,
      stdout: "null",
      stderr: "null",
    }).output();
    assert.equal(tampered.success, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("smoke script: version and every tool once over stdio pass against the program run from source", async () => {
  const steps = await smoke(["deno", "run", ...devserverRunFlags(), MAIN_MODULE], {
    conform: false,
  });
  const failed = steps.filter((s) => !s.ok);
  assert.deepEqual(failed, []);
  assert.equal(steps.filter((s) => s.name.startsWith("tools/call ")).length, 7);
  // And it can fail: a build is expected, and this is not one.
  const strict = await smoke(["deno", "run", ...devserverRunFlags(), MAIN_MODULE], {
    conform: false,
    expectBuild: true,
  });
  assert.equal(strict.find((s) => s.name === "version")?.ok, false);
});
