/**
 * `deno task bench:git`: the overhead of git_log and git_diff over plain git
 * with the same arguments, on a repository of 10,000 commits built here
 * (with `git fast-import`, under the system temp directory). Each workload
 * runs plain git and the tool (handler and result pipeline, in this thread)
 * interleaved, and the medians are compared. Target: overhead ≤ 10%.
 *
 * Plain git gets the same log/diff arguments a user would type, with a
 * clean environment; the tool adds its checks (repository layout, revision
 * resolution, configuration listing before a working-tree diff), the
 * hardening options, parsing and the pipeline.
 *
 * @module
 */

import { join } from "node:path";
import { sandboxSettings } from "../src/app.ts";
import { loadConfig } from "../src/config/load.ts";
import { shapeToolResult } from "../src/content/pipeline.ts";
import { TOOLS } from "../src/tools/registry.ts";
import { createToolContext, runTool } from "../src/tools/runtime.ts";

const COMMITS = Number(Deno.env.get("BENCH_GIT_COMMITS") ?? 10_000);
const ROUNDS = Number(Deno.env.get("BENCH_GIT_ROUNDS") ?? 15);
const FILES = 400;

const CLEAN_ENV = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  LC_ALL: "C",
};

async function git(cwd: string, args: string[], stdin?: Uint8Array): Promise<Uint8Array> {
  const child = new Deno.Command("git", {
    args,
    cwd,
    clearEnv: true,
    env: { ...CLEAN_ENV, HOME: cwd },
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin) {
    const writer = child.stdin.getWriter();
    await writer.write(stdin);
    await writer.close();
  }
  const out = await child.output();
  if (!out.success) {
    throw new Error(`git ${args[0]} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return out.stdout;
}

/** A fast-import stream: `COMMITS` commits, each changing one of `FILES` files. */
function history(): Uint8Array {
  const parts: string[] = [];
  const contents: string[][] = Array.from({ length: FILES }, () => []);
  for (let i = 1; i <= COMMITS; i++) {
    const file = (i * 7919) % FILES;
    contents[file].push(`change ${i} of file ${file}: ${"lorem ipsum ".repeat(3)}`);
    if (contents[file].length > 40) contents[file].shift();
    const data = contents[file].join("\n") + "\n";
    const message = `commit ${i}: touch dir${file % 20}/file${file}.txt\n`;
    const time = 1_700_000_000 + i * 60;
    parts.push(
      `commit refs/heads/main\n` +
        `author Bench Author <bench@example.test> ${time} +0000\n` +
        `committer Bench Author <bench@example.test> ${time} +0000\n` +
        `data ${new TextEncoder().encode(message).length}\n${message}` +
        `M 100644 inline dir${file % 20}/file${file}.txt\n` +
        `data ${new TextEncoder().encode(data).length}\n${data}\n`,
    );
  }
  return new TextEncoder().encode(parts.join(""));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

interface Workload {
  readonly name: string;
  readonly plain: string[];
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

async function main(): Promise<void> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "devserver-bench-git-" }));
  const root = join(base, "repo");
  try {
    await Deno.mkdir(root);
    const t0 = performance.now();
    await git(root, ["init", "-q", "-b", "main"]);
    await git(root, ["fast-import", "--quiet"], history());
    await git(root, ["checkout", "-q", "main"]);
    await git(root, ["repack", "-adq"]);
    console.log(
      `bench:git: built a repository of ${COMMITS} commits in ${
        ((performance.now() - t0) / 1000).toFixed(1)
      } s`,
    );
    // Leave the working tree slightly dirty, so a working-tree diff has work.
    await Deno.writeTextFile(join(root, "dir3/file3.txt"), "dirty\n");

    const context = createToolContext(
      sandboxSettings(loadConfig({}, { workspaceFlag: root, cwd: root })),
    );
    const format = "--format=%H%x00%h%x00%an%x00%aI%x00%s";
    const first = await git(root, ["rev-list", "--max-parents=0", "HEAD"]);
    const root0 = new TextDecoder().decode(first).trim();
    const workloads: Workload[] = [
      {
        name: "git_log limit 200",
        plain: ["log", "-z", format, "--max-count=200", "HEAD"],
        tool: "git_log",
        args: { limit: 200 },
      },
      {
        name: "git_log path (walks all commits)",
        plain: ["log", "-z", format, "--max-count=200", "HEAD", "--", "dir7/file7.txt"],
        tool: "git_log",
        args: { limit: 200, path: "dir7/file7.txt" },
      },
      {
        name: "git_log grep (walks all commits)",
        plain: ["log", "-z", format, "--max-count=200", "--grep=file377.", "-F", "-i", "HEAD"],
        tool: "git_log",
        args: { limit: 200, grep: "file377." },
      },
      {
        name: "git_diff stat, first..HEAD",
        plain: ["diff", "--numstat", "-z", root0, "HEAD"],
        tool: "git_diff",
        args: { revision: `${root0}..HEAD`, stat_only: true },
      },
      {
        name: "git_diff HEAD~50..HEAD",
        plain: ["diff", "-U3", "HEAD~50", "HEAD"],
        tool: "git_diff",
        args: { revision: "HEAD~50..HEAD" },
      },
      {
        name: "git_diff working tree",
        plain: ["diff"],
        tool: "git_diff",
        args: {},
      },
    ];

    const rows: string[] = [];
    let worst = 0;
    for (const workload of workloads) {
      const plain: number[] = [];
      const tool: number[] = [];
      const runTool1 = async () => {
        const raw = await runTool(TOOLS, workload.tool, workload.args, context);
        if (raw.kind !== "ok") throw new Error(`${workload.name}: ${JSON.stringify(raw)}`);
        shapeToolResult(raw, { redactSecrets: true });
      };
      await git(root, workload.plain); // warm
      await runTool1();
      for (let i = 0; i < ROUNDS; i++) {
        // Interleaved, alternating which goes first.
        const order = i % 2 ? [0, 1] : [1, 0];
        for (const which of order) {
          const t = performance.now();
          if (which === 0) await git(root, workload.plain);
          else await runTool1();
          (which === 0 ? plain : tool).push(performance.now() - t);
        }
      }
      const p = median(plain);
      const d = median(tool);
      const overhead = (d / p - 1) * 100;
      worst = Math.max(worst, overhead);
      rows.push(
        `| ${workload.name} | ${p.toFixed(1)} | ${d.toFixed(1)} | ${(d - p).toFixed(1)} | ${
          overhead.toFixed(1)
        }% |`,
      );
    }
    console.log(
      `\n| Workload (${COMMITS} commits, ${ROUNDS} rounds, medians) | plain git (ms) | tool (ms) | difference (ms) | overhead |`,
    );
    console.log("| --- | ---: | ---: | ---: | ---: |");
    for (const row of rows) console.log(row);
    console.log(
      `\nbench:git: worst overhead ${
        worst.toFixed(1)
      }% (target ≤ 10% on walks of the whole history)`,
    );
  } finally {
    await Deno.remove(base, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
