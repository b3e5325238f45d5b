/**
 * What the checks share during one run: the connection, the era the target
 * speaks, and the requests several checks judge (discover, the tool list,
 * the tool calls), each made once, on first need, so `--only` still runs
 * whatever a check depends on.
 *
 * @module
 */

import { MODERN_PROTOCOL_VERSION, PROTOCOL_VERSION_META_KEY } from "../version.ts";
import { type Connection, type Reply, type RpcMessage, sameId } from "./connection.ts";
import type { HttpEndpoint } from "./http.ts";
import { compileSchema } from "./schema.ts";

/** The key of the per-request client capabilities. */
export const CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities";
/** The key of the per-request client identity. */
export const CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo";
/** The key of the per-response server identity. */
export const SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo";

/** The 2026-07-28 request envelope the checker sends. */
export function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    [PROTOCOL_VERSION_META_KEY]: MODERN_PROTOCOL_VERSION,
    [CLIENT_CAPABILITIES_META_KEY]: {},
    [CLIENT_INFO_META_KEY]: { name: "devserver-conform", version: "1" },
    ...extra,
  };
}

/** Which protocol the target speaks, as `server/discover` showed. */
export type Era = "modern" | "legacy";

/** A tool as listed (loosely typed: the checks judge the shape). */
export interface ListedTool {
  name?: unknown;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: { readOnlyHint?: unknown };
  [key: string]: unknown;
}

/** One tools/call the run made, and its reply. */
export interface ToolCall {
  readonly tool: string;
  readonly purpose: "plain" | "violation";
  readonly args: Record<string, unknown>;
  readonly reply: Reply;
}

/** A plain object, or undefined. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}

/** A short description of a reply for a failure detail. */
export function describeReply(reply: Reply): string {
  if (reply.kind === "timeout") return `no answer within ${reply.waitedMs} ms`;
  if (reply.kind === "closed") return "the target closed its output (it exited or crashed)";
  const m = reply.message;
  if (m.error) return `error ${JSON.stringify(m.error.code)} ${JSON.stringify(m.error.message)}`;
  return `result ${clip(JSON.stringify(m.result))}`;
}

/** `text` cut to `max` characters. */
export function clip(text: string | undefined, max = 160): string {
  if (text === undefined) return "undefined";
  return text.length > max ? text.slice(0, max) + "…" : text;
}

/** The error code of a reply, if it is an error response. */
export function errorCode(reply: Reply): unknown {
  return reply.kind === "response" ? reply.message.error?.code : undefined;
}

/** The result of a reply, if it is a result response. */
export function resultOf(reply: Reply): Record<string, unknown> | undefined {
  return reply.kind === "response" && reply.message.error === undefined
    ? asObject(reply.message.result)
    : undefined;
}

/** How many tools the run calls at most. */
const MAX_TOOLS_CALLED = 16;

/** Shared state of one run. */
export class CheckContext {
  readonly conn: Connection;
  readonly transport: "stdio" | "http";
  #discover?: Promise<Reply>;
  #era?: Era;
  #initialize?: Promise<Reply>;
  #firstList?: Promise<ToolListing>;
  #secondList?: Promise<ToolListing>;
  #calls?: Promise<ToolCall[]>;
  /** How many output lines there were when initialize was sent (undefined: not sent). */
  initializeSentAt?: number;

  /** The endpoint, when the target is reached over HTTP. */
  readonly http?: HttpEndpoint;

  constructor(conn: Connection, transport: "stdio" | "http", http?: HttpEndpoint) {
    this.conn = conn;
    this.transport = transport;
    this.http = http;
  }

  /** The reply to the run's first `server/discover`. */
  discover(): Promise<Reply> {
    this.#discover ??= this.conn.request("server/discover", { _meta: modernMeta() }, {
      modern: true,
    });
    return this.#discover;
  }

  /** The era: modern when discover answered a result; legacy otherwise (initialize is then sent). */
  async era(): Promise<Era> {
    if (this.#era) return this.#era;
    const result = resultOf(await this.discover());
    this.#era = result ? "modern" : "legacy";
    if (this.#era === "legacy") await this.initialize();
    return this.#era;
  }

  /**
   * The reply to `initialize` (2025-11-25). For a legacy target it opens the
   * session (followed by `notifications/initialized`) before anything else.
   */
  initialize(): Promise<Reply> {
    this.#initialize ??= (async () => {
      this.initializeSentAt = this.conn.lines.length;
      const reply = await this.conn.request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "devserver-conform", version: "1" },
      });
      if (resultOf(reply)) {
        await this.conn.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      }
      return reply;
    })();
    return this.#initialize;
  }

  /** Request params for this target's era (with the envelope when modern). */
  async params(params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return (await this.era()) === "modern" ? { ...params, _meta: modernMeta() } : params;
  }

  /** Sends a request in the target's era. */
  async request(method: string, params: Record<string, unknown> = {}): Promise<Reply> {
    const modern = (await this.era()) === "modern";
    return await this.conn.request(method, await this.params(params), { modern });
  }

  /** The capabilities the target advertised (discover, or initialize for a legacy target). */
  async capabilities(): Promise<Record<string, unknown> | undefined> {
    const era = await this.era();
    const reply = era === "modern" ? await this.discover() : await this.initialize();
    return asObject(resultOf(reply)?.capabilities);
  }

  /** The first full tool listing (every page), or why there is none. */
  toolList(): Promise<ToolListing> {
    this.#firstList ??= this.#listAll();
    return this.#firstList;
  }

  /** A second full listing, made after the tool calls (for the stability checks). */
  async toolListAgain(): Promise<ToolListing> {
    await this.toolList();
    await this.toolCalls();
    this.#secondList ??= this.#listAll();
    return this.#secondList;
  }

  /**
   * The tool calls of the run: each read-only tool (annotated
   * `readOnlyHint: true`; others are never called, since the checker cannot
   * know what they do) with `{}`, and with arguments that violate its input
   * schema when one can be derived.
   */
  toolCalls(): Promise<ToolCall[]> {
    this.#calls ??= (async () => {
      const listing = await this.toolList();
      const calls: ToolCall[] = [];
      for (const tool of listing.tools.filter(isCallable).slice(0, MAX_TOOLS_CALLED)) {
        const name = tool.name as string;
        const plain = {};
        calls.push({
          tool: name,
          purpose: "plain",
          args: plain,
          reply: await this.request("tools/call", { name, arguments: plain }),
        });
        const violation = violatingArguments(tool.inputSchema);
        if (violation && Object.keys(violation).length > 0) {
          calls.push({
            tool: name,
            purpose: "violation",
            args: violation,
            reply: await this.request("tools/call", { name, arguments: violation }),
          });
        } else if (violation) {
          // {} itself violates the schema (it has required properties): the plain call is the probe.
          calls[calls.length - 1] = { ...calls[calls.length - 1], purpose: "violation" };
        }
      }
      return calls;
    })();
    return this.#calls;
  }

  /** The listed tool called `name`. */
  async tool(name: string): Promise<ListedTool | undefined> {
    return (await this.toolList()).tools.find((t) => t.name === name);
  }

  async #listAll(): Promise<ToolListing> {
    const caps = await this.capabilities();
    if (!caps?.tools) return { applicable: false, pages: [], tools: [], problems: [] };
    const pages: ToolPage[] = [];
    const problems: string[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const reply = await this.request("tools/list", cursor === undefined ? {} : { cursor });
      const result = resultOf(reply);
      if (!result) {
        problems.push(
          `tools/list${cursor ? " (page " + (page + 1) + ")" : ""}: ${describeReply(reply)}`,
        );
        break;
      }
      pages.push({ reply, result });
      const next = result.nextCursor;
      if (next === undefined || next === null) break;
      if (typeof next !== "string") {
        problems.push(`nextCursor is ${JSON.stringify(next)}, not a string`);
        break;
      }
      if (cursors.has(next)) {
        problems.push(`nextCursor ${clip(JSON.stringify(next), 60)} was returned twice`);
        break;
      }
      cursors.add(next);
      cursor = next;
      if (page === 99) problems.push("pagination did not end within 100 pages");
    }
    const tools = pages.flatMap((p) =>
      Array.isArray(p.result.tools) ? (p.result.tools as ListedTool[]) : []
    );
    return { applicable: true, pages, tools, problems };
  }
}

/** One page of tools/list. */
export interface ToolPage {
  readonly reply: Reply;
  readonly result: Record<string, unknown>;
}

/** Every page of one tools/list walk. */
export interface ToolListing {
  /** False when the target does not advertise tools. */
  readonly applicable: boolean;
  readonly pages: readonly ToolPage[];
  readonly tools: readonly ListedTool[];
  /** Errors and pagination faults met on the way. */
  readonly problems: readonly string[];
}

function isCallable(tool: ListedTool): boolean {
  return typeof tool.name === "string" && asObject(tool.annotations)?.readOnlyHint === true &&
    asObject(tool.inputSchema) !== undefined && compileSchema(tool.inputSchema).ok === true;
}

/**
 * Arguments that break `schema`: `{}` when it has required properties (an
 * empty object is returned), else a property given a value of the wrong
 * type, else an unexpected property when `additionalProperties` is false;
 * `undefined` when no violation can be derived.
 */
export function violatingArguments(schema: unknown): Record<string, unknown> | undefined {
  const s = asObject(schema);
  if (!s) return undefined;
  if (Array.isArray(s.required) && s.required.length > 0) return {};
  const properties = asObject(s.properties) ?? {};
  for (const [name, definition] of Object.entries(properties)) {
    const type = asObject(definition)?.type;
    if (type === "string") return { [name]: 12345 };
    if (["number", "integer", "boolean", "array", "object"].includes(type as string)) {
      return { [name]: "conform-wrong-type" };
    }
  }
  if (s.additionalProperties === false) return { conform_unexpected_property: true };
  return undefined;
}

/** Whether a message is a response to `id`. */
export function isResponseTo(id: string | number): (m: RpcMessage) => boolean {
  return (m) => sameId(m.id, id) && m.method === undefined;
}
