/**
 * The quickstart: starts the real server on this repository, exactly as
 * `deno task devserver serve` would (the task's flags, read from
 * `deno.json`), connects the MCP SDK's client in the 2026-07-28 era over
 * stdio, and prints what it saw: the server and revision, the tools, the
 * root of the repository, the start of README.md as a model receives it,
 * one refusal, and how long things took. Exit 0 when everything looked
 * right, 1 otherwise (with the reason and the server's stderr).
 *
 * Runs with default settings: `MCP_*` variables in your environment are not
 * passed to the server.
 *
 * Usage: deno task quickstart
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { childEnv, REPO_ROOT, serveArgs } from "../scripts/lib/program.ts";

const PROTOCOL = "2026-07-28";
const TIMEOUT_MS = 30_000;
const WARM_CALLS = 20;

/**
 * The SDK's stdio transport. As a subclass it negotiates the era on this
 * very connection rather than on a throw-away sibling process (which the
 * SDK does for its base class), so `connect()` measures exactly one cold
 * start: spawn, `server/discover`, first reply.
 */
class QuickstartTransport extends StdioClientTransport {}

/** Something the quickstart saw was not what a working server shows. */
class QuickstartFailure extends Error {}

function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new QuickstartFailure(what);
}

type CallResult = Awaited<ReturnType<Client["callTool"]>>;

function textOf(result: CallResult): string {
  const block = (result.content as Array<{ type: string; text?: string }> | undefined)?.[0];
  return block?.type === "text" ? block.text ?? "" : "";
}

function indent(text: string, prefix = "  "): string {
  return text.split("\n").map((line) => prefix + line).join("\n");
}

function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 1 : 0)} ms`;
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await work();
  return [value, performance.now() - start];
}

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  return `median ${ms(median)}, min ${ms(sorted[0])}, max ${
    ms(sorted.at(-1)!)
  } over ${sorted.length} calls`;
}

async function run(client: Client, transport: QuickstartTransport): Promise<void> {
  const options = { timeout: TIMEOUT_MS };
  console.log(`devserver quickstart: serving ${REPO_ROOT}\n`);

  const [, coldStart] = await timed(() => client.connect(transport, options));
  const info = client.getServerVersion();
  check(info?.name === "devserver", `unexpected server name: ${info?.name}`);
  check(client.getProtocolEra() === "modern", `era: ${client.getProtocolEra()}`);
  const revision = client.getNegotiatedProtocolVersion();
  check(revision === PROTOCOL, `negotiated revision ${revision}, expected ${PROTOCOL}`);
  check(
    /<untrusted-KIND id=/.test(client.getInstructions() ?? ""),
    "the instructions do not explain the untrusted fence",
  );
  console.log(`server    ${info.name} ${info.version}`);
  console.log(`protocol  ${revision} (server/discover, no initialize)\n`);

  const [{ tools }, listLatency] = await timed(() => client.listTools(undefined, options));
  const names = tools.map((tool) => tool.name);
  check(
    names.join() ===
      "read_file,list_directory,search_code,find_symbol,project_overview,git_log,git_diff",
    `tools/list returned ${names.join(", ")}`,
  );
  console.log("tools");
  for (const tool of tools) {
    check(tool.annotations?.readOnlyHint === true, `${tool.name} is not marked read-only`);
    console.log(`  ${tool.name.padEnd(16)}${tool.title ?? ""}  (read-only)`);
  }

  const [root, firstCall] = await timed(() =>
    client.callTool({ name: "list_directory", arguments: {} }, options)
  );
  check(!root.isError, `list_directory failed: ${textOf(root)}`);
  const listing = root.structuredContent as {
    entries: Array<{ name: string; type: string; size?: number }>;
    total_entries: number;
    denied_count: number;
    untrusted_content: boolean;
  };
  check(listing.untrusted_content === true, "list_directory is not marked untrusted_content");
  const rootNames = listing.entries.map((entry) => entry.name);
  for (const expected of ["src", "deno.json", "README.md"]) {
    check(rootNames.includes(expected), `the root listing lacks ${expected}`);
  }
  const shown = listing.entries.slice(0, 10);
  console.log(
    `\nworkspace root (first ${shown.length} of ${listing.total_entries} entries; ` +
      `${listing.denied_count} denied, not named)`,
  );
  for (const entry of shown) {
    console.log(
      entry.type === "directory"
        ? `  ${entry.name}/`
        : `  ${entry.name}${entry.size !== undefined ? `  ${entry.size} bytes` : ""}`,
    );
  }

  const readme = await client.callTool(
    { name: "read_file", arguments: { path: "README.md", end_line: 10 } },
    options,
  );
  check(!readme.isError, `read_file README.md failed: ${textOf(readme)}`);
  const readmeText = textOf(readme);
  const nonce = readmeText.match(/<untrusted-file-content id=([0-9a-f]{32})>/)?.[1];
  check(
    nonce && readmeText.includes(`</untrusted-file-content id=${nonce}>`),
    "README.md did not come back inside an untrusted fence",
  );
  const readmeData = readme.structuredContent as { start_line: number; untrusted_content: boolean };
  check(readmeData.start_line === 1, "README.md did not start at line 1");
  check(readmeData.untrusted_content === true, "read_file is not marked untrusted_content");
  console.log("\nREADME.md, lines 1-10, exactly as the model receives them");
  console.log(indent(readmeText));

  const refused = await client.callTool(
    { name: "read_file", arguments: { path: "../" } },
    options,
  );
  // A refusal is what the model reads: the code and the remedy in the text (ADR-013).
  const refusalText = (refused.content as { type: string; text?: string }[])
    .map((b) => b.text ?? "").join("\n");
  const refusal = refusalText.match(/^Refused \(([a-z_]+)\): ([^\n]*)\nRemedy: (.+)$/);
  check(refused.isError === true, "reading ../ was not refused");
  check(refusal?.[1] === "outside_workspace", `reading ../ was refused as: ${refusalText}`);
  console.log('\na refusal: read_file {"path":"../"}, as the model reads it');
  console.log(indent(refusalText));

  const reads: number[] = [];
  const lists: number[] = [];
  for (let i = 0; i < WARM_CALLS; i++) {
    const [read, readTime] = await timed(() =>
      client.callTool({ name: "read_file", arguments: { path: "README.md" } }, options)
    );
    check(!read.isError, "a repeated read_file failed");
    reads.push(readTime);
    const [list, listTime] = await timed(() =>
      client.callTool({ name: "list_directory", arguments: { path: "src" } }, options)
    );
    check(!list.isError, "a repeated list_directory failed");
    lists.push(listTime);
  }
  console.log("\ntimings");
  console.log(`  cold start to first reply   ${ms(coldStart)} (spawn to server/discover answered)`);
  console.log(`  tools/list                  ${ms(listLatency)}`);
  console.log(`  first tools/call            ${ms(firstCall)} (includes tool-worker warm-up)`);
  console.log(`  read_file README.md         ${summary(reads)}`);
  console.log(`  list_directory src          ${summary(lists)}`);
  console.log("\nquickstart ok");
}

async function main(): Promise<number> {
  const transport = new QuickstartTransport({
    command: Deno.execPath(),
    args: serveArgs(REPO_ROOT),
    env: childEnv(),
    cwd: REPO_ROOT,
    stderr: "pipe",
  });
  let serverStderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array | string) => {
    serverStderr += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
  });
  const client = new Client(
    { name: "devserver-quickstart", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: PROTOCOL } } },
  );
  try {
    await run(client, transport);
    return 0;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`\nquickstart FAILED: ${reason}`);
    if (serverStderr.trim() !== "") console.error(`server stderr:\n${indent(serverStderr.trim())}`);
    return 1;
  } finally {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
  }
}

Deno.exit(await main());
