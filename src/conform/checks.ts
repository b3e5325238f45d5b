/**
 * One check per requirement in `requirements.ts`, keyed by its id. A check
 * observes the target through the shared {@linkcode CheckContext} and says
 * `ok`, `fail` or `n/a`, always with a detail that says what it saw.
 *
 * @module
 */

import { MODERN_PROTOCOL_VERSION, PROTOCOL_VERSION_META_KEY } from "../version.ts";
import { sameId } from "./connection.ts";
import {
  asObject,
  type CheckContext,
  CLIENT_CAPABILITIES_META_KEY,
  clip,
  describeReply,
  errorCode,
  isResponseTo,
  type ListedTool,
  modernMeta,
  resultOf,
  SERVER_INFO_META_KEY,
  type ToolCall,
} from "./context.ts";
import { type HttpAnswer, metadataHeaders, postMessage } from "./http.ts";
import { compileSchema } from "./schema.ts";

/** What a check concluded. */
export type Status = "ok" | "fail" | "n/a";

/** A check's verdict and what it saw. */
export interface Outcome {
  readonly status: Status;
  readonly detail: string;
}

/** A check: observes the target and concludes. */
export type Check = (ctx: CheckContext) => Promise<Outcome>;

const ok = (detail: string): Outcome => ({ status: "ok", detail });
const fail = (detail: string): Outcome => ({ status: "fail", detail });
const na = (detail: string): Outcome => ({ status: "n/a", detail });

const LEGACY_ONLY = "the target does not speak 2026-07-28 (server/discover gave no result)";

/** Runs `check` only when the target speaks 2026-07-28. */
function modernOnly(check: Check): Check {
  return async (ctx) => (await ctx.era()) === "modern" ? await check(ctx) : na(LEGACY_ONLY);
}

/** Expects an error with `code` in reply to `method` with `params`. */
async function expectError(
  ctx: CheckContext,
  method: string,
  params: unknown,
  code: number,
  what: string,
): Promise<Outcome> {
  const reply = await ctx.conn.request(method, params, { modern: true });
  if (errorCode(reply) === code) return ok(`${what}: answered ${code}`);
  return fail(`${what}: expected error ${code}, got ${describeReply(reply)}`);
}

function isServerInfo(value: unknown): boolean {
  const info = asObject(value);
  return typeof info?.name === "string" && typeof info?.version === "string";
}

function cacheHintProblem(result: Record<string, unknown>): string | undefined {
  const problems: string[] = [];
  const ttl = result.ttlMs;
  if (!(typeof ttl === "number" && Number.isInteger(ttl) && ttl >= 0)) {
    problems.push(`ttlMs is ${JSON.stringify(ttl)}`);
  }
  if (result.cacheScope !== "public" && result.cacheScope !== "private") {
    problems.push(`cacheScope is ${JSON.stringify(result.cacheScope)}`);
  }
  return problems.length ? problems.join(", ") : undefined;
}

async function unsupportedVersion(ctx: CheckContext, what: string): Promise<Outcome> {
  const requested = "1900-01-01";
  const reply = await ctx.conn.request("server/discover", {
    _meta: modernMeta({ [PROTOCOL_VERSION_META_KEY]: requested }),
  }, { modern: true });
  if (reply.kind !== "response" || reply.message.error?.code !== -32022) {
    return fail(`${what}: expected -32022, got ${describeReply(reply)}`);
  }
  const data = asObject(reply.message.error.data);
  const supported = data?.supported;
  if (
    !Array.isArray(supported) || supported.length === 0 ||
    !supported.every((v) => typeof v === "string")
  ) {
    return fail(`${what}: -32022 without data.supported (data: ${clip(JSON.stringify(data))})`);
  }
  if (data?.requested !== requested) {
    return fail(
      `${what}: data.requested is ${JSON.stringify(data?.requested)}, not "${requested}"`,
    );
  }
  return ok(`${what}: -32022, supported ${JSON.stringify(supported)}`);
}

function toolSummary(tool: ListedTool): string {
  return typeof tool.name === "string" ? `"${clip(tool.name, 60)}"` : JSON.stringify(tool.name);
}

/** Canonical JSON (sorted keys) for comparing definitions. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const object = asObject(value);
  if (object) {
    return `{${
      Object.keys(object).sort().map((k) => `${JSON.stringify(k)}:${canonical(object[k])}`).join(
        ",",
      )
    }}`;
  }
  return JSON.stringify(value);
}

function callResults(calls: readonly ToolCall[]) {
  return calls.flatMap((call) => {
    const result = resultOf(call.reply);
    return result ? [{ call, result }] : [];
  });
}

/** Runs `check` only over HTTP. */
function httpOnly(
  check: (ctx: CheckContext, endpoint: NonNullable<CheckContext["http"]>) => Promise<Outcome>,
): Check {
  return async (ctx) => ctx.http ? await check(ctx, ctx.http) : na("HTTP only");
}

function describeAnswer(answer: HttpAnswer): string {
  if (answer.status === 0) return `no HTTP answer (${answer.failure})`;
  return `HTTP ${answer.status}${
    answer.contentType ? " " + answer.contentType.split(";")[0] : ""
  } ${clip(answer.text, 120)}`;
}

/** POSTs `message` with its metadata headers changed by `headers` (a null value drops one). */
function postWith(
  endpoint: NonNullable<CheckContext["http"]>,
  message: Record<string, unknown>,
  headers: Record<string, string | null> = {},
): Promise<HttpAnswer> {
  const all: Record<string, string> = {};
  const base = metadataHeaders(message);
  const lower = new Set(Object.keys(headers).map((k) => k.toLowerCase()));
  for (const [k, v] of Object.entries(base)) if (!lower.has(k.toLowerCase())) all[k] = v;
  for (const [k, v] of Object.entries(headers)) if (v !== null) all[k] = v;
  return postMessage(endpoint, JSON.stringify(message), all);
}

function discoverMessage(meta = modernMeta()): Record<string, unknown> {
  return { jsonrpc: "2.0", id: "conform-http", method: "server/discover", params: { _meta: meta } };
}

/** Expects `status` and, when given, a JSON-RPC error `code` in the body. */
function expectHttp(
  answer: HttpAnswer,
  status: number,
  code: number | undefined,
  what: string,
): Outcome {
  const errorCodes = answer.messages.map((m) => asObject(m.error)?.code);
  if (answer.status !== status) {
    return fail(`${what}: expected HTTP ${status}, got ${describeAnswer(answer)}`);
  }
  if (code !== undefined && !errorCodes.includes(code)) {
    return fail(`${what}: HTTP ${status} but no JSON-RPC error ${code}: ${describeAnswer(answer)}`);
  }
  return ok(`${what}: HTTP ${status}${code !== undefined ? ` with ${code}` : ""}`);
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const DEFINED_RESERVED = new Set([-32020, -32021, -32022]);
const WITHDRAWN = new Set([-32002, -32042]);

/** Every check, by requirement id. */
export const CHECKS: Readonly<Record<string, Check>> = {
  C001: async (ctx) => {
    const reply = await ctx.discover();
    if (resultOf(reply)) return ok("server/discover answered a result");
    await ctx.era(); // a legacy target: open its session for the checks that still apply
    return fail(
      `server/discover: ${describeReply(reply)}; ${
        resultOf(await ctx.initialize())
          ? "initialize is answered: the target is legacy-only (2025 era)"
          : "initialize is not answered with a result either"
      }`,
    );
  },
  C002: modernOnly(async (ctx) => {
    const versions = resultOf(await ctx.discover())!.supportedVersions;
    if (!Array.isArray(versions) || versions.length === 0) {
      return fail(`supportedVersions is ${clip(JSON.stringify(versions))}`);
    }
    if (!versions.every((v) => typeof v === "string")) {
      return fail(`supportedVersions has a non-string: ${clip(JSON.stringify(versions))}`);
    }
    if (!versions.includes(MODERN_PROTOCOL_VERSION)) {
      return fail(`supportedVersions ${JSON.stringify(versions)} lacks ${MODERN_PROTOCOL_VERSION}`);
    }
    return ok(`supportedVersions ${JSON.stringify(versions)}`);
  }),
  C003: modernOnly(async (ctx) => {
    const caps = resultOf(await ctx.discover())!.capabilities;
    return asObject(caps)
      ? ok(`capabilities ${clip(JSON.stringify(caps))}`)
      : fail(`capabilities is ${clip(JSON.stringify(caps))}`);
  }),
  C004: modernOnly(async (ctx) => {
    const meta = asObject(resultOf(await ctx.discover())!._meta);
    const info = meta?.[SERVER_INFO_META_KEY];
    return isServerInfo(info)
      ? ok(`serverInfo ${clip(JSON.stringify(info))}`)
      : fail(`_meta["${SERVER_INFO_META_KEY}"] is ${clip(JSON.stringify(info))}`);
  }),
  C005: modernOnly(async (ctx) => {
    const result = resultOf(await ctx.discover())!;
    const problem = cacheHintProblem(result);
    return problem
      ? fail(`server/discover: ${problem}`)
      : ok(`ttlMs ${result.ttlMs}, cacheScope ${result.cacheScope}`);
  }),
  C006: modernOnly(async (ctx) => {
    const instructions = resultOf(await ctx.discover())!.instructions;
    if (instructions === undefined) return ok("no instructions");
    return typeof instructions === "string"
      ? ok(`instructions: ${instructions.length} characters`)
      : fail(`instructions is ${clip(JSON.stringify(instructions))}`);
  }),
  C007: modernOnly((ctx) =>
    expectError(
      ctx,
      "server/discover",
      {
        _meta: { [PROTOCOL_VERSION_META_KEY]: MODERN_PROTOCOL_VERSION },
      },
      -32602,
      "_meta without clientCapabilities",
    )
  ),
  C008: modernOnly((ctx) =>
    expectError(
      ctx,
      "server/discover",
      {
        _meta: modernMeta({ [CLIENT_CAPABILITIES_META_KEY]: "all" }),
      },
      -32602,
      'clientCapabilities "all"',
    )
  ),
  C009: modernOnly((ctx) =>
    expectError(
      ctx,
      "server/discover",
      {
        _meta: modernMeta({ [PROTOCOL_VERSION_META_KEY]: 20260728 }),
      },
      -32602,
      "protocolVersion 20260728 (a number)",
    )
  ),
  C010: modernOnly((ctx) => unsupportedVersion(ctx, "server/discover claiming 1900-01-01")),
  C011: modernOnly(async (ctx) => {
    for (let i = 0; i < 2; i++) {
      const reply = await ctx.conn.request("server/discover", { _meta: modernMeta() }, {
        modern: true,
      });
      if (!resultOf(reply)) {
        return fail(`a supported request failed first: ${describeReply(reply)}`);
      }
    }
    return await unsupportedVersion(ctx, "after two good requests, a request claiming 1900-01-01");
  }),
  C012: modernOnly(async (ctx) => {
    const reply = await ctx.conn.request("server/discover", {
      _meta: modernMeta({
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        tracestate: "conform=1",
      }),
    }, { modern: true });
    return resultOf(reply)
      ? ok("answered with a result")
      : fail(`with traceparent and tracestate: ${describeReply(reply)}`);
  }),
  C013: async (ctx) => {
    await ctx.era();
    const reply = await ctx.conn.rawExchange(
      '{"jsonrpc":"2.0","id":"conform-parse","method":\n',
      (m) => m.id === null || m.id === "conform-parse",
    );
    if (reply.kind !== "response") return fail(`a line of invalid JSON: ${describeReply(reply)}`);
    if (reply.message.id !== null) {
      return fail(`answered with id ${JSON.stringify(reply.message.id)}, not null`);
    }
    if (reply.message.error?.code !== -32700) return fail(`got ${describeReply(reply)}`);
    const next = await ctx.request("tools/list");
    if (next.kind !== "response") return fail(`the next request: ${describeReply(next)}`);
    return ok("-32700 with id null; the next request was answered");
  },
  C014: async (ctx) => {
    const reply = await ctx.conn.request("tools/list", await ctx.params(), {
      jsonrpc: "1.0",
      modern: (await ctx.era()) === "modern",
    });
    return errorCode(reply) === -32600
      ? ok("-32600")
      : fail(`"jsonrpc": "1.0": expected -32600, got ${describeReply(reply)}`);
  },
  C015: async (ctx) => {
    const reply = await ctx.request("conform/no_such_method");
    return errorCode(reply) === -32601
      ? ok("-32601")
      : fail(`conform/no_such_method: expected -32601, got ${describeReply(reply)}`);
  },
  C016: async (ctx) => {
    const modern = (await ctx.era()) === "modern";
    const from = ctx.conn.lines.length;
    const meta = modern ? { _meta: modernMeta() } : {};
    await ctx.conn.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "conform-never-sent", reason: "conform", ...meta },
    });
    await ctx.conn.send({ jsonrpc: "2.0", method: "conform/no_such_notification", params: meta });
    const id = "conform-after-notifications";
    const reply = await ctx.conn.request("tools/list", await ctx.params(), { id, modern });
    if (reply.kind !== "response") return fail(`the request after: ${describeReply(reply)}`);
    const seen = await ctx.conn.quietPeriod(from, 300);
    const extra = seen.filter((l) => !(l.message && sameId(l.message.id, id)));
    return extra.length === 0
      ? ok("no response to either notification")
      : fail(`answered a notification: ${clip(extra[0].raw)}`);
  },
  C017: async (ctx) => {
    const id = "conform-id-\u00e9-42";
    const reply = await ctx.conn.request("tools/list", await ctx.params(), {
      id,
      modern: (await ctx.era()) === "modern",
    });
    return reply.kind === "response"
      ? ok("echoed")
      : fail(`string id ${JSON.stringify(id)}: ${describeReply(reply)}`);
  },
  C018: async (ctx) => {
    for (const id of [0, 9007199254740991]) {
      const reply = await ctx.conn.request("tools/list", await ctx.params(), {
        id,
        modern: (await ctx.era()) === "modern",
      });
      if (reply.kind !== "response") return fail(`integer id ${id}: ${describeReply(reply)}`);
    }
    return ok("0 and 9007199254740991 echoed");
  },
  C019: modernOnly(async (ctx) => {
    const from = ctx.conn.lines.length;
    const ids = ["conform-i1", "conform-i2", "conform-i3"];
    await ctx.conn.send({
      jsonrpc: "2.0",
      id: ids[0],
      method: "server/discover",
      params: { _meta: modernMeta() },
    });
    await ctx.conn.send({
      jsonrpc: "2.0",
      id: ids[1],
      method: "conform/no_such_method",
      params: { _meta: modernMeta() },
    });
    await ctx.conn.send({
      jsonrpc: "2.0",
      id: ids[2],
      method: "server/discover",
      params: { _meta: modernMeta({ [PROTOCOL_VERSION_META_KEY]: "1900-01-01" }) },
    });
    const replies = [];
    for (const id of ids) replies.push(await ctx.conn.waitFor(from, isResponseTo(id)));
    const [a, b, c] = replies;
    const problems: string[] = [];
    if (!resultOf(a)) problems.push(`discover: ${describeReply(a)}`);
    if (errorCode(b) !== -32601) problems.push(`unknown method: ${describeReply(b)}`);
    if (errorCode(c) !== -32022) problems.push(`unsupported version: ${describeReply(c)}`);
    return problems.length
      ? fail(problems.join("; "))
      : ok("each answered on its own (result, -32601, -32022)");
  }),
  C020: async (ctx) => {
    const caps = await ctx.capabilities() ?? {};
    const probes = [["prompts", "prompts/list"], ["resources", "resources/list"]]
      .filter(([capability]) => caps[capability] === undefined);
    if (probes.length === 0) return na("prompts and resources are both advertised");
    const problems: string[] = [];
    for (const [, method] of probes) {
      const reply = await ctx.request(method);
      if (errorCode(reply) !== -32601) problems.push(`${method}: ${describeReply(reply)}`);
    }
    return problems.length
      ? fail(`expected -32601: ${problems.join("; ")}`)
      : ok(`${probes.map(([, m]) => m).join(", ")}: -32601`);
  },
  C021: async (ctx) => {
    const listing = await ctx.toolList();
    if (!listing.applicable) return na("the target does not advertise tools");
    if (listing.pages.length === 0) return fail(listing.problems.join("; "));
    const problems: string[] = [];
    for (const page of listing.pages) {
      if (!Array.isArray(page.result.tools)) {
        problems.push(`tools is ${clip(JSON.stringify(page.result.tools))}`);
      }
    }
    for (const tool of listing.tools) {
      if (typeof tool.name !== "string") {
        problems.push(`a tool's name is ${JSON.stringify(tool.name)}`);
      }
      if (!asObject(tool.inputSchema)) {
        problems.push(`${toolSummary(tool)} has no object inputSchema`);
      }
    }
    return problems.length
      ? fail(problems.slice(0, 3).join("; "))
      : ok(`${listing.tools.length} tools in ${listing.pages.length} page(s)`);
  },
  C022: async (ctx) => {
    const listing = await ctx.toolList();
    if (!listing.applicable) return na("the target does not advertise tools");
    const names = listing.tools.map((t) => t.name);
    const bad = names.filter((n) => typeof n !== "string" || !TOOL_NAME.test(n));
    const duplicates = names.filter((n, i) => names.indexOf(n) !== i);
    if (bad.length) {
      return fail(`names outside [A-Za-z0-9_.-]{1,128}: ${clip(JSON.stringify(bad))}`);
    }
    if (duplicates.length) return fail(`names listed twice: ${clip(JSON.stringify(duplicates))}`);
    return ok(`${names.length} names`);
  },
  C023: async (ctx) => {
    const listing = await ctx.toolList();
    if (!listing.applicable) return na("the target does not advertise tools");
    const problems: string[] = [];
    const notes: string[] = [];
    for (const tool of listing.tools) {
      const schema = asObject(tool.inputSchema);
      if (!schema) {
        problems.push(`${toolSummary(tool)}: inputSchema is not an object`);
        continue;
      }
      if (schema.type !== "object") {
        problems.push(`${toolSummary(tool)}: type is ${JSON.stringify(schema.type)}`);
      }
      const compiled = compileSchema(schema);
      if (compiled.ok === false) problems.push(`${toolSummary(tool)}: ${clip(compiled.error)}`);
      if (compiled.ok === "unsupported") {
        notes.push(`${toolSummary(tool)}: dialect ${compiled.dialect} not checked`);
      }
    }
    if (problems.length) return fail(problems.slice(0, 3).join("; "));
    return ok(
      `${listing.tools.length} input schemas compile` +
        (notes.length ? `; ${notes.join("; ")}` : ""),
    );
  },
  C024: async (ctx) => {
    const listing = await ctx.toolList();
    if (!listing.applicable) return na("the target does not advertise tools");
    const withOutput = listing.tools.filter((t) => t.outputSchema !== undefined);
    if (withOutput.length === 0) return na("no tool has an outputSchema");
    const problems: string[] = [];
    for (const tool of withOutput) {
      const compiled = compileSchema(tool.outputSchema);
      if (compiled.ok === false) problems.push(`${toolSummary(tool)}: ${clip(compiled.error)}`);
      if (!asObject(tool.outputSchema)) problems.push(`${toolSummary(tool)}: not an object`);
    }
    return problems.length
      ? fail(problems.slice(0, 3).join("; "))
      : ok(`${withOutput.length} output schemas compile`);
  },
  C025: modernOnly(async (ctx) => {
    const listing = await ctx.toolList();
    if (!listing.applicable) return na("the target does not advertise tools");
    if (listing.pages.length === 0) {
      return na(`no tools/list result: ${listing.problems.join("; ")}`);
    }
    for (const [i, page] of listing.pages.entries()) {
      const problem = cacheHintProblem(page.result);
      if (problem) return fail(`tools/list page ${i + 1}: ${problem}`);
    }
    const first = listing.pages[0].result;
    return ok(`ttlMs ${first.ttlMs}, cacheScope ${first.cacheScope}`);
  }),
  C026: async (ctx) => {
    const listing = await ctx.toolList();
    if (!listing.applicable) return na("the target does not advertise tools");
    const pagination = listing.problems.filter((p) => !p.startsWith("tools/list"));
    if (pagination.length) return fail(pagination.join("; "));
    const names = listing.tools.map((t) => t.name);
    const repeated = names.filter((n, i) => names.indexOf(n) !== i);
    if (repeated.length) {
      return fail(`listed again on a later page: ${clip(JSON.stringify(repeated))}`);
    }
    if (listing.pages.length === 0) return na(listing.problems.join("; "));
    return ok(`${listing.pages.length} page(s), no repeats`);
  },
  C027: async (ctx) => {
    if (!(await ctx.toolList()).applicable) return na("the target does not advertise tools");
    const reply = await ctx.request("tools/list", { cursor: "conform-bogus-cursor" });
    return errorCode(reply) === -32602
      ? ok("-32602")
      : fail(`tools/list with a cursor never issued: expected -32602, got ${describeReply(reply)}`);
  },
  C028: async (ctx) => {
    if (!(await ctx.toolList()).applicable) return na("the target does not advertise tools");
    const reply = await ctx.request("tools/call", {
      name: "conform_no_such_tool_7f3a",
      arguments: {},
    });
    return errorCode(reply) === -32602
      ? ok("-32602")
      : fail(`an unknown tool: expected -32602, got ${describeReply(reply)}`);
  },
  C029: async (ctx) => {
    if (!(await ctx.toolList()).applicable) return na("the target does not advertise tools");
    const probes = (await ctx.toolCalls()).filter((c) => c.purpose === "violation");
    if (probes.length === 0) {
      return na("no read-only tool whose input schema a violation can be derived from");
    }
    const answers: string[] = [];
    for (const probe of probes) {
      const what = `${probe.tool} ${clip(JSON.stringify(probe.args), 60)}`;
      const result = resultOf(probe.reply);
      if (errorCode(probe.reply) === -32602) answers.push(`${probe.tool}: -32602`);
      else if (result?.isError === true) answers.push(`${probe.tool}: isError result`);
      else return fail(`${what}: expected -32602 or isError, got ${describeReply(probe.reply)}`);
    }
    return ok(answers.join(", "));
  },
  C030: async (ctx) => {
    const calls = await ctx.toolCalls();
    const results = callResults(calls);
    if (results.length === 0) return na("no tools/call result in this run (no read-only tool)");
    for (const { call, result } of results) {
      const content = result.content;
      if (!Array.isArray(content)) {
        return fail(`${call.tool}: content is ${clip(JSON.stringify(content))}`);
      }
      const bad = content.find((c) => typeof asObject(c)?.type !== "string");
      if (bad !== undefined) {
        return fail(`${call.tool}: a content item is ${clip(JSON.stringify(bad))}`);
      }
      if (result.isError !== undefined && typeof result.isError !== "boolean") {
        return fail(`${call.tool}: isError is ${JSON.stringify(result.isError)}`);
      }
    }
    return ok(`${results.length} results`);
  },
  C031: async (ctx) => {
    const results = callResults(await ctx.toolCalls());
    let checked = 0;
    for (const { call, result } of results) {
      if (result.structuredContent === undefined) continue;
      const tool = await ctx.tool(call.tool);
      if (tool?.outputSchema === undefined) continue;
      const compiled = compileSchema(tool.outputSchema);
      if (compiled.ok !== true) continue;
      checked++;
      const problem = compiled.validate(result.structuredContent);
      if (problem) {
        return fail(
          `${call.tool} ${result.isError === true ? "(isError result)" : ""} ${
            clip(JSON.stringify(call.args), 60)
          }: structuredContent does not match the outputSchema: ${clip(problem)}`,
        );
      }
    }
    return checked === 0
      ? na("no result with structuredContent from a tool with an outputSchema")
      : ok(`${checked} results match their output schemas`);
  },
  C032: async (ctx) => {
    const first = await ctx.toolList();
    if (!first.applicable) return na("the target does not advertise tools");
    const second = await ctx.toolListAgain();
    const byName = (tools: readonly ListedTool[]) =>
      new Map(tools.map((t) => [String(t.name), canonical(t)]));
    const a = byName(first.tools);
    const b = byName(second.tools);
    const missing = [...a.keys()].filter((n) => !b.has(n));
    const added = [...b.keys()].filter((n) => !a.has(n));
    const changed = [...a.keys()].filter((n) => b.has(n) && a.get(n) !== b.get(n));
    if (missing.length || added.length || changed.length) {
      return fail(
        `second tools/list: missing ${JSON.stringify(missing)}, added ${
          JSON.stringify(added)
        }, changed ${JSON.stringify(changed)}`,
      );
    }
    return ok(`${a.size} tools, identical`);
  },
  C033: async (ctx) => {
    const first = await ctx.toolList();
    if (!first.applicable) return na("the target does not advertise tools");
    const second = await ctx.toolListAgain();
    const a = first.tools.map((t) => t.name);
    const b = second.tools.map((t) => t.name);
    return JSON.stringify(a) === JSON.stringify(b)
      ? ok("same order")
      : fail(`order changed: ${clip(JSON.stringify(a), 80)} then ${clip(JSON.stringify(b), 80)}`);
  },
  C034: modernOnly(async (ctx) => {
    await ctx.toolListAgain();
    const results = ctx.conn.exchanges.filter((e) => e.modern).flatMap((e) => {
      const result = resultOf(e.reply);
      return result ? [{ method: e.method, result }] : [];
    });
    const bad = results.find((r) =>
      r.result.resultType !== "complete" && r.result.resultType !== "input_required"
    );
    return bad
      ? fail(`${bad.method}: resultType is ${JSON.stringify(bad.result.resultType)}`)
      : ok(`${results.length} results`);
  }),
  C035: modernOnly(async (ctx) => {
    const errors = callResults(await ctx.toolCalls()).filter((r) => r.result.isError === true);
    if (errors.length === 0) return na("no isError result in this run");
    const bad = errors.find((r) => r.result.resultType === undefined);
    return bad
      ? fail(`${bad.call.tool} isError result has no resultType`)
      : ok(`${errors.length} isError results`);
  }),
  C036: modernOnly(async (ctx) => {
    await ctx.toolListAgain();
    const results = ctx.conn.exchanges.filter((e) => e.modern).flatMap((e) => {
      const result = resultOf(e.reply);
      return result ? [{ method: e.method, result }] : [];
    });
    const bad = results.find((r) =>
      !isServerInfo(asObject(r.result._meta)?.[SERVER_INFO_META_KEY])
    );
    return bad
      ? fail(`${bad.method}: no _meta["${SERVER_INFO_META_KEY}"] with name and version`)
      : ok(`${results.length} results`);
  }),
  C037: async (ctx) => {
    await ctx.toolListAgain();
    const codes = ctx.conn.lines.flatMap((l) =>
      typeof l.message?.error?.code === "number" ? [l.message.error.code as number] : []
    );
    const bad = codes.find((c) =>
      WITHDRAWN.has(c) || (c <= -32020 && c >= -32099 && !DEFINED_RESERVED.has(c))
    );
    return bad === undefined
      ? ok(`${codes.length} errors, codes ${JSON.stringify([...new Set(codes)])}`)
      : fail(
        `error code ${bad} ${WITHDRAWN.has(bad) ? "is withdrawn" : "is reserved and undefined"}`,
      );
  },
  C038: async (ctx) => {
    await ctx.toolListAgain();
    const missing = ctx.conn.lines.filter((l) => l.message?.error?.code === -32021);
    if (missing.length === 0) return na("no -32021 in this run");
    const bad = missing.find((l) =>
      !Array.isArray(asObject(l.message!.error!.data)?.requiredCapabilities)
    );
    return bad ? fail(`-32021 without data.requiredCapabilities: ${clip(bad.raw)}`) : ok("ok");
  },
  C039: (ctx) => {
    if (ctx.transport !== "stdio") return Promise.resolve(na("stdio only"));
    const bad = ctx.conn.lines.find((l) => {
      const m = l.message;
      if (!m || m.jsonrpc !== "2.0") return true;
      const response = "id" in m && m.method === undefined && (("result" in m) !== ("error" in m));
      const notification = typeof m.method === "string" && !("id" in m);
      const request = typeof m.method === "string" && "id" in m;
      return !(response || notification || request);
    });
    return Promise.resolve(
      bad
        ? fail(`stdout line ${bad.index + 1} is not a JSON-RPC message: ${clip(bad.raw)}`)
        : ok(`${ctx.conn.lines.length} lines, all JSON-RPC`),
    );
  },
  C040: async (ctx) => {
    if (ctx.transport !== "stdio") return na("stdio only");
    // A 2025-era session may carry server requests (sampling, roots): only the 2026-07-28 part counts.
    if ((await ctx.era()) === "legacy") return na("2025-era servers may send requests");
    const modernLines = ctx.conn.lines.slice(0, ctx.initializeSentAt ?? ctx.conn.lines.length);
    const bad = modernLines.find((l) => typeof l.message?.method === "string" && "id" in l.message);
    return bad ? fail(`the server sent a request: ${clip(bad.raw)}`) : ok("no requests");
  },
  C041: async (ctx) => {
    const reply = await ctx.initialize();
    if (reply.kind !== "response") return fail(`initialize: ${describeReply(reply)}`);
    if (reply.message.error) {
      return ok(`refused with error ${JSON.stringify(reply.message.error.code)}`);
    }
    const result = asObject(reply.message.result);
    const problems: string[] = [];
    if (typeof result?.protocolVersion !== "string") problems.push("no string protocolVersion");
    if (!asObject(result?.capabilities)) problems.push("no capabilities object");
    if (!isServerInfo(result?.serverInfo)) problems.push("no serverInfo with name and version");
    return problems.length
      ? fail(`initialize result: ${problems.join(", ")}: ${clip(JSON.stringify(result))}`)
      : ok(`served as 2025 era, protocolVersion ${result!.protocolVersion}`);
  },
  C042: async (ctx) => {
    const reply = await ctx.initialize();
    if (reply.kind !== "response" || !reply.message.error) {
      return na("initialize was not refused");
    }
    const error = reply.message.error;
    const supported = asObject(error.data)?.supported;
    const named = (Array.isArray(supported) && supported.includes(MODERN_PROTOCOL_VERSION)) ||
      String(error.message).includes(MODERN_PROTOCOL_VERSION);
    return named
      ? ok("the error names 2026-07-28")
      : fail(`the error does not name ${MODERN_PROTOCOL_VERSION}: ${describeReply(reply)}`);
  },
  C043: async (ctx) => {
    if (ctx.transport !== "stdio") return na("stdio only");
    await ctx.conn.closeInput();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), 10_000);
    });
    const ended = await Promise.race([ctx.conn.target.ended, timeout]);
    clearTimeout(timer);
    return ended === "timeout"
      ? fail("still running 10 s after its stdin closed")
      : ok(`exited (code ${ended.code ?? "signal"})`);
  },
  C044: httpOnly(async (_ctx, endpoint) => {
    const answer = await postWith(endpoint, discoverMessage());
    const type = answer.contentType.split(";")[0].trim();
    if (answer.status !== 200) return fail(`expected HTTP 200, got ${describeAnswer(answer)}`);
    if (type !== "application/json" && type !== "text/event-stream") {
      return fail(`Content-Type is ${JSON.stringify(answer.contentType)}`);
    }
    const response = answer.messages.find((m) => m.id === "conform-http");
    return response?.result
      ? ok(`HTTP 200 ${type}`)
      : fail(`HTTP 200 ${type} without the response: ${clip(answer.text)}`);
  }),
  C045: httpOnly(async (_ctx, endpoint) => {
    const answer = await postWith(endpoint, {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "conform-never-sent", _meta: modernMeta() },
    });
    if (answer.status === 202) {
      return answer.text === ""
        ? ok("HTTP 202, empty body")
        : fail(`HTTP 202 with a body: ${clip(answer.text)}`);
    }
    if (answer.status >= 400 && answer.status < 500) {
      const answered = answer.messages.some((m) => m.id !== undefined && m.id !== null);
      return answered
        ? fail(`HTTP ${answer.status} with a response carrying an id: ${clip(answer.text)}`)
        : ok(`refused with HTTP ${answer.status}`);
    }
    return fail(`expected 202 or 4xx, got ${describeAnswer(answer)}`);
  }),
  C046: httpOnly(async (_ctx, endpoint) =>
    expectHttp(
      await postWith(endpoint, {
        jsonrpc: "2.0",
        id: "conform-http",
        method: "conform/no_such_method",
        params: { _meta: modernMeta() },
      }),
      404,
      -32601,
      "an unknown method",
    )
  ),
  C047: httpOnly(async (_ctx, endpoint) =>
    expectHttp(
      await postWith(endpoint, discoverMessage(), { "MCP-Protocol-Version": "2025-11-25" }),
      400,
      -32020,
      "header 2025-11-25, _meta 2026-07-28",
    )
  ),
  C048: httpOnly(async (_ctx, endpoint) => {
    const answer = await postWith(
      endpoint,
      discoverMessage(modernMeta({ [PROTOCOL_VERSION_META_KEY]: "1900-01-01" })),
    );
    const outcome = expectHttp(answer, 400, -32022, "version 1900-01-01");
    if (outcome.status !== "ok") return outcome;
    const error = answer.messages.map((m) => asObject(m.error)).find((e) => e?.code === -32022);
    return Array.isArray(asObject(error?.data)?.supported)
      ? outcome
      : fail(`-32022 without data.supported: ${clip(answer.text)}`);
  }),
  C049: httpOnly(async (_ctx, endpoint) =>
    expectHttp(
      await postWith(endpoint, discoverMessage(), { Origin: "http://evil.example" }),
      403,
      undefined,
      "Origin http://evil.example",
    )
  ),
  C050: httpOnly(async (_ctx, endpoint) =>
    expectHttp(
      await postWith(endpoint, discoverMessage(), { "Mcp-Method": null }),
      400,
      -32020,
      "no Mcp-Method header",
    )
  ),
  C051: httpOnly(async (_ctx, endpoint) =>
    expectHttp(
      await postWith(endpoint, discoverMessage(), {
        "Mcp-Method": null,
        "mcp-method": "tools/list",
      }),
      400,
      -32020,
      "mcp-method: tools/list for server/discover",
    )
  ),
  C052: httpOnly(async (_ctx, endpoint) => {
    const call = (name: string) => ({
      jsonrpc: "2.0",
      id: "conform-http",
      method: "tools/call",
      params: { name, arguments: {}, _meta: modernMeta() },
    });
    const plain = expectHttp(
      await postWith(endpoint, call("conform_a"), { "Mcp-Name": "conform_b" }),
      400,
      -32020,
      "Mcp-Name conform_b for conform_a",
    );
    if (plain.status !== "ok") return plain;
    const encoded = `=?base64?${btoa("conform_b")}?=`;
    const sentinel = expectHttp(
      await postWith(endpoint, call("conform_a"), { "Mcp-Name": encoded }),
      400,
      -32020,
      `Mcp-Name ${encoded} for conform_a`,
    );
    return sentinel.status === "ok" ? ok(`${plain.detail}; ${sentinel.detail}`) : sentinel;
  }),
  C053: httpOnly(async (_ctx, endpoint) => {
    const problems: string[] = [];
    for (const method of ["GET", "DELETE"]) {
      const answer = await postMessage(endpoint, undefined, {}, method);
      if (answer.status !== 405) problems.push(`${method}: ${describeAnswer(answer)}`);
    }
    return problems.length
      ? fail(`expected 405: ${problems.join("; ")}`)
      : ok("GET 405, DELETE 405");
  }),
  C054: httpOnly(async (_ctx, endpoint) =>
    expectHttp(
      await postWith(
        endpoint,
        discoverMessage({ [PROTOCOL_VERSION_META_KEY]: MODERN_PROTOCOL_VERSION }),
      ),
      400,
      -32602,
      "_meta without clientCapabilities",
    )
  ),
};
