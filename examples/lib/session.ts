/**
 * What the examples share: the real server started as a child over stdio,
 * with exactly the flags of `deno task devserver` (from
 * `scripts/lib/program.ts`, which reads them from `deno.json`), reached by
 * the MCP SDK's v2 client in the 2026-07-28 era; and the two ways a tool
 * result is read (its text, as the model reads it, and its refusal, if it
 * is one).
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { childEnv, serveArgs } from "../../scripts/lib/program.ts";

/** The revision the examples speak. */
export const PROTOCOL = "2026-07-28";

/** How long any one request may take before the example gives up. */
export const TIMEOUT_MS = 30_000;

/**
 * The SDK's stdio transport. As a subclass it negotiates the era on this
 * very connection rather than on a throw-away sibling process (which the
 * SDK does for its base class).
 */
export class ExampleTransport extends StdioClientTransport {}

/** Something an example saw was not what a working server shows. */
export class ExampleFailure extends Error {}

/** Throws an {@link ExampleFailure} saying `what` unless `condition` holds. */
export function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new ExampleFailure(what);
}

/** A tool result as the SDK client returns it. */
export type CallResult = Awaited<ReturnType<Client["callTool"]>>;

/** One connected client and the server it started. */
export interface Session {
  readonly client: Client;
  /** Calls `name` with `args`. */
  call(name: string, args: Record<string, unknown>): Promise<CallResult>;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * Starts `devserver serve --workspace root` with the `devserver` task's
 * permission and V8 flags, the minimal child environment plus `env` (your
 * own `MCP_*` variables are not passed on), and connects a client to it.
 */
export async function openSession(
  root: string,
  env: Record<string, string> = {},
  name = "devserver-example",
): Promise<Session> {
  const transport = new ExampleTransport({
    command: Deno.execPath(),
    args: serveArgs(root),
    env: childEnv(env),
    cwd: root,
    stderr: "pipe",
  });
  let serverStderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array | string) => {
    serverStderr += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
  });
  const client = new Client(
    { name, version: "1.0.0" },
    { versionNegotiation: { mode: { pin: PROTOCOL } } },
  );
  const close = async () => {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
  };
  try {
    await client.connect(transport, { timeout: TIMEOUT_MS });
  } catch (error) {
    await close();
    const reason = error instanceof Error ? error.message : String(error);
    throw new ExampleFailure(`could not start the server: ${reason}\n${serverStderr.trim()}`);
  }
  return {
    client,
    call: (tool, args) => client.callTool({ name: tool, arguments: args }, { timeout: TIMEOUT_MS }),
    stderr: () => serverStderr,
    close,
  };
}

/** All the text blocks of a result, joined: what the model reads. */
export function textOf(result: CallResult): string {
  return ((result.content ?? []) as Array<{ type: string; text?: string }>)
    .filter((block) => block.type === "text")
    .map((block) => block.text ?? "")
    .join("\n");
}

/** A refusal's code, message and remedy (ADR-013), or `undefined` for a success. */
export interface Refusal {
  readonly code: string;
  readonly message: string;
  readonly remedy: string;
}

/** The refusal a result carries, read from its text as the model reads it. */
export function refusalOf(result: CallResult): Refusal | undefined {
  if (result.isError !== true) return undefined;
  const match = textOf(result).match(/^Refused \(([a-z_]+)\): ([^\n]*)\nRemedy: (.+)$/);
  check(match, `an isError result without the refusal shape: ${textOf(result)}`);
  return { code: match[1], message: match[2], remedy: match[3] };
}

/** `text` with every line indented by `prefix`. */
export function indent(text: string, prefix = "  "): string {
  return text.split("\n").map((line) => prefix + line).join("\n");
}

/**
 * Runs `body`, printing `FAILED: reason` (and the server's stderr when
 * there is some) on stderr if it throws; the exit code to end with.
 */
export async function runExample(
  label: string,
  body: () => Promise<void>,
  stderr: () => string = () => "",
): Promise<number> {
  try {
    await body();
    return 0;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`\n${label} FAILED: ${reason}`);
    if (stderr().trim() !== "") console.error(`server stderr:\n${indent(stderr().trim())}`);
    return 1;
  }
}
