/**
 * The stdio transport: newline-delimited JSON-RPC over a byte stream pair.
 * It closes the gaps the SDK's own stdio transport leaves open:
 *
 * - an unparseable line is answered -32700 (id null) and the stream goes on;
 * - an over-long line is skipped as it arrives (never buffered whole) and
 *   answered -32700;
 * - every request's protocol revision claim is checked, not only the first:
 *   an unsupported one is answered -32022 naming the supported revisions
 *   (the claimed one is echoed once, in `data.requested`, escaped and cut);
 * - a request whose `params` is not an object, or whose `params._meta` is
 *   not one, is answered -32602 (Invalid params), as is a request that
 *   carries the 2026-07-28 envelope (`io.modelcontextprotocol/clientCapabilities`
 *   or `…/clientInfo`) without its required protocol version;
 * - notifications are never answered.
 *
 * Everything else is handed to the SDK's `serveStdio` unchanged.
 *
 * @module
 */

import {
  type JSONRPCMessage,
  parseJSONRPCMessage,
  ProtocolErrorCode,
  type Transport,
  UnsupportedProtocolVersionError,
} from "@modelcontextprotocol/server";
import { escapeName } from "../contract/text.ts";
import { MODERN_PROTOCOL_VERSION, PROTOCOL_VERSION_META_KEY } from "../version.ts";

/** Options for {@linkcode LineTransport}. */
export interface LineTransportOptions {
  /** Longest accepted line in bytes (the newline not counted). */
  readonly maxLineBytes: number;
  /**
   * When the input ends, how long to wait for answers to requests already
   * received before closing (so `printf … | devserver serve` loses nothing).
   */
  readonly drainMs?: number;
}

type JsonId = string | number | null;

/** The longest a claimed revision is echoed back (in `data.requested`), in characters. */
export const MAX_ECHOED_REVISION = 64;

/** Request `_meta` keys only the 2026-07-28 envelope defines (besides the protocol version). */
const MODERN_ENVELOPE_KEYS = [
  "io.modelcontextprotocol/clientCapabilities",
  "io.modelcontextprotocol/clientInfo",
];

const NEWLINE = 0x0a;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** A JSON-RPC transport over newline-delimited byte streams (stdin/stdout in production). */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #input: ReadableStream<Uint8Array>;
  readonly #output: WritableStreamDefaultWriter<Uint8Array>;
  readonly #maxLineBytes: number;
  #reader?: ReadableStreamDefaultReader<Uint8Array>;
  readonly #drainMs: number;
  #writes: Promise<void> = Promise.resolve();
  #closed = false;
  /** Requests handed to the server and not yet answered. */
  readonly #pending = new Set<string | number>();
  #drained?: () => void;

  /** A transport reading lines from `input` and writing lines to `output`. */
  constructor(
    input: ReadableStream<Uint8Array>,
    output: WritableStream<Uint8Array>,
    options: LineTransportOptions,
  ) {
    this.#input = input;
    this.#output = output.getWriter();
    this.#maxLineBytes = options.maxLineBytes;
    this.#drainMs = options.drainMs ?? 0;
  }

  /** Starts reading; resolves at once (reading continues in the background). */
  start(): Promise<void> {
    this.#reader = this.#input.getReader();
    this.#readLoop().catch((error) => this.onerror?.(toError(error)));
    return Promise.resolve();
  }

  /** Writes one message as a line. Writes keep their order. */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("transport is closed"));
    if (!("method" in message) && "id" in message) {
      this.#pending.delete(message.id as string | number);
      if (this.#pending.size === 0) this.#drained?.();
    }
    const bytes = encoder.encode(JSON.stringify(boundRevisionEcho(message)) + "\n");
    const write = this.#writes.then(() => this.#output.write(bytes));
    this.#writes = write.catch(() => {});
    return write;
  }

  /** Stops reading and flushes pending writes. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader?.cancel().catch(() => {});
    await this.#writes;
    this.onclose?.();
  }

  async #readLoop(): Promise<void> {
    const reader = this.#reader!;
    let pieces: Uint8Array[] = [];
    let size = 0;
    let discarding = false;
    while (!this.#closed) {
      const { value, done } = await reader.read();
      if (done) {
        // A last line without its newline is still a message (or still too long).
        if (discarding) this.#replyTooLong();
        else if (size > 0) this.#handleLine(joinPieces(pieces, size));
        break;
      }
      let start = 0;
      while (start < value.length) {
        const newline = value.indexOf(NEWLINE, start);
        const end = newline === -1 ? value.length : newline;
        if (!discarding) {
          size += end - start;
          if (size > this.#maxLineBytes) {
            discarding = true;
            pieces = [];
          } else if (end > start) {
            pieces.push(value.slice(start, end));
          }
        }
        if (newline === -1) break;
        if (discarding) {
          this.#replyTooLong();
        } else {
          this.#handleLine(joinPieces(pieces, size));
        }
        pieces = [];
        size = 0;
        discarding = false;
        start = newline + 1;
      }
    }
    if (!this.#closed) {
      await this.#drain();
      this.#closed = true;
      await this.#writes;
      this.onclose?.();
    }
  }

  /** Waits (up to the drain budget) until every received request is answered. */
  async #drain(): Promise<void> {
    if (this.#pending.size === 0 || this.#drainMs <= 0) return;
    const done = new Promise<void>((resolve) => this.#drained = resolve);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => timer = setTimeout(resolve, this.#drainMs));
    await Promise.race([done, timeout]);
    clearTimeout(timer);
  }

  #handleLine(bytes: Uint8Array): void {
    const text = decoder.decode(bytes).replace(/\r$/, "");
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#reply(null, ProtocolErrorCode.ParseError, "Parse error: the line is not valid JSON");
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      const id = idOf(value);
      const badParams = invalidParams(value);
      if (badParams !== undefined) {
        // A request that is well-formed but for its params: -32602, not -32600.
        if (id !== undefined && id !== null) {
          this.#reply(id, ProtocolErrorCode.InvalidParams, `Invalid params: ${badParams}`);
        }
        return;
      }
      if (!isObject(value) || !("method" in value) || id !== undefined) {
        this.#reply(
          id ?? null,
          ProtocolErrorCode.InvalidRequest,
          "Invalid Request: not a JSON-RPC 2.0 message",
        );
      }
      return;
    }
    const missing = missingRevision(message);
    if (missing !== undefined) {
      if ("id" in message) {
        this.#reply(message.id as JsonId, ProtocolErrorCode.InvalidParams, missing);
      }
      return;
    }
    const unsupported = unsupportedRevision(message);
    if (unsupported !== undefined) {
      if ("id" in message) {
        // send() bounds the echo of the claim (see boundRevisionEcho).
        const error = new UnsupportedProtocolVersionError({
          supported: [MODERN_PROTOCOL_VERSION],
          requested: unsupported,
        });
        this.#reply(message.id as JsonId, error.code, error.message, error.data);
      }
      return;
    }
    if ("method" in message && "id" in message) this.#pending.add(message.id as string | number);
    if ("method" in message && message.method === "notifications/cancelled") {
      // A cancelled request is never answered (the SDK drops its result): stop waiting for it.
      const cancelled = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof cancelled === "string" || typeof cancelled === "number") {
        this.#pending.delete(cancelled);
        if (this.#pending.size === 0) this.#drained?.();
      }
    }
    this.onmessage?.(message);
  }

  #replyTooLong(): void {
    this.#reply(
      null,
      ProtocolErrorCode.ParseError,
      `Parse error: line longer than ${this.#maxLineBytes} bytes`,
    );
  }

  #reply(id: JsonId, code: number, message: string, data?: unknown): void {
    const error = data === undefined ? { code, message } : { code, message, data };
    this.send({ jsonrpc: "2.0", id, error } as unknown as JSONRPCMessage).catch((e) =>
      this.onerror?.(toError(e))
    );
  }
}

/**
 * Why a message that is JSON-RPC in every other way has unusable params, or
 * undefined: `params` must be an object (MCP names every parameter), and
 * `params._meta`, when present, an object too.
 */
function invalidParams(value: unknown): string | undefined {
  if (!isObject(value) || value.jsonrpc !== "2.0" || typeof value.method !== "string") {
    return undefined;
  }
  if (!("params" in value)) return undefined;
  let problem: string;
  if (!isObject(value.params)) {
    problem = `params must be an object, not ${typeName(value.params)}`;
  } else if ("_meta" in value.params && !isObject(value.params._meta)) {
    problem = `params._meta must be an object, not ${typeName(value.params._meta)}`;
  } else {
    return undefined;
  }
  // Only when params are all that is wrong: the rest must parse with them set right.
  try {
    parseJSONRPCMessage({ ...value, params: {} });
  } catch {
    return undefined;
  }
  return problem;
}

function typeName(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

/**
 * For a request that carries the 2026-07-28 envelope (a key only that
 * revision defines) but no protocol version: the -32602 message, since the
 * revision requires the version on every request; undefined otherwise.
 */
function missingRevision(message: JSONRPCMessage): string | undefined {
  if (!("method" in message)) return undefined;
  const params = (message as { params?: unknown }).params;
  if (!isObject(params) || !isObject(params._meta)) return undefined;
  const meta = params._meta;
  if (PROTOCOL_VERSION_META_KEY in meta) return undefined;
  if (!MODERN_ENVELOPE_KEYS.some((key) => key in meta)) return undefined;
  return `Invalid params: the ${MODERN_PROTOCOL_VERSION} envelope in _meta lacks the required ${PROTOCOL_VERSION_META_KEY}`;
}

/**
 * Every -32022 that leaves, ours or the SDK's (a 2025-era `initialize` on a
 * modern connection or with `MCP_SERVER__LEGACY_CLIENTS=reject`): the
 * claimed revision is a client's string, so it is echoed once, in
 * `data.requested`, escaped and cut to {@linkcode MAX_ECHOED_REVISION}
 * characters, and the message names only what this server speaks.
 */
function boundRevisionEcho(message: JSONRPCMessage): JSONRPCMessage {
  const error = (message as { error?: { code?: unknown; data?: unknown } }).error;
  if (!isObject(error) || error.code !== ProtocolErrorCode.UnsupportedProtocolVersion) {
    return message;
  }
  const data = isObject(error.data) ? error.data : {};
  const supported = Array.isArray(data.supported) ? data.supported.map(String) : [];
  const bounded: Record<string, unknown> = { ...data, supported };
  if (typeof data.requested === "string") {
    bounded.requested = escapeName(data.requested, MAX_ECHOED_REVISION);
  }
  return {
    ...message,
    error: {
      ...error,
      message: `Unsupported protocol version; this server speaks ${supported.join(", ")}`,
      data: bounded,
    },
  } as JSONRPCMessage;
}

/** The claimed revision of a request or notification when it is present and not served. */
function unsupportedRevision(message: JSONRPCMessage): string | undefined {
  if (!("method" in message)) return undefined;
  const params = (message as { params?: unknown }).params;
  if (!isObject(params) || !isObject(params._meta)) return undefined;
  if (!(PROTOCOL_VERSION_META_KEY in params._meta)) return undefined;
  const claimed = params._meta[PROTOCOL_VERSION_META_KEY];
  if (typeof claimed !== "string") return undefined; // malformed: the SDK answers -32602
  return claimed === MODERN_PROTOCOL_VERSION ? undefined : claimed;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function idOf(value: unknown): JsonId | undefined {
  if (!isObject(value) || !("id" in value)) return undefined;
  const id = value.id;
  return typeof id === "string" || typeof id === "number" || id === null ? id : null;
}

function joinPieces(pieces: Uint8Array[], size: number): Uint8Array {
  if (pieces.length === 1) return pieces[0];
  const out = new Uint8Array(size);
  let offset = 0;
  for (const piece of pieces) {
    out.set(piece, offset);
    offset += piece.length;
  }
  return out;
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
