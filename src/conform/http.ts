/**
 * The checker's HTTP side (Streamable HTTP, 2026-07-28): one POST per
 * message with the request metadata headers mirrored from the body, and
 * the answer read as JSON or as an SSE stream. `httpTarget` presents an
 * endpoint as a stream pair, so every transport-independent check runs
 * over HTTP unchanged; the HTTP-only checks use {@linkcode postMessage}.
 *
 * @module
 */

import { PROTOCOL_VERSION_META_KEY } from "../version.ts";
import type { StreamTarget } from "./target.ts";

/** An MCP endpoint and the headers every request carries (`--header`, `--token`). */
export interface HttpEndpoint {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** How long one HTTP exchange may take. */
  readonly timeoutMs?: number;
}

/** One HTTP answer. */
export interface HttpAnswer {
  /** 0 when the request failed before a status (connection refused, timeout). */
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  /** The JSON-RPC messages in the body (one JSON object, or the SSE events' data). */
  readonly messages: Record<string, unknown>[];
  /** Why there is no status. */
  readonly failure?: string;
  /** The `Mcp-Session-Id` a 2025-era server assigned, if any. */
  readonly sessionId?: string;
}

/** The metadata headers for `message`: MCP-Protocol-Version, Mcp-Method, Mcp-Name. */
export function metadataHeaders(message: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  const params = message.params as Record<string, unknown> | undefined;
  const meta = params?._meta as Record<string, unknown> | undefined;
  const version = meta?.[PROTOCOL_VERSION_META_KEY];
  if (typeof version === "string") headers["MCP-Protocol-Version"] = version;
  if (typeof message.method === "string") headers["Mcp-Method"] = message.method;
  const name = params?.name ?? params?.uri;
  if (
    typeof name === "string" &&
    ["tools/call", "resources/read", "prompts/get"].includes(String(message.method))
  ) {
    headers["Mcp-Name"] = /^[\x21-\x7e]*$/.test(name) && !name.startsWith("=?")
      ? name
      : `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode(name)))}?=`;
  }
  return headers;
}

/** Sends `body` to the endpoint with `method` (POST by default) and reads the whole answer. */
export async function postMessage(
  endpoint: HttpEndpoint,
  body: string | undefined,
  headers: Record<string, string>,
  method = "POST",
): Promise<HttpAnswer> {
  const signal = AbortSignal.timeout(endpoint.timeoutMs ?? 10_000);
  let response: Response;
  try {
    response = await fetch(endpoint.url, {
      method,
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        ...endpoint.headers,
        ...headers,
      },
      body,
      signal,
    });
  } catch (error) {
    return {
      status: 0,
      contentType: "",
      text: "",
      messages: [],
      failure: (error as Error).message,
    };
  }
  let text = "";
  try {
    text = await response.text();
  } catch (error) {
    return {
      status: response.status,
      contentType: response.headers.get("content-type") ?? "",
      text,
      messages: [],
      failure: (error as Error).message,
    };
  }
  const contentType = response.headers.get("content-type") ?? "";
  const sessionId = response.headers.get("mcp-session-id") ?? undefined;
  return {
    status: response.status,
    contentType,
    text,
    messages: parseBody(contentType, text),
    sessionId,
  };
}

function parseBody(contentType: string, text: string): Record<string, unknown>[] {
  const chunks = contentType.startsWith("text/event-stream")
    ? text.split(/\r?\n\r?\n/).map((event) =>
      event.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart())
        .join("\n")
    ).filter((data) => data !== "")
    : [text];
  return chunks.flatMap((chunk) => {
    try {
      const value = JSON.parse(chunk);
      return value && typeof value === "object" && !Array.isArray(value) ? [value] : [];
    } catch {
      return [];
    }
  });
}

const encoder = new TextEncoder();

/**
 * `endpoint` as a stream pair: each line written is POSTed (with the
 * metadata headers its body implies, and the session id a 2025-era server
 * assigned, so a legacy-only target can still be judged); each JSON-RPC
 * message in an answer becomes an output line; a 202 adds nothing.
 * Requests run concurrently.
 */
export function httpTarget(endpoint: HttpEndpoint): StreamTarget {
  let output!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  const ended = Promise.withResolvers<{ code: number | null }>();
  const emit = (line: string) => {
    if (open) output.enqueue(encoder.encode(line + "\n"));
  };
  // A 2025-era server assigns a session at initialize; a 2026-07-28 one assigns none (and ignores it).
  let sessionId: string | undefined;
  const post = async (line: string) => {
    let headers: Record<string, string> = {};
    try {
      const message = JSON.parse(line);
      if (message && typeof message === "object") headers = metadataHeaders(message);
    } catch { /* sent as it is: the server must answer -32700 */ }
    if (sessionId !== undefined) headers["Mcp-Session-Id"] = sessionId;
    const answer = await postMessage(endpoint, line, headers);
    if (answer.sessionId !== undefined) sessionId = answer.sessionId;
    for (const message of answer.messages) emit(JSON.stringify(message));
  };
  const decoder = new TextDecoder();
  let buffered = "";
  const close = () => {
    if (!open) return;
    open = false;
    output.close();
    ended.resolve({ code: null });
  };
  return {
    description: endpoint.url,
    input: new WritableStream<Uint8Array>({
      write: (chunk) => {
        buffered += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = buffered.indexOf("\n")) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          post(line).catch(() => {});
        }
      },
    }),
    output: new ReadableStream<Uint8Array>({ start: (c) => void (output = c) }),
    ended: ended.promise,
    stderr: () => "",
    kill: () => {
      close();
      return Promise.resolve();
    },
  };
}
