/**
 * The compiled binary itself: built for this machine with `deno task
 * compile`, then `version` (a baked commit), `doctor`, `conform` in-process
 * and against itself, and every tool over stdio (scripts/smoke_binary.ts).
 *
 * `deno compile` needs a runtime (denort) for the target: from `DENORT_BIN`,
 * from DENO_DIR's download cache, or downloaded from Deno's servers. The
 * test runs only when one of the first two is there (checked without
 * touching the network, so it cannot hang); otherwise it is ignored and
 * says why. The release workflow builds and smokes every binary anyway.
 */

import assert from "node:assert/strict";
import { REPO_ROOT } from "../../scripts/lib/program.ts";
import { binaryName, type Target, TARGETS } from "../../scripts/compile.ts";
import { smoke } from "../../scripts/smoke_binary.ts";

/** Where a denort for `target` can be had without the network, or why not. */
async function denortSource(target: string): Promise<{ path?: string; reason?: string }> {
  const fromEnv = Deno.env.get("DENORT_BIN");
  if (fromEnv) {
    try {
      if ((await Deno.stat(fromEnv)).isFile) return { path: fromEnv };
    } catch { /* fall through */ }
    return { reason: `DENORT_BIN=${fromEnv} is not a file` };
  }
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const denoDir: string = JSON.parse(new TextDecoder().decode(info.stdout)).denoDir;
  const cached = `${denoDir}/dl/release/v${Deno.version.deno}/denort-${target}.zip`;
  try {
    if ((await Deno.stat(cached)).isFile) return { path: cached };
  } catch { /* not cached */ }
  return {
    reason: `deno compile would download denort-${target} from Deno's servers: it is not ` +
      `cached (${cached}) and DENORT_BIN is unset`,
  };
}

const host = Deno.build.target;
const denort = TARGETS.includes(host as Target)
  ? await denortSource(host)
  : { reason: `${host} is not a release target` };
if (denort.reason) console.error(`binary test ignored: ${denort.reason}`);

Deno.test({
  name: `binary: compiled for ${host}, version, doctor, conform and every tool over stdio pass` +
    (denort.reason ? ` (ignored: ${denort.reason})` : ""),
  ignore: denort.reason !== undefined,
  async fn() {
    const out = await Deno.makeTempDir({ prefix: "devserver-dist-" });
    try {
      const compiled = await new Deno.Command(Deno.execPath(), {
        args: ["task", "compile", "--target", host, "--out-dir", out],
        cwd: REPO_ROOT,
      }).output();
      assert.ok(compiled.success, new TextDecoder().decode(compiled.stderr));
      const binary = `${out}/${binaryName(host as Target)}`;
      assert.ok((await Deno.stat(binary)).isFile);
      const sums = await Deno.readTextFile(`${out}/SHA256SUMS`);
      assert.match(sums, new RegExp(`^[0-9a-f]{64}  ${binaryName(host as Target)}$`, "m"));
      const steps = await smoke([binary], { expectBuild: true });
      assert.deepEqual(steps.filter((s) => !s.ok), []);
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
});
