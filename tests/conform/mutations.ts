/**
 * The mutation harness: a proxy between the checker and a correct server,
 * on the stdio framing (one JSON message per line), that breaks one
 * requirement at a time. Each mutation names the checks it must turn red.
 *
 * @module
 */

import type { StreamTarget } from "../../src/conform/target.ts";

type Json = Record<string, unknown>;

/** What a client→server hook decides for one message. */
export type Inbound =
  | { forward: Json }
  /** Answer the client directly (the server never sees the message). */
  | { reply: Json }
  | { drop: true };

/** The hooks of one mutation (fresh per run: they may keep state). */
export interface Hooks {
  /** A message from the checker, before the server sees it. */
  toServer?: (message: Json, proxy: ProxyState) => Inbound;
  /** A line that is not JSON, from the checker. */
  rawToServer?: (line: string) => { forward: string } | { reply: Json };
  /**
   * A message from the server, with the request it answers (if any).
   * Returns what the checker sees instead: messages or raw lines, in order.
   */
  toClient?: (message: Json, request: Json | undefined, proxy: ProxyState) => Array<Json | string>;
  /** Keep the server running and the output open when the checker closes stdin. */
  ignoreInputClose?: boolean;
}

/** One broken requirement. */
export interface Mutation {
  readonly name: string;
  /** The checks this mutation must turn red (and no other). */
  readonly breaks: readonly string[];
  readonly hooks: () => Hooks;
}

/** What the proxy has seen so far. */
export interface ProxyState {
  /** Requests by JSON id, as the checker sent them. */
  readonly requests: Map<string, Json>;
  /** Methods of every request the checker sent, in order. */
  readonly methods: string[];
}

const encoder = new TextEncoder();

/** `inner` behind a proxy that applies `hooks` to every message both ways. */
export function mutatingProxy(inner: StreamTarget, hooks: Hooks): StreamTarget {
  const state: ProxyState = { requests: new Map(), methods: [] };
  const innerWriter = inner.input.getWriter();
  let output!: ReadableStreamDefaultController<Uint8Array>;
  let outputOpen = true;
  const emit = (item: Json | string) => {
    if (!outputOpen) return;
    output.enqueue(encoder.encode((typeof item === "string" ? item : JSON.stringify(item)) + "\n"));
  };
  const toServer = (line: string) => {
    let message: Json | undefined;
    try {
      const parsed = JSON.parse(line);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) message = parsed;
    } catch { /* raw */ }
    if (!message) {
      const raw = hooks.rawToServer?.(line) ?? { forward: line };
      if ("reply" in raw) emit(raw.reply);
      else innerWriter.write(encoder.encode(raw.forward + "\n")).catch(() => {});
      return;
    }
    if ("id" in message && typeof message.method === "string") {
      state.requests.set(JSON.stringify(message.id), message);
      state.methods.push(message.method);
    }
    const decision = hooks.toServer?.(message, state) ?? { forward: message };
    if ("reply" in decision) emit(decision.reply);
    else if ("forward" in decision) {
      innerWriter.write(encoder.encode(JSON.stringify(decision.forward) + "\n")).catch(() => {});
    }
  };
  const input = lineSink(toServer, async () => {
    if (!hooks.ignoreInputClose) await innerWriter.close().catch(() => {});
  });
  const readable = new ReadableStream<Uint8Array>({ start: (c) => void (output = c) });
  const pump = (async () => {
    let buffered = "";
    for await (const text of inner.output.pipeThrough(new TextDecoderStream())) {
      buffered += text;
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        let message: Json | undefined;
        try {
          message = JSON.parse(line);
        } catch { /* passed through */ }
        if (!message || !hooks.toClient) {
          emit(line);
          continue;
        }
        const request = "id" in message && message.method === undefined
          ? state.requests.get(JSON.stringify(message.id))
          : undefined;
        for (const item of hooks.toClient(message, request, state)) emit(item);
      }
    }
  })().catch(() => {}).finally(() => {
    if (!hooks.ignoreInputClose && outputOpen) {
      outputOpen = false;
      output.close();
    }
  });
  return {
    description: `${inner.description} behind a mutating proxy`,
    input,
    output: readable,
    ended: hooks.ignoreInputClose ? new Promise(() => {}) : pump.then(() => inner.ended),
    stderr: () => inner.stderr(),
    kill: async () => {
      if (outputOpen) {
        outputOpen = false;
        output.close();
      }
      await innerWriter.close().catch(() => {});
      await inner.kill();
    },
  };
}

function lineSink(onLine: (line: string) => void, onClose: () => Promise<void>) {
  const decoder = new TextDecoder();
  let buffered = "";
  return new WritableStream<Uint8Array>({
    write: (chunk) => {
      buffered += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        onLine(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
      }
    },
    close: onClose,
  });
}

// ---------------------------------------------------------------------------
// Helpers for the table

const META_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CAPS = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

function metaOf(message: Json): Json | undefined {
  const params = message.params as Json | undefined;
  return params?._meta as Json | undefined;
}

function methodOf(request: Json | undefined): string | undefined {
  return request?.method as string | undefined;
}

function withResult(message: Json, change: (result: Json) => Json | void): Json {
  if (!message.result) return message;
  const result = structuredClone(message.result) as Json;
  return { ...message, result: change(result) ?? result };
}

function withMeta(message: Json, change: (meta: Json) => void): Json {
  const copy = structuredClone(message);
  const meta = metaOf(copy);
  if (meta) change(meta);
  return copy;
}

function toolNameOf(request: Json | undefined): string | undefined {
  return (request?.params as Json | undefined)?.name as string | undefined;
}

/** Results only: `change` for responses to `method`. */
function onResults(method: string, change: (result: Json, request: Json) => Json | void): Hooks {
  return {
    toClient: (message, request) =>
      methodOf(request) === method ? [withResult(message, (r) => change(r, request!))] : [message],
  };
}

/** Errors only: `change` for error responses (to `method`, when given). */
function onErrors(
  change: (error: Json, request: Json | undefined) => Json,
  method?: string,
): Hooks {
  return {
    toClient: (message, request) => {
      if (!message.error || (method && methodOf(request) !== method)) return [message];
      return [{ ...message, error: change(structuredClone(message.error) as Json, request) }];
    },
  };
}

/** Whether the checker has sent a tools/call yet (the second tool listing comes after). */
function afterToolCalls(proxy: ProxyState): boolean {
  return proxy.methods.includes("tools/call");
}

/**
 * Hooks applied under every mutation and the baseline. Empty since our
 * server answers a cursor it never issued on tools/list with -32602 (the
 * checker's finding C027, fixed); kept so a future correction has one home.
 */
export const BASELINE: Hooks = {};

/** Applies `first`, then `second`, to each message. */
export function chain(first: Hooks, second: Hooks): Hooks {
  return {
    ignoreInputClose: first.ignoreInputClose || second.ignoreInputClose,
    rawToServer: second.rawToServer ?? first.rawToServer,
    toServer: (message, proxy) => {
      const a = first.toServer?.(message, proxy) ?? { forward: message };
      if (!("forward" in a)) return a;
      return second.toServer?.(a.forward, proxy) ?? a;
    },
    toClient: (message, request, proxy) =>
      (first.toClient?.(message, request, proxy) ?? [message]).flatMap((item) =>
        typeof item === "string" ? [item] : second.toClient?.(item, request, proxy) ?? [item]
      ),
  };
}

/** Every mutation, each with the checks it must turn red. */
export const MUTATIONS: readonly Mutation[] = [
  {
    name: "server/discover answered -32601, as a 2025-era server would",
    breaks: ["C001"],
    hooks: () => ({
      toServer: (message) =>
        message.method === "server/discover"
          ? {
            reply: {
              jsonrpc: "2.0",
              id: message.id,
              error: { code: -32601, message: "Method not found" },
            },
          }
          : { forward: message },
    }),
  },
  {
    name: "discover without supportedVersions",
    breaks: ["C002"],
    hooks: () => onResults("server/discover", (r) => void delete r.supportedVersions),
  },
  {
    name: "discover capabilities as a string",
    breaks: ["C003"],
    hooks: () => onResults("server/discover", (r) => void (r.capabilities = "tools")),
  },
  {
    name: "discover without serverInfo in _meta",
    breaks: ["C004", "C036"],
    hooks: () => onResults("server/discover", (r) => void delete (r._meta as Json)[SERVER_INFO]),
  },
  {
    name: "discover ttlMs negative",
    breaks: ["C005"],
    hooks: () => onResults("server/discover", (r) => void (r.ttlMs = -1)),
  },
  {
    name: "discover instructions as a number",
    breaks: ["C006"],
    hooks: () => onResults("server/discover", (r) => void (r.instructions = 42)),
  },
  {
    name: "a missing clientCapabilities is filled in instead of refused",
    breaks: ["C007"],
    hooks: () => ({
      toServer: (m) => ({
        forward: withMeta(m, (meta) => {
          if (meta[META_VERSION] !== undefined && !(META_CAPS in meta)) meta[META_CAPS] = {};
        }),
      }),
    }),
  },
  {
    name: "a clientCapabilities string is replaced by {} instead of refused",
    breaks: ["C008"],
    hooks: () => ({
      toServer: (m) => ({
        forward: withMeta(m, (meta) => {
          if (typeof meta[META_CAPS] === "string") meta[META_CAPS] = {};
        }),
      }),
    }),
  },
  {
    name: "a numeric protocolVersion is taken as the string",
    breaks: ["C009"],
    hooks: () => ({
      toServer: (m) => ({
        forward: withMeta(m, (meta) => {
          if (typeof meta[META_VERSION] === "number") {
            meta[META_VERSION] = String(meta[META_VERSION]).replace(
              /^(\d{4})(\d\d)(\d\d)$/,
              "$1-$2-$3",
            );
          }
        }),
      }),
    }),
  },
  {
    name: "-32022 loses data.requested",
    breaks: ["C010", "C011"],
    hooks: () =>
      onErrors((error) => {
        if (error.code === -32022) delete (error.data as Json).requested;
        return error;
      }),
  },
  {
    name: "-32022 turned into -32603",
    // C042 too: the refusal of initialize was a -32022 naming the supported versions.
    breaks: ["C010", "C011", "C019", "C042"],
    hooks: () =>
      onErrors((error) =>
        error.code === -32022 ? { code: -32603, message: "Internal error" } : error
      ),
  },
  {
    name: "a bad version is accepted after the first request that claimed one",
    breaks: ["C011", "C019"],
    hooks: () => {
      let refusedOnce = false;
      return {
        toServer: (m) => {
          const meta = metaOf(m);
          if (
            meta && typeof meta[META_VERSION] === "string" && meta[META_VERSION] !== "2026-07-28"
          ) {
            if (!refusedOnce) {
              refusedOnce = true;
              return { forward: m };
            }
            return { forward: withMeta(m, (mm) => void (mm[META_VERSION] = "2026-07-28")) };
          }
          return { forward: m };
        },
      };
    },
  },
  {
    name: "traceparent in _meta refused",
    breaks: ["C012"],
    hooks: () => ({
      toServer: (m) =>
        metaOf(m)?.traceparent !== undefined
          ? { reply: { jsonrpc: "2.0", id: m.id, error: { code: -32602, message: "unknown key" } } }
          : { forward: m },
    }),
  },
  {
    name: "invalid JSON answered -32600",
    breaks: ["C013"],
    hooks: () => ({
      rawToServer: () => ({
        reply: { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } },
      }),
    }),
  },
  {
    name: 'jsonrpc "1.0" served as "2.0"',
    breaks: ["C014"],
    hooks: () => ({ toServer: (m) => ({ forward: { ...m, jsonrpc: "2.0" } }) }),
  },
  {
    name: "an unknown method answered -32603",
    breaks: ["C015", "C019"],
    hooks: () =>
      onErrors((error, request) =>
        error.code === -32601 && String(methodOf(request)).startsWith("conform/")
          ? { code: -32603, message: "Internal error" }
          : error
      ),
  },
  {
    name: "a notification answered",
    breaks: ["C016"],
    hooks: () => ({
      toServer: (m) =>
        !("id" in m) && m.method === "notifications/cancelled"
          ? { reply: { jsonrpc: "2.0", id: null, result: { resultType: "complete" } } }
          : { forward: m },
    }),
  },
  {
    name: "a non-ASCII string id answered as ASCII",
    breaks: ["C017"],
    hooks: () => ({
      toClient: (m) =>
        typeof m.id === "string" && /[^ -~]/.test(m.id)
          ? [{ ...m, id: m.id.replace(/[^ -~]/g, "") }]
          : [m],
    }),
  },
  {
    name: "a large integer id answered as a string",
    breaks: ["C018"],
    hooks: () => ({
      toClient: (m) => m.id === 9007199254740991 ? [{ ...m, id: "9007199254740991" }] : [m],
    }),
  },
  {
    name: "answers to concurrent requests swapped",
    breaks: ["C019"],
    hooks: () => {
      const inFlight: string[] = [];
      const swap = new Map<string, unknown>();
      return {
        toServer: (m) => {
          if ("id" in m && typeof m.method === "string") inFlight.push(JSON.stringify(m.id));
          return { forward: m };
        },
        toClient: (m) => {
          if (!("id" in m) || m.method !== undefined) return [m];
          const key = JSON.stringify(m.id);
          const at = inFlight.indexOf(key);
          if (at >= 0) inFlight.splice(at, 1);
          if (swap.has(key)) {
            const id = swap.get(key);
            swap.delete(key);
            return [{ ...m, id }];
          }
          if (at === 0 && inFlight.length > 0) {
            const other = inFlight[0];
            swap.set(other, m.id);
            return [{ ...m, id: JSON.parse(other) }];
          }
          return [m];
        },
      };
    },
  },
  {
    name: "prompts/list served though prompts is not advertised",
    breaks: ["C020"],
    hooks: () => ({
      toServer: (m) =>
        m.method === "prompts/list"
          ? {
            reply: {
              jsonrpc: "2.0",
              id: m.id,
              result: {
                prompts: [],
                resultType: "complete",
                _meta: { [SERVER_INFO]: { name: "devserver", version: "0" } },
              },
            },
          }
          : { forward: m },
    }),
  },
  {
    name: "a tool's inputSchema as a string",
    breaks: ["C021", "C023"],
    hooks: () =>
      onResults("tools/list", (r) => {
        const tools = r.tools as Json[];
        if (tools.length) tools[tools.length - 1].inputSchema = "object";
      }),
  },
  {
    name: "a tool name with a space",
    breaks: ["C022"],
    hooks: () => ({
      toServer: (m) =>
        m.method === "tools/call" && toolNameOf(m) === "read file"
          ? { forward: { ...m, params: { ...(m.params as Json), name: "read_file" } } }
          : { forward: m },
      toClient: (m, request) =>
        methodOf(request) === "tools/list"
          ? [withResult(m, (r) => {
            for (const tool of r.tools as Json[]) {
              if (tool.name === "read_file") tool.name = "read file";
            }
          })]
          : [m],
    }),
  },
  {
    name: "an input schema that does not compile",
    breaks: ["C023"],
    hooks: () =>
      onResults("tools/list", (r) => {
        (r.tools as Json[])[0].inputSchema = {
          type: "object",
          properties: { path: { type: "bogus" } },
        };
      }),
  },
  {
    name: "an output schema that does not compile",
    breaks: ["C024"],
    hooks: () =>
      onResults("tools/list", (r) => void ((r.tools as Json[])[0].outputSchema = { type: 7 })),
  },
  {
    name: "tools/list without ttlMs",
    breaks: ["C025"],
    hooks: () => onResults("tools/list", (r) => void delete r.ttlMs),
  },
  {
    name: "pagination that repeats its cursor",
    breaks: ["C026"],
    hooks: () => ({
      toServer: (m) =>
        m.method === "tools/list" && (m.params as Json)?.cursor === "conform-loop"
          ? {
            reply: {
              jsonrpc: "2.0",
              id: m.id,
              result: {
                tools: [],
                nextCursor: "conform-loop",
                resultType: "complete",
                ttlMs: 0,
                cacheScope: "private",
                _meta: { [SERVER_INFO]: { name: "devserver", version: "0" } },
              },
            },
          }
          : { forward: m },
      toClient: (m, request) =>
        methodOf(request) === "tools/list"
          ? [withResult(m, (r) => void (r.nextCursor = "conform-loop"))]
          : [m],
    }),
  },
  {
    name: "a bogus cursor accepted (dropped before the server sees it)",
    breaks: ["C027"],
    hooks: () => ({
      toServer: (message) => {
        const params = message.params as Json | undefined;
        if (message.method !== "tools/list" || params?.cursor === undefined) {
          return { forward: message };
        }
        const { cursor: _dropped, ...rest } = params as Record<string, Json>;
        return { forward: { ...message, params: rest } };
      },
    }),
  },
  {
    name: "an unknown tool answered as an isError result",
    breaks: ["C028"],
    hooks: () => ({
      toClient: (m, request) =>
        methodOf(request) === "tools/call" && m.error
          ? [{
            jsonrpc: "2.0",
            id: m.id,
            result: {
              content: [{ type: "text", text: "no such tool" }],
              isError: true,
              resultType: "complete",
              _meta: { [SERVER_INFO]: { name: "devserver", version: "0" } },
            },
          }]
          : [m],
    }),
  },
  {
    name: "schema-violating arguments answered as a success",
    breaks: ["C029"],
    hooks: () => onResults("tools/call", (r) => void (r.isError === true && delete r.isError)),
  },
  {
    name: "tools/call content as a string",
    breaks: ["C030"],
    hooks: () => onResults("tools/call", (r) => void (r.content = "text")),
  },
  {
    name: "error results carry structuredContent the output schema rejects",
    breaks: ["C031"],
    hooks: () =>
      onResults("tools/call", (r) => {
        if (r.isError === true) r.structuredContent = { error: "invalid_arguments" };
      }),
  },
  {
    name: "the second tool list changes a description",
    breaks: ["C032"],
    hooks: () => ({
      toClient: (m, request, proxy) =>
        methodOf(request) === "tools/list" && afterToolCalls(proxy)
          ? [withResult(m, (r) => void ((r.tools as Json[])[0].description = "changed"))]
          : [m],
    }),
  },
  {
    name: "the second tool list in another order",
    breaks: ["C033"],
    hooks: () => ({
      toClient: (m, request, proxy) =>
        methodOf(request) === "tools/list" && afterToolCalls(proxy)
          ? [withResult(m, (r) => void (r.tools as Json[]).reverse())]
          : [m],
    }),
  },
  {
    name: "tools/list without resultType",
    breaks: ["C034"],
    hooks: () => onResults("tools/list", (r) => void delete r.resultType),
  },
  {
    name: "tool error results without resultType",
    breaks: ["C034", "C035"],
    hooks: () => onResults("tools/call", (r) => void (r.isError === true && delete r.resultType)),
  },
  {
    name: "tools/call results without serverInfo",
    breaks: ["C036"],
    hooks: () => onResults("tools/call", (r) => void delete (r._meta as Json)?.[SERVER_INFO]),
  },
  {
    name: "an extra -32002 error after a tool call",
    breaks: ["C037"],
    hooks: () => ({
      toClient: (m, request) =>
        methodOf(request) === "tools/call"
          ? [m, {
            jsonrpc: "2.0",
            id: null,
            error: { code: -32002, message: "Resource not found" },
          }]
          : [m],
    }),
  },
  {
    name: "an extra -32021 without data after a tool call",
    breaks: ["C038"],
    hooks: () => ({
      toClient: (m, request) =>
        methodOf(request) === "tools/call"
          ? [m, {
            jsonrpc: "2.0",
            id: null,
            error: { code: -32021, message: "Missing capability" },
          }]
          : [m],
    }),
  },
  {
    name: "a log line on stdout",
    breaks: ["C039"],
    hooks: () => ({
      toClient: (m, request) =>
        methodOf(request) === "tools/call" ? ["debug: tool called", m] : [m],
    }),
  },
  {
    name: "a JSON-RPC request on stdout",
    breaks: ["C040"],
    hooks: () => ({
      toClient: (m, request) =>
        methodOf(request) === "tools/call"
          ? [{ jsonrpc: "2.0", id: "srv-1", method: "roots/list" }, m]
          : [m],
    }),
  },
  {
    name: "initialize answered with nonsense",
    breaks: ["C041"],
    hooks: () => ({
      toServer: (m) =>
        m.method === "initialize"
          ? { reply: { jsonrpc: "2.0", id: m.id, result: { hello: "world" } } }
          : { forward: m },
    }),
  },
  {
    name: "initialize refused without naming the supported versions",
    breaks: ["C042"],
    hooks: () => onErrors(() => ({ code: -32600, message: "Bad request" }), "initialize"),
  },
  {
    name: "stdin closed but the server keeps running",
    breaks: ["C043"],
    hooks: () => ({ ignoreInputClose: true }),
  },
];
