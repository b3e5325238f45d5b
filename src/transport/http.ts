/**
 * HTTP mode: the SDK's `createMcpHandler` (Streamable HTTP, 2026-07-28 and
 * the stateless legacy era as configured) on `Deno.serve`, behind our own
 * gates, in this order:
 *
 * 1. `Host` and `Origin` (DNS-rebinding defence, {@linkcode checkHostAndOrigin}), on every path;
 * 2. `GET /healthz` and `GET /readyz`, without authentication;
 * 3. the bearer token, when one is configured ({@linkcode BearerCheck});
 * 4. `GET /metrics` when enabled; only `POST` on `/mcp` (405 otherwise);
 * 5. the body, bounded in size and time ({@linkcode readBody});
 * 6. the JSON-RPC rules the SDK leaves to us ({@linkcode checkMessage}): batches refused,
 *    `Mcp-Method` / `Mcp-Name` matched against the body;
 * 7. the cap on concurrent tool calls ({@linkcode CallGate}) with its bounded wait queue:
 *    503 with `Retry-After` beyond both, or when a queued call's wait runs out;
 *
 * and only then the SDK. Every answer is logged as one record and counted.
 *
 * @module
 */

import { createMcpHandler, type McpServerFactory } from "@modelcontextprotocol/server";
import { REFUSAL_META_KEY } from "../contract/envelope.ts";
import { authRefusal, BearerCheck } from "./http_auth.ts";
import { DeadlineSweep, LATE, raceDeadline } from "./deadline.ts";
import { readBody } from "./http_body.ts";
import { CallGate } from "./http_gate.ts";
import { type HttpMetrics } from "./http_metrics.ts";
import { checkHostAndOrigin, type OriginPolicy, originRefusal } from "./http_origin.ts";
import { checkMessage, type ClassifiedMessage, jsonRpcError } from "./http_rules.ts";

/** What `/readyz` reports: each check by name, and whether all passed. */
export interface Readiness {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, boolean>>;
}

/** One record per answered request, for the request log. */
export interface RequestRecord {
  /** A fresh id per request (also sent back as `X-Request-Id`). */
  readonly requestId: string;
  readonly httpMethod: string;
  readonly path: string;
  readonly status: number;
  /** The JSON-RPC method, when the body held one. */
  readonly method?: string;
  /** The tool name of a `tools/call`. */
  readonly tool?: string;
  /** The argument object of a `tools/call`, as sent (the logger decides what of it to write). */
  readonly arguments?: unknown;
  /** `ok`, `error` (a JSON-RPC error or a tool refusal), or why our gates refused. */
  readonly outcome: string;
  /** A stable code: a gate's reason, or a JSON-RPC error code. */
  readonly errorCode?: string | number;
  readonly durationMs: number;
}

/** How {@linkcode serveHttp} serves. */
export interface HttpServeOptions {
  readonly hostname: string;
  /** 0: any free port. */
  readonly port: number;
  readonly factory: McpServerFactory;
  /** The SDK's legacy posture: `stateless` serves 2025-era clients, `reject` answers -32022. */
  readonly legacy: "stateless" | "reject";
  readonly policy: OriginPolicy;
  /** When set, `/mcp` and `/metrics` require `Authorization: Bearer <token>`. */
  readonly bearerToken?: string;
  readonly maxBodyBytes: number;
  readonly requestTimeoutMs: number;
  readonly maxConcurrentCalls: number;
  /**
   * Calls that may wait for a place once `maxConcurrentCalls` are in flight, in arrival order,
   * each for at most `requestTimeoutMs` (0: refuse at once). Default 0.
   */
  readonly maxQueuedCalls?: number;
  /** Served on `GET /metrics` when given. */
  readonly metrics?: HttpMetrics;
  /** The `/readyz` checks. */
  readonly readiness: () => Promise<Readiness>;
  /** Called once per answered request. */
  readonly onRequest?: (record: RequestRecord) => void;
  /** Out-of-band errors (reporting only). */
  readonly onError?: (error: Error) => void;
}

/** A listening HTTP server. */
export interface HttpServer {
  /** `http://HOST:PORT/mcp` with the port actually bound. */
  readonly url: string;
  readonly port: number;
  /**
   * Stops accepting, lets requests in flight finish for up to `deadlineMs`,
   * then aborts what is left and resolves.
   */
  shutdown(deadlineMs: number): Promise<void>;
  /** Resolves once the server has stopped. */
  readonly finished: Promise<void>;
}

/** The seconds a client refused at the call cap is asked to wait. */
export const RETRY_AFTER_SECONDS = 1;

/** The MCP endpoint's path. */
export const MCP_PATH = "/mcp";

/** `host` as it stands in a URL (IPv6 in brackets). */
export function urlHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** The gates and the SDK handler as one fetch function, without a listener (tests call it directly). */
export interface HttpHandler {
  /** Serves one request. */
  fetch(request: Request): Promise<Response>;
  /** From now on every request is answered 503 (shutting down). */
  stopAccepting(): void;
  /** Aborts every exchange still in flight (their calls are asked to stop). */
  abortInFlight(): void;
  /** Exchanges in flight now. */
  readonly inFlight: number;
  /** Closes the SDK handler. */
  close(): Promise<void>;
}

/** Builds the handler; `hostname` and `port` of `options` are not used. */
export function createHttpHandler(options: HttpServeOptions): HttpHandler {
  const handler = createMcpHandler(options.factory, {
    legacy: options.legacy,
    maxRequestBodySize: options.maxBodyBytes,
    onerror: options.onError,
  });
  const bearer = options.bearerToken === undefined
    ? undefined
    : new BearerCheck(options.bearerToken);
  const inFlight = new Set<AbortController>();
  const deadlines = DeadlineSweep.forTimeout(options.requestTimeoutMs);
  const gate = new CallGate(options.maxConcurrentCalls, options.maxQueuedCalls ?? 0, deadlines);

  const serveMcp = async (
    request: Request,
    note: (fields: Partial<RequestRecord> & { ended?: Promise<void> }) => void,
  ): Promise<Response> => {
    if (request.method !== "POST") {
      note({ outcome: "refused", errorCode: "method_not_allowed" });
      return jsonRpcError(405, -32000, "Method not allowed: this endpoint takes POST only.", {
        Allow: "POST",
      });
    }
    // The exchange's own signal: the client going away or the server's shutdown aborts it,
    // whether its call is queued or running.
    const abort = new AbortController();
    // The request the SDK gets, made now so that it takes the client's body stream and a copy of
    // its header list as they are (ADR-080): copying headers from `request.headers` later would
    // iterate them, which sorts and combines the list, ~30 µs a request. We read the body from it.
    const forward = new Request(request, { signal: abort.signal });
    const body = await readBody(forward, {
      maxBytes: options.maxBodyBytes,
      timeoutMs: options.requestTimeoutMs,
    }, deadlines);
    if (!body.ok) {
      note({ outcome: "refused", errorCode: body.code });
      const message = {
        413: `Payload too large: the body exceeds ${options.maxBodyBytes} bytes.`,
        408: "Request timeout: the body did not arrive in time.",
        400: "Bad request: the body could not be read.",
      }[body.status];
      return jsonRpcError(body.status, body.status === 400 ? -32700 : -32000, message, {
        Connection: "close",
      });
    }
    const checked = checkMessage(request.headers, body.bytes);
    if (!checked.ok) {
      note({ outcome: "refused", errorCode: checked.code, method: checked.method });
      return checked.response;
    }
    const message: ClassifiedMessage = checked.message;
    note({ method: message.method, tool: message.tool, arguments: message.arguments });
    const isCall = message.method === "tools/call" && message.id !== undefined;
    inFlight.add(abort);
    const onClientGone = () => abort.abort(request.signal.reason);
    request.signal.addEventListener("abort", onClientGone, { once: true });
    const release = (entered: boolean) => {
      request.signal.removeEventListener("abort", onClientGone);
      inFlight.delete(abort);
      if (entered) gate.leave();
    };
    if (isCall) {
      let admission = gate.enter(abort.signal, options.requestTimeoutMs);
      let refusal = "saturated";
      if (admission !== "entered" && admission !== "full") {
        const waited = await admission;
        if (waited === "gone") {
          // The client went away (or the server is stopping) while the call waited: it never runs.
          release(false);
          note({ outcome: "cancelled", errorCode: "client_gone" });
          return jsonRpcError(503, -32000, "Request abandoned before it ran.", {}, message.id);
        }
        admission = waited === "entered" ? "entered" : "full";
        refusal = "queue_timeout";
      }
      if (admission === "full") {
        release(false);
        note({ outcome: "refused", errorCode: refusal });
        options.metrics?.countSaturated();
        return jsonRpcError(
          503,
          -32000,
          "Server busy: too many tool calls in flight; retry shortly.",
          { "Retry-After": String(RETRY_AFTER_SECONDS) },
          message.id,
        );
      }
    }
    const done = () => release(isCall);
    let response: Response;
    try {
      // A body we parsed goes to the SDK parsed (ADR-080): it neither clones, reads nor parses
      // the (read) body again. One that is not JSON goes as its bytes, for the SDK's -32700.
      response = checked.parsed === undefined
        ? await handler.fetch(
          new Request(request.url, {
            method: "POST",
            headers: request.headers,
            body: body.bytes as Uint8Array<ArrayBuffer>,
            signal: abort.signal,
          }),
        )
        : await handler.fetch(forward, { parsedBody: checked.parsed.value });
    } catch (error) {
      done();
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
      note({ outcome: "error", errorCode: -32603 });
      return jsonRpcError(500, -32603, "Internal error", {}, message.id);
    }
    return await finishResponse(response, done, note, () => abort.abort());
  };

  const route = async (
    request: Request,
    note: (fields: Partial<RequestRecord> & { ended?: Promise<void> }) => void,
  ): Promise<Response> => {
    const check = checkHostAndOrigin(request.headers, options.policy);
    if (!check.ok) {
      note({ outcome: "refused", errorCode: check.code });
      return originRefusal(check);
    }
    const path = new URL(request.url).pathname;
    note({ path }); // parsed once: the record reuses it
    if (path === "/healthz" || path === "/readyz") {
      if (request.method !== "GET" && request.method !== "HEAD") {
        note({ outcome: "refused", errorCode: "method_not_allowed" });
        return jsonRpcError(405, -32000, "Method not allowed: use GET.", { Allow: "GET" });
      }
      if (path === "/healthz") {
        note({ outcome: "ok" });
        return Response.json({ status: "ok" });
      }
      const readiness = await options.readiness().catch(() => ({ ready: false, checks: {} }));
      note({ outcome: readiness.ready ? "ok" : "not_ready" });
      return Response.json(
        { status: readiness.ready ? "ready" : "not ready", checks: readiness.checks },
        { status: readiness.ready ? 200 : 503 },
      );
    }
    const isMetrics = path === "/metrics" && options.metrics !== undefined;
    if (path !== MCP_PATH && !isMetrics) {
      note({ outcome: "refused", errorCode: "not_found" });
      return jsonRpcError(404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}.`);
    }
    if (bearer !== undefined) {
      const auth = bearer.check(request.headers);
      if (!auth.ok) {
        note({ outcome: "refused", errorCode: auth.code });
        return authRefusal(auth);
      }
    }
    if (isMetrics) {
      note({ outcome: "ok" });
      return new Response(options.metrics!.render(), {
        headers: { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" },
      });
    }
    return await serveMcp(request, note);
  };

  let accepting = true;
  const emit = (record: RequestRecord) => {
    options.metrics?.countRequest(record);
    options.onRequest?.(record);
  };
  const fetch = async (request: Request): Promise<Response> => {
    const started = performance.now();
    const requestId = crypto.randomUUID();
    const fields: Partial<RequestRecord> & { ended?: Promise<void> } = {};
    const note = (more: Partial<RequestRecord> & { ended?: Promise<void> }) =>
      Object.assign(fields, more);
    let response: Response;
    if (!accepting) {
      note({ outcome: "refused", errorCode: "shutting_down" });
      response = jsonRpcError(503, -32000, "Server shutting down.", {
        Connection: "close",
        "Retry-After": String(RETRY_AFTER_SECONDS),
      });
    } else {
      try {
        response = await route(request, note);
      } catch (error) {
        options.onError?.(error instanceof Error ? error : new Error(String(error)));
        note({ outcome: "error", errorCode: -32603 });
        response = jsonRpcError(500, -32603, "Internal error");
      }
    }
    response.headers.set("X-Request-Id", requestId);
    const record = (): RequestRecord => {
      const { ended: _ended, ...rest } = fields;
      return {
        requestId,
        httpMethod: request.method,
        status: response.status,
        ...rest,
        path: safePath(fields.path ?? new URL(request.url).pathname),
        outcome: fields.outcome ?? (response.ok ? "ok" : "error"),
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      };
    };
    // A streamed answer is recorded when its stream ends.
    if (fields.ended !== undefined) fields.ended.then(() => emit(record()));
    else emit(record());
    return response;
  };
  return {
    fetch,
    stopAccepting: () => {
      accepting = false;
    },
    abortInFlight: () => {
      for (const abort of inFlight) abort.abort(new Error("server shutting down"));
    },
    get inFlight() {
      return inFlight.size;
    },
    close: () => handler.close(),
  };
}

/** Starts serving `options` on `Deno.serve`; the port is bound when this returns. */
export function serveHttp(options: HttpServeOptions): HttpServer {
  const handler = createHttpHandler(options);
  const server = Deno.serve(
    {
      hostname: options.hostname,
      port: options.port,
      onListen: () => {},
      onError: (error) => {
        options.onError?.(error instanceof Error ? error : new Error(String(error)));
        return jsonRpcError(500, -32603, "Internal error");
      },
    },
    (request) => handler.fetch(request),
  );
  const port = server.addr.port;
  return {
    url: `http://${urlHost(options.hostname)}:${port}${MCP_PATH}`,
    port,
    finished: server.finished,
    async shutdown(deadlineMs: number) {
      handler.stopAccepting();
      const stopped = server.shutdown();
      if (await raceDeadline(stopped, deadlineMs) === LATE) {
        handler.abortInFlight();
        await raceDeadline(stopped, 1000);
      }
      await handler.close().catch(() => {});
    },
  };
}

function isEventStream(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
}

/** A request's path (without its query), cut to 200 characters (it is a client's text). */
function safePath(path: string): string {
  return path.length > 200 ? path.slice(0, 200) + "…" : path;
}

/**
 * What the SDK answered, for the record: `ok`, `error` with the JSON-RPC
 * code, or `refused` with the tool refusal's code (from the result's `_meta`).
 */
export function inspectAnswer(text: string): { outcome: string; errorCode?: string | number } {
  // Outside JSON strings a quote is never escaped, inside one always: an answer holding
  // neither key as written here has no error member and no `isError: true` at any depth, and
  // is `ok` without being parsed (a large file's answer is parsed only when it needs to be).
  if (!text.includes('"error":') && !text.includes('"isError":true')) return { outcome: "ok" };
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { outcome: "ok" };
  }
  if (message === null || typeof message !== "object") return { outcome: "ok" };
  const m = message as { error?: { code?: unknown }; result?: Record<string, unknown> };
  if (m.error !== undefined) {
    const code = m.error?.code;
    return { outcome: "error", errorCode: typeof code === "number" ? code : undefined };
  }
  if (m.result?.isError === true) {
    const meta = m.result._meta as Record<string, { error?: unknown }> | undefined;
    const code = meta?.[REFUSAL_META_KEY]?.error;
    return { outcome: "refused", errorCode: typeof code === "string" ? code : undefined };
  }
  return { outcome: "ok" };
}

/**
 * Adds what every SDK answer needs from us (`X-Accel-Buffering: no` on SSE,
 * so a proxy streams it), records its outcome, and calls `release` when the
 * answer is over: once a JSON body is read, or when an SSE stream ends or
 * the client goes away — which also aborts the exchange, so the call's
 * stop flag is raised.
 */
async function finishResponse(
  response: Response,
  release: () => void,
  note: (fields: Partial<RequestRecord> & { ended?: Promise<void> }) => void,
  cancelled: () => void,
): Promise<Response> {
  if (!isEventStream(response) || response.body === null) {
    try {
      const text = await response.text();
      note(text === "" ? { outcome: response.ok ? "ok" : "error" } : inspectAnswer(text));
      // The new Response copies the SDK's headers: no copy of our own first.
      return new Response(text === "" ? null : text, {
        status: response.status,
        headers: response.headers,
      });
    } finally {
      release();
    }
  }
  const headers = new Headers(response.headers);
  headers.set("X-Accel-Buffering", "no");
  const ended = Promise.withResolvers<void>();
  note({ outcome: "ok", ended: ended.promise });
  let released = false;
  const once = () => {
    if (!released) {
      released = true;
      release();
      ended.resolve();
    }
  };
  const reader = response.body.getReader();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (next.done) {
        once();
        controller.close();
      } else controller.enqueue(next.value);
    },
    cancel(reason) {
      // The client closed the stream: its call is asked to stop (cooperative stop flag).
      cancelled();
      once();
      return reader.cancel(reason);
    },
  });
  return new Response(stream, { status: response.status, headers });
}
