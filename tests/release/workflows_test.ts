/**
 * The two workflows, parsed as YAML (the `yaml` package, ADR-046) and
 * checked for what the release relies on: the release builds all five
 * targets with `deno task compile`, verifies SHA256SUMS, smoke-tests each
 * binary on its own runner OS with scripts/smoke_binary.ts before the
 * publish job may run, and attaches the binaries with SHA256SUMS; CI runs
 * `deno task test` on Linux (through `.ci/run`), macOS and Windows with the
 * pinned Deno.
 */

import assert from "node:assert/strict";
import { parse } from "yaml";
import { binaryName, TARGETS } from "../../scripts/compile.ts";
import { checksumStep } from "../../scripts/smoke_binary.ts";
import { REPO_ROOT } from "../../scripts/lib/program.ts";

interface WorkflowStep {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  if?: string;
}
interface Job {
  "runs-on": string;
  needs?: string | string[];
  strategy?: { matrix: Record<string, unknown> & { include?: Record<string, string>[] } };
  steps: WorkflowStep[];
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
}

const denoJson = JSON.parse(Deno.readTextFileSync(`${REPO_ROOT}/deno.json`));

function workflow(name: string): Workflow {
  const doc = parse(Deno.readTextFileSync(`${REPO_ROOT}/.github/workflows/${name}`));
  assert.equal(typeof doc, "object", name);
  assert.ok(doc.on && doc.jobs, `${name}: no on/jobs`);
  for (const [id, job] of Object.entries(doc.jobs as Record<string, Job>)) {
    assert.ok(job["runs-on"], `${name}: ${id} has no runs-on`);
    assert.ok(Array.isArray(job.steps) && job.steps.length > 0, `${name}: ${id} has no steps`);
    for (const step of job.steps) assert.ok(step.uses || step.run, `${name}: ${id}: empty step`);
  }
  return doc;
}

const runs = (job: Job) => job.steps.flatMap((s) => s.run ? [s.run] : []).join("\n");
const needs = (job: Job) => [job.needs ?? []].flat();
const denoVersions = (job: Job) =>
  job.steps.filter((s) => s.uses?.startsWith("denoland/setup-deno@")).map((s) =>
    String(s.with?.["deno-version"])
  );

Deno.test("release workflow: on tags, tests, builds the five targets with deno task compile and checks SHA256SUMS", () => {
  const release = workflow("release.yml");
  assert.deepEqual((release.on.push as { tags: string[] }).tags, ["v*"]);
  const build = release.jobs.build;
  assert.deepEqual(needs(build), ["test"]);
  assert.match(runs(release.jobs.test), /bash \.ci\/run/);
  const compile = build.steps.find((s) => s.run?.startsWith("deno task compile"))?.run ?? "";
  const targets = [...compile.matchAll(/--target (\S+)/g)].map((m) => m[1]);
  assert.deepEqual(targets.sort(), [...TARGETS].sort());
  assert.match(runs(build), /sha256sum -c SHA256SUMS/);
  assert.deepEqual(denoVersions(build), [denoJson.engines.deno]);
});

Deno.test("release workflow: each binary is smoke-tested with scripts/smoke_binary.ts on its own runner OS before publish", () => {
  const release = workflow("release.yml");
  const smoke = release.jobs.smoke;
  assert.deepEqual(needs(smoke), ["build"]);
  const include = smoke.strategy!.matrix.include!;
  assert.deepEqual(include.map((row) => row.target).sort(), [...TARGETS].sort());
  for (const row of include) assert.equal(row.binary, binaryName(row.target as never), row.target);
  const os = Object.fromEntries(include.map((row) => [row.target, row.os]));
  assert.match(os["x86_64-unknown-linux-gnu"], /^ubuntu-/);
  assert.match(os["aarch64-unknown-linux-gnu"], /^ubuntu-.*arm/);
  assert.match(os["x86_64-apple-darwin"], /^macos-13$/); // the last Intel image
  assert.match(os["aarch64-apple-darwin"], /^macos-1[4-9]$/);
  assert.match(os["x86_64-pc-windows-msvc"], /^windows-/);
  assert.equal(new Set(Object.values(os)).size, 5, "two targets share a runner");
  const command = runs(smoke);
  assert.match(
    command,
    /deno run .*scripts\/smoke_binary\.ts\s+--expect-build --sha256sums dist\/SHA256SUMS dist\/\$\{\{ matrix\.binary \}\}/,
  );
  assert.deepEqual(denoVersions(smoke), [denoJson.engines.deno]);
  // The options the workflow passes are ones the script takes.
  const script = Deno.readTextFileSync(`${REPO_ROOT}/scripts/smoke_binary.ts`);
  for (const option of ['"expect-build"', "sha256sums:"]) {
    assert.ok(script.includes(option), option);
  }
  const publish = release.jobs.publish;
  assert.deepEqual(needs(publish), ["smoke"]);
  assert.match(runs(publish), /gh release create .*dist\/devserver-\* dist\/SHA256SUMS/);
});

Deno.test("ci workflow: deno task test on Linux (.ci/run), macOS and Windows with the pinned Deno", () => {
  const ci = workflow("ci.yml");
  assert.ok("pull_request" in ci.on);
  assert.match(ci.jobs.linux["runs-on"], /^ubuntu-/);
  assert.match(runs(ci.jobs.linux), /^bash \.ci\/run$/m);
  const matrix = ci.jobs.test.strategy!.matrix.os as string[];
  assert.ok(matrix.some((os) => os.startsWith("macos-")), matrix.join());
  assert.ok(matrix.some((os) => os.startsWith("windows-")), matrix.join());
  assert.match(runs(ci.jobs.test), /^deno install --frozen$/m);
  assert.match(runs(ci.jobs.test), /^deno task test$/m);
  assert.deepEqual(denoVersions(ci.jobs.test), [denoJson.engines.deno]);
});

Deno.test("smoke script: the checksum step passes the listed digest and fails a changed binary", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const binary = `${dir}/devserver-x86_64-unknown-linux-gnu`;
    await Deno.writeTextFile(binary, "a binary\n");
    const digest = [
      ...new Uint8Array(
        await crypto.subtle.digest("SHA-256", new TextEncoder().encode("a binary\n")),
      ),
    ].map((b) => b.toString(16).padStart(2, "0")).join("");
    await Deno.writeTextFile(
      `${dir}/SHA256SUMS`,
      `${digest}  devserver-x86_64-unknown-linux-gnu\n`,
    );
    assert.equal((await checksumStep(binary, `${dir}/SHA256SUMS`)).ok, true);
    await Deno.writeTextFile(binary, "a changed binary\n");
    assert.equal((await checksumStep(binary, `${dir}/SHA256SUMS`)).ok, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
