/**
 * The JSON-RPC rules HTTP mode applies before the SDK sees a body, for what
 * the SDK leaves open or cannot tell us: a body that is not UTF-8 is -32700
 * (the SDK decodes it leniently, replacement characters and all, and would
 * serve it); a batch (an array) is refused
 * outright, in either era (the SDK refuses modern batches but serves 2025-era
 * ones, and one HTTP answer per message is what our limits and logs count);
 * and the message is classified (method, id, tool, arguments) for the call
 * cap, the request log and the metrics. Everything else — `Mcp-Method` and
 * `Mcp-Name` against the body (`=?base64?…?=` included), `MCP-Protocol-Version`
 * against `_meta` (-32020), notifications (202), unknown methods (404,
 * -32601), unparseable bodies (-32700) — is the SDK's, and tested as ours.
 *
 * @module
 */

/** What a single JSON-RPC message said of itself. */
export interface ClassifiedMessage {
  /** The `method`, when it is a string (cut to 100 characters). */
  readonly method?: string;
  /** The `id` of a request; undefined for a notification or an unreadable body. */
  readonly id?: string | number;
  /** `params.name` of a `tools/call` (cut to 100 characters). */
  readonly tool?: string;
  /** `params.arguments` of a `tools/call`. */
  readonly arguments?: unknown;
}

/** A body fit to hand to the SDK, or the answer that refuses it. */
export type MessageCheck =
  | {
    readonly ok: true;
    readonly message: ClassifiedMessage;
    /**
     * The body as parsed, when it is JSON: handed to the SDK (its `parsedBody`), so the body is
     * neither cloned, read nor parsed a second time. Absent for a body that is not JSON, which
     * the SDK reads itself and answers -32700.
     */
    readonly parsed?: { readonly value: unknown };
  }
  | {
    readonly ok: false;
    readonly code: string;
    readonly method?: string;
    readonly response: Response;
  };

const decoder = new TextDecoder("utf-8", { fatal: true });

/** A JSON-RPC error answer with HTTP `status`; `id` null unless known. */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: string | number | null = null,
): Response {
  return Response.json({ jsonrpc: "2.0", id, error: { code, message } }, { status, headers });
}

const cut = (text: string) => text.length > 100 ? text.slice(0, 100) : text;

/** Classifies `bytes`; refuses a batch. An unparseable body passes (the SDK answers -32700). */
export function checkMessage(_headers: Headers, bytes: Uint8Array): MessageCheck {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    // JSON text is UTF-8 (RFC 8259); the SDK would decode it leniently and go on.
    return {
      ok: false,
      code: "invalid_utf8",
      response: jsonRpcError(400, -32700, "Parse error: the body is not valid UTF-8."),
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: true, message: {} };
  }
  if (Array.isArray(value)) {
    return {
      ok: false,
      code: "batch",
      response: jsonRpcError(
        400,
        -32600,
        "Invalid Request: JSON-RPC batches are not supported; send one message per request.",
      ),
    };
  }
  const parsed = { value };
  if (value === null || typeof value !== "object") return { ok: true, message: {}, parsed };
  const message = value as Record<string, unknown>;
  const method = typeof message.method === "string" ? cut(message.method) : undefined;
  const id = typeof message.id === "string" || typeof message.id === "number"
    ? message.id
    : undefined;
  const params = message.params !== null && typeof message.params === "object"
    ? message.params as Record<string, unknown>
    : undefined;
  if (method !== "tools/call") return { ok: true, message: { method, id }, parsed };
  return {
    ok: true,
    parsed,
    message: {
      method,
      id,
      tool: typeof params?.name === "string" ? cut(params.name) : undefined,
      arguments: params?.arguments,
    },
  };
}
