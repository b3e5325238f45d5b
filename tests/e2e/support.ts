/**
 * End-to-end plumbing: the real program as a child process, reached through
 * the clients people run — the SDK v2 client, the SDK v1 client, the MCP
 * Inspector CLI — or as raw JSON lines on a pipe. Every child is started
 * with exactly the flags of `deno task devserver` (read from `deno.json`)
 * and a minimal environment. Every tool result these helpers hand a test has
 * passed `assertConformingResult` (its tool's published output schema,
 * ADR-013's refusal shape, the response budget; ADR-020).
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioClientTransportV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { childEnv, REPO_ROOT, serveArgs } from "../../scripts/lib/program.ts";
import { configFor } from "../helpers/fixtures.ts";
import {
  assertConformingResult,
  type ConformanceLimits,
  type ResultLike,
} from "../helpers/schema.ts";

export { childEnv, serveArgs };

/** The revision the server speaks natively. */
export const MODERN = "2026-07-28";

/** The per-request `_meta` envelope of the 2026-07-28 revision. */
export const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
} as const;

/** A fence opening, capturing its nonce. */
export const FENCE_OPEN = /<untrusted-file-content id=([0-9a-f]{32})>/;

/** The response budget a child started on `root` with `env` works to. */
export function limitsFor(root: string, env: Record<string, string> = {}): ConformanceLimits {
  return { maxResultChars: configFor(root, env).maxResultChars };
}

/**
 * Makes `client.callTool` check every result it returns (ADR-020), whichever
 * SDK the client comes from. Calls that throw (a -32602, a client-side
 * validation error) throw as before.
 */
export function checkToolCalls(
  client: { callTool: (params: { name: string }, ...rest: never[]) => Promise<ResultLike> },
  limits: ConformanceLimits,
): void {
  const callTool = client.callTool.bind(client);
  client.callTool = async (params: { name: string }, ...rest: never[]) => {
    const result = await callTool(params, ...rest);
    assertConformingResult(params.name, result, limits);
    return result;
  };
}

// ---------------------------------------------------------------------------
// The SDK v2 client over a real pipe

/** Which protocol era the SDK client negotiates. */
export type Era = "modern" | "legacy";

/** An SDK client connected to a child server; closing it ends the child. */
export interface SdkSession extends AsyncDisposable {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** The child's stderr so far. */
  stderr(): string;
}

/**
 * Starts `devserver serve` through the SDK's `StdioClientTransport` (the
 * path an editor takes) and connects a `Client` in `era`: `modern` pins
 * 2026-07-28, `legacy` is the SDK default (`initialize`). A failed connect
 * closes everything and rethrows.
 */
export async function connectSdk(
  root: string,
  options: { era: Era; env?: Record<string, string> },
): Promise<SdkSession> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: serveArgs(root),
    env: childEnv(options.env),
    cwd: REPO_ROOT,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array | string) => {
    stderr += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
  });
  const client = new Client(
    { name: "devserver-e2e", version: "0.0.0" },
    options.era === "modern" ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  const close = async () => {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
  };
  try {
    await client.connect(transport);
  } catch (error) {
    await close();
    throw error;
  }
  checkToolCalls(
    client as unknown as Parameters<typeof checkToolCalls>[0],
    limitsFor(root, options.env),
  );
  return { client, transport, stderr: () => stderr, [Symbol.asyncDispose]: close };
}

// ---------------------------------------------------------------------------
// The SDK v1 client (`@modelcontextprotocol/sdk`, 2025 era) over a real pipe

/** An SDK v1 client connected to a child server; closing it ends the child. */
export interface SdkV1Session extends AsyncDisposable {
  readonly client: ClientV1;
  /** The child's stderr so far. */
  stderr(): string;
}

/**
 * Starts `devserver serve` through the v1 SDK's `StdioClientTransport` and
 * connects its `Client` (`initialize`, 2025 era): what most editors embed.
 * The v1 client validates `structuredContent` against the `outputSchema` it
 * saw in `tools/list`, on `isError` results too, and throws when it does not
 * match.
 */
export async function connectSdkV1(
  root: string,
  options: { env?: Record<string, string> } = {},
): Promise<SdkV1Session> {
  const transport = new StdioClientTransportV1({
    command: Deno.execPath(),
    args: serveArgs(root),
    env: childEnv(options.env),
    cwd: REPO_ROOT,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array | string) => {
    stderr += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
  });
  const client = new ClientV1({ name: "devserver-e2e-v1", version: "0.0.0" });
  const close = async () => {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
  };
  try {
    await client.connect(transport);
  } catch (error) {
    await close();
    throw error;
  }
  checkToolCalls(
    client as unknown as Parameters<typeof checkToolCalls>[0],
    limitsFor(root, options.env),
  );
  return { client, stderr: () => stderr, [Symbol.asyncDispose]: close };
}

// ---------------------------------------------------------------------------
// The MCP Inspector CLI as a child process

/** The Inspector package as locked in `deno.json` (so `deno install --frozen` caches it). */
export function inspectorSpecifier(): string {
  const denoJson = JSON.parse(Deno.readTextFileSync(`${REPO_ROOT}/deno.json`));
  const specifier: unknown = denoJson.imports?.["@modelcontextprotocol/inspector"];
  if (typeof specifier !== "string") throw new Error("deno.json does not import the Inspector");
  return specifier;
}

/** One Inspector CLI run: its exit code, its JSON answer (`--format json`) and stderr. */
export interface InspectorRun {
  readonly code: number;
  /** stdout's JSON lines: `{ result }` with what the server answered. */
  readonly answers: Array<{ result?: Record<string, unknown> }>;
  /** stderr's JSON lines: the Inspector's error envelopes, `{ error: { code, message } }`. */
  readonly errors: Array<{ error?: { code?: string; message?: string } }>;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `inspector --cli --format json <inspectorArgs> -- <devserver serve on root>`
 * under Deno, offline (`--cached-only`) against the lockfile, exactly as a
 * user would (`deno run -A npm:@modelcontextprotocol/inspector --cli …`).
 * The server gets the same minimal environment as every other child
 * (passed with `-e`, since the Inspector starts it with a default one).
 * A `tools/call` result is checked against its tool's contract (ADR-020).
 */
export async function runInspector(
  root: string,
  inspectorArgs: string[],
  env: Record<string, string> = {},
): Promise<InspectorRun> {
  const serverEnv = Object.entries(childEnv(env))
    .filter(([name]) => name !== "PATH" && name !== "HOME")
    .flatMap(([name, value]) => ["-e", `${name}=${value}`]);
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--frozen",
      "--cached-only",
      "--quiet",
      inspectorSpecifier(),
      "--cli",
      "--format",
      "json",
      "--connect-timeout",
      "30000",
      ...serverEnv,
      ...inspectorArgs,
      "--",
      Deno.execPath(),
      ...serveArgs(root),
    ],
    cwd: REPO_ROOT,
    // The Inspector itself is not ours to cover: only the server it starts gets the coverage dir.
    env: Object.fromEntries(
      Object.entries(childEnv()).filter(([name]) => name !== "DENO_COVERAGE_DIR"),
    ),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  const stdout = decoder.decode(out.stdout);
  const stderr = decoder.decode(out.stderr);
  const answers = jsonLines(stdout);
  const errors = jsonLines(stderr);
  const run = { code: out.code, answers, errors, stdout, stderr };
  const toolName = inspectorArgs[inspectorArgs.indexOf("--tool-name") + 1];
  const result = answers[0]?.result;
  if (inspectorArgs.includes("tools/call") && result !== undefined) {
    assertConformingResult(toolName, result, limitsFor(root, env));
  }
  return run;
}

/** The lines of `text` that are JSON objects, parsed (other lines are the Inspector's notes). */
function jsonLines(text: string): Array<Record<string, never>> {
  return text.split("\n").flatMap((line) => {
    if (!line.startsWith("{")) return [];
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });
}

// ---------------------------------------------------------------------------
// Raw JSON lines over a real pipe

/** One JSON-RPC response as read from the child's stdout. */
export interface RpcResponse {
  jsonrpc: "2.0";
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

const encoder = new TextEncoder();

/**
 * `devserver serve` with stdin, stdout and stderr piped. stdout is read
 * line by line in the background; every line is kept, in order, so a test
 * can check both what was answered and what was not.
 */
export class RawServer implements AsyncDisposable {
  readonly child: Deno.ChildProcess;
  /** Every stdout line so far, in order (without the newline). */
  readonly lines: string[] = [];
  #stderr = "";
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #waiters: Array<() => void> = [];
  #stdoutDone: Promise<void>;
  #stderrDone: Promise<void>;
  #ended = false;
  #nextId = 1;

  readonly #limits: ConformanceLimits;

  /** `options.args` replaces the `deno` arguments (default: `serveArgs(root)`). */
  constructor(
    root: string,
    env: Record<string, string> = {},
    options: { args?: string[] } = {},
  ) {
    this.#limits = limitsFor(root, env);
    this.child = new Deno.Command(Deno.execPath(), {
      args: options.args ?? serveArgs(root),
      cwd: REPO_ROOT,
      env: childEnv(env),
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.#stdoutDone = this.#pumpStdout();
    this.#stderrDone = this.#pumpStderr();
  }

  /** The child's stderr so far. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Whether stdout has ended. */
  get ended(): boolean {
    return this.#ended;
  }

  /** A fresh request id. */
  nextId(): number {
    return this.#nextId++;
  }

  /** Writes `text` exactly as given. */
  async write(text: string | Uint8Array): Promise<void> {
    if (!this.#writer) throw new Error("stdin is closed");
    await this.#writer.write(typeof text === "string" ? encoder.encode(text) : text);
  }

  /** Writes `message` as one JSON line. */
  send(message: unknown): Promise<void> {
    return this.write(JSON.stringify(message) + "\n");
  }

  /**
   * Sends a request (with `params` as given) and waits for its response. The
   * result of a `tools/call` for a named tool is checked against its tool's
   * contract (ADR-020).
   */
  async request(method: string, params?: unknown): Promise<RpcResponse> {
    const id = this.nextId();
    await this.send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    const response = await this.responseFor(id);
    const name = (params as { name?: unknown } | undefined)?.name;
    if (method === "tools/call" && response.result && typeof name === "string") {
      assertConformingResult(name, response.result, this.#limits);
    }
    return response;
  }

  /** Sends a 2026-07-28 request: `params` plus the `_meta` envelope. */
  modern(method: string, params: Record<string, unknown> = {}): Promise<RpcResponse> {
    return this.request(method, { ...params, _meta: META });
  }

  /** Waits for the stdout line at `index` (0-based) and parses it. */
  async lineAt(index: number, timeoutMs = 10_000): Promise<RpcResponse> {
    await this.#until(() => this.lines.length > index, timeoutMs, `stdout line ${index + 1}`);
    return JSON.parse(this.lines[index]);
  }

  /** Waits for the response carrying `id`. */
  async responseFor(id: string | number, timeoutMs = 10_000): Promise<RpcResponse> {
    const find = () => this.lines.map((l) => JSON.parse(l) as RpcResponse).find((m) => m.id === id);
    await this.#until(() => find() !== undefined, timeoutMs, `the response to id ${id}`);
    return find()!;
  }

  /** Waits until stderr matches `pattern`; returns the matching line. */
  async stderrLine(pattern: RegExp, timeoutMs = 10_000): Promise<string> {
    const find = () => this.#stderr.split("\n").find((line) => pattern.test(line));
    await this.#until(() => find() !== undefined, timeoutMs, `stderr matching ${pattern}`);
    return find()!;
  }

  /** Closes the child's stdin (end of input for the server). */
  async closeStdin(): Promise<void> {
    const writer = this.#writer;
    this.#writer = undefined;
    await writer?.close().catch(() => {});
  }

  /** Waits for the child to exit (after stdout and stderr are fully read). */
  async exit(timeoutMs = 10_000): Promise<Deno.CommandStatus> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("the server did not exit")), timeoutMs);
    });
    try {
      return await Promise.race([
        Promise.all([this.child.status, this.#stdoutDone, this.#stderrDone]).then(([s]) => s),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes stdin and waits for exit; kills the child if it does not go. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.closeStdin();
    try {
      await this.exit(5_000);
    } catch {
      try {
        this.child.kill("SIGKILL");
      } catch { /* already gone */ }
      await Promise.all([this.child.status, this.#stdoutDone, this.#stderrDone]);
    }
  }

  async #pumpStdout(): Promise<void> {
    let buffered = "";
    for await (const text of this.child.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += text;
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        this.lines.push(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
      }
      this.#wake();
    }
    if (buffered !== "") this.lines.push(buffered);
    this.#ended = true;
    this.#wake();
  }

  async #pumpStderr(): Promise<void> {
    for await (const text of this.child.stderr.pipeThrough(new TextDecoderStream())) {
      this.#stderr += text;
      this.#wake();
    }
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  async #until(ready: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!ready()) {
      if (this.#ended) throw new Error(`stdout ended before ${what}; stderr: ${this.#stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; stderr: ${this.#stderr}`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
    }
  }
}
