/**
 * The Linux 6.1 tree the search benchmarks run on, and ripgrep as their
 * baseline: where the tree is, how it is made when missing, ripgrep's
 * arguments for the file selection `search_code` makes by default, and one
 * ripgrep run with its CPU time.
 *
 * @module
 */

import { DEFAULT_DENY_PATTERNS } from "../../src/access/denylist.ts";
import { DEFAULT_SKIPPED_DIRS } from "../../src/access/walk_policy.ts";

/** The corpus: `BENCH_LINUX_DIR`, default `/tmp/bench/linux`. */
export const CORPUS = Deno.env.get("BENCH_LINUX_DIR") ?? "/tmp/bench/linux";

/**
 * The settings the benchmarks' full scans run under: a time budget and a page out of the way,
 * so a scan of the whole tree pages by 10,000 matches within a 1,000,000-character budget.
 */
export const FULL_SCAN_ENV: Readonly<Record<string, string>> = {
  MCP_SANDBOX__TOOL_TIMEOUT_MS: "600000",
  MCP_SERVER__MAX_RESULT_CHARS: "1000000",
  MCP_SEARCH__MAX_RESULTS: "10000",
};

/**
 * Makes the corpus when it is missing, from Debian's
 * `/usr/src/linux-source-6.1.tar.xz` (`apt-get install linux-source-6.1`):
 * unpacked, Debian's appended `/*` line dropped from the top `.gitignore`
 * (with it ripgrep and the walker skip the whole tree), `git init`.
 */
export async function prepareCorpus(): Promise<void> {
  try {
    await Deno.stat(`${CORPUS}/.git`);
    return;
  } catch { /* make it */ }
  console.error(`preparing ${CORPUS} from /usr/src/linux-source-6.1.tar.xz …`);
  const parent = CORPUS.slice(0, CORPUS.lastIndexOf("/"));
  await Deno.mkdir(parent, { recursive: true });
  const run = async (cmd: string, args: string[], cwd: string) => {
    const out = await new Deno.Command(cmd, { args, cwd }).output();
    if (!out.success) throw new Error(`${cmd} ${args.join(" ")} failed`);
  };
  await run("tar", ["xf", "/usr/src/linux-source-6.1.tar.xz"], parent);
  await Deno.rename(`${parent}/linux-source-6.1`, CORPUS);
  const gitignore = await Deno.readTextFile(`${CORPUS}/.gitignore`);
  await Deno.writeTextFile(
    `${CORPUS}/.gitignore`,
    gitignore.split("\n").filter((l) => l !== "/*").join("\n"),
  );
  await run("git", ["init", "-q"], CORPUS);
}

/** ripgrep's arguments for the same file selection as the tool's defaults. */
export function rgSelection(): string[] {
  return [
    "--no-config",
    "--no-ignore-global",
    "--max-filesize",
    "512K",
    "-g",
    `!{${DEFAULT_SKIPPED_DIRS.join(",")}}/`,
    ...DEFAULT_DENY_PATTERNS.flatMap((p) => ["--iglob", `!${p}`]),
  ];
}

/** GNU time, when installed: ripgrep's CPU time (user + system), which load does not inflate. */
const GNU_TIME = (() => {
  try {
    return Deno.statSync("/usr/bin/time").isFile ? "/usr/bin/time" : undefined;
  } catch {
    return undefined;
  }
})();

/** One ripgrep run in the corpus: wall time, CPU time (with GNU time) and its output. */
export async function rg(args: string[]): Promise<{ ms: number; cpuMs?: number; stdout: string }> {
  const started = performance.now();
  const out = GNU_TIME
    ? await new Deno.Command(GNU_TIME, {
      args: ["-f", "cpu %U %S", "rg", ...args],
      cwd: CORPUS,
      stdout: "piped",
      stderr: "piped",
    }).output()
    : await new Deno.Command("rg", { args, cwd: CORPUS, stdout: "piped" }).output();
  const ms = performance.now() - started;
  const cpu = GNU_TIME
    ? /cpu ([\d.]+) ([\d.]+)\s*$/.exec(new TextDecoder().decode(out.stderr))
    : null;
  return {
    ms,
    ...(cpu ? { cpuMs: (Number(cpu[1]) + Number(cpu[2])) * 1000 } : {}),
    stdout: new TextDecoder().decode(out.stdout),
  };
}
