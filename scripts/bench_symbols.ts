/**
 * find_symbol's parsers measured against each other and against a baseline
 * in the same run: every definition in a corpus, extracted by
 *
 * - `tree-sitter`: this program's engine (web-tree-sitter grammars + tags queries);
 * - `ts-api`: the TypeScript compiler API (`typescript@6.0.3`'s `createSourceFile`
 *   and an iterative visitor over declarations) — TS/JS corpora only;
 * - `ctags`: `ctags -R` from Debian's universal-ctags (the baseline).
 *
 * Each engine runs in its own child process, so its load time and peak RSS
 * (VmHWM) are its own. The engines run interleaved (`--rounds N` rounds, each
 * running every engine once: ABAB…) so a change in the shared machine's load
 * falls on all of them alike; the table gives each engine's medians and the
 * ratio against ctags, plus each round's own ratio.
 *
 *   deno run -A scripts/bench_symbols.ts <corpus-dir> [--engines ctags,tree-sitter,ts-api] [--ext ts,js] [--rounds 3]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { extname, join } from "node:path";

const CHILD = "--child";

interface Figures {
  engine: string;
  files: number;
  bytes: number;
  symbols: number;
  loadMs: number;
  totalMs: number;
  peakRssMb: number;
}

function filesOf(root: string, exts: Set<string>): string[] {
  const out: string[] = [];
  const stack = [root];
  while (stack.length) {
    const dir = stack.pop()!;
    for (const e of Deno.readDirSync(dir)) {
      if (e.isSymlink) continue;
      const p = join(dir, e.name);
      if (e.isDirectory) stack.push(p);
      else if (e.isFile && exts.has(extname(e.name).slice(1))) out.push(p);
    }
  }
  return out.sort();
}

function peakRssMb(): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  return Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024;
}

const LANG: Record<string, string> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  c: "c",
  h: "c",
  py: "python",
};

async function runTreeSitter(files: string[]): Promise<Omit<Figures, "engine">> {
  const t0 = performance.now();
  const { GrammarRegistry } = await import("../src/symbols/grammars.ts");
  const { extractDefinitions } = await import("../src/symbols/extract.ts");
  const registry = new GrammarRegistry();
  const langs = new Set(files.map((f) => LANG[extname(f).slice(1)]));
  for (const l of langs) await registry.get(l as never);
  const loadMs = performance.now() - t0;
  let symbols = 0;
  let bytes = 0;
  for (const file of files) {
    const text = Deno.readTextFileSync(file);
    bytes += text.length;
    const grammar = await registry.get(LANG[extname(file).slice(1)] as never);
    const tree = grammar.parser.parse(text);
    if (!tree) continue;
    symbols += extractDefinitions(grammar, tree, text).length;
    tree.delete();
  }
  return {
    files: files.length,
    bytes,
    symbols,
    loadMs,
    totalMs: performance.now() - t0,
    peakRssMb: peakRssMb(),
  };
}

async function runTsApi(files: string[]): Promise<Omit<Figures, "engine">> {
  const t0 = performance.now();
  const ts = (await import("typescript")).default;
  const loadMs = performance.now() - t0;
  const K = ts.SyntaxKind;
  const DECLS = new Set([
    K.ClassDeclaration,
    K.ClassExpression,
    K.InterfaceDeclaration,
    K.FunctionDeclaration,
    K.MethodDeclaration,
    K.MethodSignature,
    K.Constructor,
    K.TypeAliasDeclaration,
    K.EnumDeclaration,
    K.ModuleDeclaration,
    K.PropertyDeclaration,
  ]);
  let symbols = 0;
  let bytes = 0;
  for (const file of files) {
    const text = Deno.readTextFileSync(file);
    bytes += text.length;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const stack: import("typescript").Node[] = [source];
    while (stack.length) {
      const node = stack.pop()!;
      if (DECLS.has(node.kind)) symbols++;
      else if (
        node.kind === K.VariableDeclaration &&
        (node.parent.parent.parent.kind === K.SourceFile ||
          (node as import("typescript").VariableDeclaration).initializer?.kind === K.ArrowFunction)
      ) symbols++;
      ts.forEachChild(node, (child) => {
        stack.push(child);
      });
    }
  }
  return {
    files: files.length,
    bytes,
    symbols,
    loadMs,
    totalMs: performance.now() - t0,
    peakRssMb: peakRssMb(),
  };
}

async function runCtags(root: string, exts: string[]): Promise<Omit<Figures, "engine">> {
  const langs = [
    ...new Set(
      exts.map((e) => ({ ts: "TypeScript", js: "JavaScript", c: "C", h: "C", py: "Python" })[e]),
    ),
  ]
    .filter(Boolean).join(",");
  const map = exts.map((e) =>
    `--langmap=${({ ts: "TypeScript", js: "JavaScript", c: "C", h: "C", py: "Python" })[e]}:+.${e}`
  );
  const tags = await Deno.makeTempFile({ prefix: "bench-ctags-" });
  const t0 = performance.now();
  const out = await new Deno.Command("/usr/bin/time", {
    args: [
      "-f",
      "%M",
      "ctags",
      "-R",
      "--extras=-p",
      "-f",
      tags,
      `--languages=${langs}`,
      ...map,
      root,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  const totalMs = performance.now() - t0;
  // Count lines without holding the (possibly > 512 MB) output as one string.
  let symbols = 0;
  using file = await Deno.open(tags);
  const chunk = new Uint8Array(1 << 20);
  for (let n = await file.read(chunk); n !== null; n = await file.read(chunk)) {
    for (let i = chunk.indexOf(10); i !== -1 && i < n; i = chunk.indexOf(10, i + 1)) symbols++;
  }
  await Deno.remove(tags);
  const rssKb = Number(new TextDecoder().decode(out.stderr).trim().split("\n").pop());
  return { files: -1, bytes: -1, symbols, loadMs: 0, totalMs, peakRssMb: rssKb / 1024 };
}

if (Deno.args[0] === CHILD) {
  const [, engine, root, extList] = Deno.args;
  const files = filesOf(root, new Set(extList.split(",")));
  const figures = engine === "tree-sitter" ? await runTreeSitter(files) : await runTsApi(files);
  console.log(JSON.stringify({ engine, ...figures }));
  Deno.exit(0);
}

const args = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    engines: { type: "string", default: "ctags,tree-sitter,ts-api" },
    ext: { type: "string", default: "ts,js" },
    rounds: { type: "string", default: "3" },
  },
});
const root = args.positionals[0];
if (!root) {
  throw new Error("usage: bench_symbols.ts <corpus-dir> [--engines …] [--ext …] [--rounds N]");
}
const exts = args.values.ext.split(",");
const engines = args.values.engines.split(",");
const rounds = Number(args.values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a positive integer");

async function runOnce(engine: string): Promise<Figures> {
  if (engine === "ctags") return { engine, ...(await runCtags(root, exts)) };
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--frozen", import.meta.filename!, CHILD, engine, root, exts.join(",")],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").pop()!);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  } catch {
    return "unknown";
  }
}

// Interleaved (ABAB…): every round runs each engine once, in the same order, so a change in the
// machine's load during the run falls on all engines alike; the table gives medians per engine.
const runs = new Map<string, Figures[]>(engines.map((e) => [e, []]));
const loads: string[] = [loadAverage()];
for (let round = 1; round <= rounds; round++) {
  for (const engine of engines) {
    const figures = await runOnce(engine);
    runs.get(engine)!.push(figures);
    console.error(
      `round ${round} ${engine}: ${
        (figures.totalMs / 1000).toFixed(2)
      } s, ${figures.symbols} symbols, ${figures.peakRssMb.toFixed(0)} MB (load ${loadAverage()})`,
    );
  }
  loads.push(loadAverage());
}
const results: Figures[] = engines.map((engine) => {
  const all = runs.get(engine)!;
  return {
    ...all[0],
    loadMs: median(all.map((r) => r.loadMs)),
    totalMs: median(all.map((r) => r.totalMs)),
    peakRssMb: median(all.map((r) => r.peakRssMb)),
  };
});
const base = results.find((r) => r.engine === "ctags");
// Per-round ratios: each against the baseline of its own round.
const roundRatios = (engine: string) =>
  base
    ? runs.get(engine)!.map((r, i) => (r.totalMs / runs.get("ctags")![i].totalMs).toFixed(1))
      .join(", ")
    : "-";
console.log(
  `corpus: ${root} (${exts.join(",")}); ${rounds} interleaved rounds, medians; load average ${
    loads.join(" → ")
  }`,
);
console.log(
  "| engine | files | MB | symbols | load ms | total s | symbols/s | × ctags time | per-round × | peak RSS MB |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |");
for (const r of results) {
  const ratio = base ? (r.totalMs / base.totalMs).toFixed(1) : "-";
  console.log(
    `| ${r.engine} | ${r.files < 0 ? "-" : r.files} | ${
      r.bytes < 0 ? "-" : (r.bytes / 1e6).toFixed(1)
    } | ${r.symbols} | ${r.loadMs.toFixed(0)} | ${(r.totalMs / 1000).toFixed(2)} | ${
      Math.round(r.symbols / (r.totalMs / 1000))
    } | ${ratio} | ${roundRatios(r.engine)} | ${r.peakRssMb.toFixed(0)} |`,
  );
}
