/**
 * Start-up and per-call benchmark, as ratios against baselines measured in
 * the same run, interleaved run by run:
 *
 * - bare deno: a `deno run` of a script that answers each JSON line, reading
 *   the file with `Deno.readTextFile` for a tool call;
 * - bare SDK v2 server: `scripts/bench_sdk_baseline.ts`, the same SDK's
 *   `McpServer` + `serveStdio` with one `read_file` tool (no workers, no
 *   permission drop, no result pipeline).
 *
 * Measures: cold start to first reply (spawn, send `server/discover`, time
 * the response); cold start to first tool result (then `tools/call
 * read_file README.md`, timed from spawn: what an editor that calls a tool
 * right after start waits); per-call latency of that call over the live
 * connection; the resident set after the calls.
 *
 * Usage: deno task bench:startup [--runs N] (also the second step of `deno task bench`)
 *
 * @module
 */

import { parseArgs } from "node:util";
import { REPO_ROOT, serveArgs } from "./lib/program.ts";
import { median } from "./lib/stats.ts";

const SDK_BASELINE = `${REPO_ROOT}/scripts/bench_sdk_baseline.ts`;

const { values } = parseArgs({ args: Deno.args, options: { runs: { type: "string" } } });
const RUNS = Number(values.runs ?? 10);
const CALLS = 50;
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

const BASELINE_SOURCE = `
const decoder = new TextDecoder();
const encoder = new TextEncoder();
let buffered = "";
for await (const chunk of Deno.stdin.readable) {
  buffered += decoder.decode(chunk, { stream: true });
  let nl;
  while ((nl = buffered.indexOf("\\n")) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    const msg = JSON.parse(line);
    const text = msg.method === "tools/call" ? await Deno.readTextFile(msg.params.arguments.path) : "";
    await Deno.stdout.write(encoder.encode(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { text } }) + "\\n"));
  }
}
`;

interface Process {
  child: Deno.ChildProcess;
  request(method: string, params: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

function startProcess(args: string[], cwd: string): Process {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let nextId = 1;
  const waiting = new Map<number, (value: unknown) => void>();
  (async () => {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += value;
      let nl;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const message = JSON.parse(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        waiting.get(message.id)?.(message);
        waiting.delete(message.id);
      }
    }
  })();
  return {
    child,
    request(method, params) {
      const id = nextId++;
      const reply = new Promise((resolve) => waiting.set(id, resolve));
      writer.write(
        new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n"),
      );
      return reply;
    },
    async close() {
      await writer.close();
      await child.status;
      await reader.cancel().catch(() => {});
    },
  };
}

async function rssKiB(pid: number): Promise<number> {
  // Deno gates /proc behind --allow-all; ps reports the same resident set size.
  const out = await new Deno.Command("ps", { args: ["-o", "rss=", "-p", String(pid)] }).output();
  return Number(new TextDecoder().decode(out.stdout).trim());
}

interface Sample {
  startMs: number;
  firstCallMs: number;
  callMs: number;
  rssKiB: number;
}

const KINDS = ["baseline", "sdk", "devserver"] as const;
type Kind = typeof KINDS[number];

function argsFor(kind: Kind, baselineFile: string): string[] {
  switch (kind) {
    case "devserver":
      return serveArgs(REPO_ROOT);
    case "sdk":
      return [
        "run",
        "-q",
        "--no-prompt",
        "--frozen",
        "--config",
        `${REPO_ROOT}/deno.json`,
        `--allow-read=${REPO_ROOT}`,
        SDK_BASELINE,
      ];
    case "baseline":
      return ["run", "-q", "--no-prompt", `--allow-read=${REPO_ROOT}`, baselineFile];
  }
}

async function measure(kind: Kind, baselineFile: string): Promise<Sample> {
  const args = argsFor(kind, baselineFile);
  const t0 = performance.now();
  const proc = startProcess(args, REPO_ROOT);
  await proc.request("server/discover", { _meta: META });
  const startMs = performance.now() - t0;
  const callArgs = { name: "read_file", arguments: { path: "README.md" }, _meta: META };
  await proc.request("tools/call", callArgs);
  const firstCallMs = performance.now() - t0;
  const t1 = performance.now();
  for (let i = 0; i < CALLS; i++) await proc.request("tools/call", callArgs);
  const callMs = (performance.now() - t1) / CALLS;
  const rss = await rssKiB(proc.child.pid);
  await proc.close();
  return { startMs, firstCallMs, callMs, rssKiB: rss };
}

const baselineFile = await Deno.makeTempFile({ suffix: ".ts" });
await Deno.writeTextFile(baselineFile, BASELINE_SOURCE);
const results: Record<Kind, Sample[]> = { devserver: [], sdk: [], baseline: [] };
try {
  await measure("devserver", baselineFile); // warm the module caches once
  await measure("sdk", baselineFile);
  for (let i = 0; i < RUNS; i++) {
    for (const kind of KINDS) {
      results[kind].push(await measure(kind, baselineFile));
      await Deno.stderr.write(new TextEncoder().encode("."));
    }
  }
} finally {
  await Deno.remove(baselineFile);
}
console.error();

const summary = (kind: Kind) => ({
  startMs: median(results[kind].map((s) => s.startMs)),
  firstCallMs: median(results[kind].map((s) => s.firstCallMs)),
  callMs: median(results[kind].map((s) => s.callMs)),
  rssKiB: median(results[kind].map((s) => s.rssKiB)),
});
const dev = summary("devserver");
const sdk = summary("sdk");
const base = summary("baseline");
const row = (label: string, key: keyof Sample, unit: string, scale = 1) => {
  const [d, s, b] = [dev[key] / scale, sdk[key] / scale, base[key] / scale];
  return `| ${label} | ${d.toFixed(1)} ${unit} | ${s.toFixed(1)} ${unit} | ${
    (d / s).toFixed(2)
  }× | ${b.toFixed(1)} ${unit} | ${(d / b).toFixed(2)}× |`;
};
console.log(
  `Medians of ${RUNS} runs (${CALLS} calls each), deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`,
);
console.log(
  "| measure | devserver | bare SDK v2 server | ratio | bare deno process | ratio |",
);
console.log("| --- | --- | --- | --- | --- | --- |");
console.log(row("cold start to first reply", "startMs", "ms"));
console.log(row("cold start to first tool result", "firstCallMs", "ms"));
console.log(row("read_file README.md, per call", "callMs", "ms"));
console.log(row("resident memory after calls", "rssKiB", "MiB", 1024));
