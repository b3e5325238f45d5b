/**
 * HTTP mutations: each a wrapper in front of the correct fixture endpoint
 * that breaks one requirement of the Streamable HTTP transport, with the
 * checks it must turn red.
 *
 * @module
 */

import type { HttpMutation } from "./http_fixture.ts";

/** One broken HTTP requirement. */
export interface HttpMutationCase {
  readonly name: string;
  readonly breaks: readonly string[];
  readonly mutate: HttpMutation;
}

type Body = { method?: string; id?: unknown; params?: Record<string, unknown> };

async function bodyOf(request: Request): Promise<Body | undefined> {
  if (request.method !== "POST") return undefined;
  try {
    return JSON.parse(await request.clone().text());
  } catch {
    return undefined;
  }
}

function withHeaders(request: Request, change: (headers: Headers) => void): Request {
  const headers = new Headers(request.headers);
  change(headers);
  return new Request(request, { headers });
}

async function withStatus(response: Response, status: number): Promise<Response> {
  return new Response(await response.text(), { status, headers: response.headers });
}

function versionOf(body: Body | undefined): string | undefined {
  const meta = body?.params?._meta as Record<string, unknown> | undefined;
  const version = meta?.["io.modelcontextprotocol/protocolVersion"];
  return typeof version === "string" ? version : undefined;
}

/** Every HTTP mutation. */
export const HTTP_MUTATIONS: readonly HttpMutationCase[] = [
  {
    name: "answers as text/plain",
    breaks: ["C044"],
    mutate: async (request, next) => {
      const response = await next(request);
      const headers = new Headers(response.headers);
      headers.set("content-type", "text/plain");
      return new Response(await response.text(), { status: response.status, headers });
    },
  },
  {
    name: "a notification answered 200",
    breaks: ["C045"],
    mutate: async (request, next) => {
      const response = await next(request);
      return response.status === 202 ? new Response("", { status: 200 }) : response;
    },
  },
  {
    name: "an unknown method answered 200",
    breaks: ["C046"],
    mutate: async (request, next) => {
      const response = await next(request);
      return response.status === 404 ? await withStatus(response, 200) : response;
    },
  },
  {
    name: "MCP-Protocol-Version ignored when it disagrees with _meta",
    breaks: ["C047"],
    mutate: async (request, next) => {
      const version = versionOf(await bodyOf(request));
      const header = request.headers.get("mcp-protocol-version");
      return next(
        version && header && header !== version
          ? withHeaders(request, (h) => h.set("mcp-protocol-version", version))
          : request,
      );
    },
  },
  {
    name: "an unsupported version answered 200",
    breaks: ["C048"],
    mutate: async (request, next) => {
      const response = await next(request);
      const text = await response.clone().text();
      return response.status === 400 && text.includes("-32022")
        ? await withStatus(response, 200)
        : response;
    },
  },
  {
    name: "no Origin check",
    breaks: ["C049"],
    mutate: (request, next) => next(withHeaders(request, (h) => h.delete("origin"))),
  },
  {
    name: "a missing Mcp-Method filled in from the body",
    breaks: ["C050"],
    mutate: async (request, next) => {
      const body = await bodyOf(request);
      return next(
        body?.method && !request.headers.has("mcp-method")
          ? withHeaders(request, (h) => h.set("mcp-method", body.method!))
          : request,
      );
    },
  },
  {
    name: "Mcp-Method taken from the body when they disagree",
    breaks: ["C051"],
    mutate: async (request, next) => {
      const body = await bodyOf(request);
      const header = request.headers.get("mcp-method");
      return next(
        body?.method && header && header !== body.method
          ? withHeaders(request, (h) => h.set("mcp-method", body.method!))
          : request,
      );
    },
  },
  {
    name: "Mcp-Name taken from the body when they disagree",
    breaks: ["C052"],
    mutate: async (request, next) => {
      const name = (await bodyOf(request))?.params?.name;
      return next(
        typeof name === "string" && request.headers.has("mcp-name")
          ? withHeaders(request, (h) => h.set("mcp-name", name))
          : request,
      );
    },
  },
  {
    name: "GET answered 200",
    breaks: ["C053"],
    mutate: (request, next) =>
      request.method === "GET"
        ? Promise.resolve(
          new Response("", { status: 200, headers: { "content-type": "text/event-stream" } }),
        )
        : next(request),
  },
  {
    name: "a missing clientCapabilities answered 200",
    breaks: ["C054"],
    mutate: async (request, next) => {
      const response = await next(request);
      const text = await response.clone().text();
      return response.status === 400 && text.includes("-32602")
        ? await withStatus(response, 200)
        : response;
    },
  },
];
