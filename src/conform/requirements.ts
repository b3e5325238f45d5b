/**
 * The requirements `devserver conform` checks, as data: one entry per check,
 * with its id, its level, the specification page and section it comes from,
 * and the behaviour checked. Modelled on the TypeScript SDK's
 * `test/e2e/requirements.ts`. `docs/conformance.md` lists the same entries
 * (a test keeps the two equal), and every entry has exactly one check in
 * `checks.ts` (another test).
 *
 * Where the specification is ambiguous the entry says so in `note` and is
 * a SHOULD, never a MUST.
 *
 * @module
 */

/** How strongly the specification asks for the behaviour. */
export type Level = "MUST" | "SHOULD";

/** Where a requirement can be observed. */
export type Scope = "any" | "stdio" | "http";

/** One requirement of the specification, checked by one check. */
export interface Requirement {
  /** `C` and three digits, in run order. */
  readonly id: string;
  readonly level: Level;
  readonly title: string;
  /** The specification page, with the section as its fragment. */
  readonly source: string;
  /** The behaviour the check observes. */
  readonly behaviour: string;
  readonly scope: Scope;
  /** Why the level is what it is, where the text leaves room. */
  readonly note?: string;
}

const SPEC = "https://modelcontextprotocol.io/specification/2026-07-28";
const JSONRPC = "https://www.jsonrpc.org/specification";

/** Every requirement, in the order the checks run. */
export const REQUIREMENTS: readonly Requirement[] = [
  {
    id: "C001",
    level: "MUST",
    title: "server/discover answers a result",
    source: `${SPEC}/basic/versioning#protocol-version-negotiation`,
    behaviour:
      "A server/discover request with the 2026-07-28 _meta envelope is answered with a result, not an error.",
    scope: "any",
  },
  {
    id: "C002",
    level: "MUST",
    title: "discover: supportedVersions lists 2026-07-28",
    source: `${SPEC}/server/discover#discoverresult`,
    behaviour:
      "The DiscoverResult has supportedVersions, a non-empty array of strings that includes 2026-07-28 (the version the request used and the server accepted).",
    scope: "any",
  },
  {
    id: "C003",
    level: "MUST",
    title: "discover: capabilities is an object",
    source: `${SPEC}/server/discover#discoverresult`,
    behaviour: "The DiscoverResult has capabilities, a JSON object.",
    scope: "any",
  },
  {
    id: "C004",
    level: "SHOULD",
    title: "discover: serverInfo in _meta",
    source: `${SPEC}/server/discover#discoverresult`,
    behaviour:
      'The DiscoverResult carries _meta["io.modelcontextprotocol/serverInfo"] with string name and version.',
    scope: "any",
  },
  {
    id: "C005",
    level: "MUST",
    title: "discover: caching hints ttlMs and cacheScope",
    source: `${SPEC}/server/utilities/caching#cacheable-results`,
    behaviour:
      'The DiscoverResult carries ttlMs, an integer >= 0, and cacheScope, "public" or "private".',
    scope: "any",
    note:
      'The page says servers MUST include "caching hints" and that cacheable results use the two fields ttlMs and cacheScope; both are checked as required.',
  },
  {
    id: "C006",
    level: "MUST",
    title: "discover: instructions is a string when present",
    source: `${SPEC}/server/discover#discoverresult`,
    behaviour: "instructions is absent or a string.",
    scope: "any",
  },
  {
    id: "C007",
    level: "MUST",
    title: "_meta without clientCapabilities is -32602",
    source: `${SPEC}/basic/index#meta`,
    behaviour:
      "A request whose _meta has protocolVersion but not the required clientCapabilities is answered -32602.",
    scope: "any",
  },
  {
    id: "C008",
    level: "MUST",
    title: "_meta clientCapabilities of the wrong type is -32602",
    source: `${SPEC}/basic/index#meta`,
    behaviour: "A request whose _meta clientCapabilities is a string is answered -32602.",
    scope: "any",
    note:
      "The page types clientCapabilities as ClientCapabilities (an object); a request that fails the request schema is malformed, answered -32602 (JSON-RPC Invalid params).",
  },
  {
    id: "C009",
    level: "SHOULD",
    title: "_meta protocolVersion of the wrong type is -32602",
    source: `${SPEC}/basic/index#meta`,
    behaviour:
      "A request whose _meta protocolVersion is a number is answered -32602 (-32022 is reported, not accepted).",
    scope: "any",
    note:
      "The page requires -32602 for a missing field and -32022 for an unsupported version; a value of the wrong type is neither, so this is a SHOULD.",
  },
  {
    id: "C010",
    level: "MUST",
    title: "unsupported version is -32022 with data.supported and data.requested",
    source: `${SPEC}/basic/versioning#protocol-version-negotiation`,
    behaviour:
      "A request claiming protocol version 1900-01-01 is answered -32022 whose data.supported is a non-empty array of strings and data.requested is 1900-01-01.",
    scope: "any",
  },
  {
    id: "C011",
    level: "MUST",
    title: "unsupported version is -32022 on a later request too",
    source: `${SPEC}/basic/index#statelessness`,
    behaviour:
      "After requests that succeeded, a request claiming 1900-01-01 is still answered -32022: the version is checked on every request, not only the first.",
    scope: "any",
  },
  {
    id: "C012",
    level: "MUST",
    title: "trace context keys in _meta are accepted",
    source: `${SPEC}/basic/index#meta`,
    behaviour:
      "A server/discover request whose _meta also carries traceparent and tracestate is answered with a result.",
    scope: "any",
  },
  {
    id: "C013",
    level: "MUST",
    title: "invalid JSON is -32700 with id null",
    source: `${JSONRPC}#error_object`,
    behaviour:
      "A line that is not JSON is answered -32700 Parse error with id null, and the next request is answered.",
    scope: "any",
    note: `MCP uses the standard JSON-RPC error codes (${SPEC}/basic/index#error-codes).`,
  },
  {
    id: "C014",
    level: "MUST",
    title: 'jsonrpc other than "2.0" is -32600',
    source: `${JSONRPC}#error_object`,
    behaviour: 'A request with "jsonrpc": "1.0" is answered -32600 Invalid Request.',
    scope: "any",
    note: `All messages MUST follow JSON-RPC 2.0 (${SPEC}/basic/index#messages).`,
  },
  {
    id: "C015",
    level: "MUST",
    title: "unknown method is -32601",
    source: `${JSONRPC}#error_object`,
    behaviour: "A request for a method no revision defines is answered -32601 Method not found.",
    scope: "any",
  },
  {
    id: "C016",
    level: "MUST",
    title: "notifications are not answered",
    source: `${SPEC}/basic/index#notifications`,
    behaviour:
      "Notifications (one the server may know, one it cannot) get no response; the request sent after them is answered, and nothing else arrives.",
    scope: "any",
  },
  {
    id: "C017",
    level: "MUST",
    title: "a string id is echoed exactly",
    source: `${SPEC}/basic/index#result-responses`,
    behaviour: "A request with a string id is answered with the identical string id.",
    scope: "any",
  },
  {
    id: "C018",
    level: "MUST",
    title: "an integer id is echoed exactly",
    source: `${SPEC}/basic/index#result-responses`,
    behaviour: "Requests with integer ids 0 and 9007199254740991 are answered with those ids.",
    scope: "any",
  },
  {
    id: "C019",
    level: "MUST",
    title: "interleaved requests are answered independently",
    source: `${SPEC}/basic/index#statelessness`,
    behaviour:
      "Three requests written back to back (discover, an unknown method, an unsupported version) each get their own answer, matched by id.",
    scope: "any",
  },
  {
    id: "C020",
    level: "SHOULD",
    title: "methods of capabilities not advertised are -32601",
    source: `${JSONRPC}#error_object`,
    behaviour:
      "For each of prompts and resources not in the advertised capabilities, prompts/list and resources/list are answered -32601.",
    scope: "any",
    note:
      `JSON-RPC defines -32601 as "the method does not exist / is not available"; the 2026-07-28 pages use it for unsupported capabilities (${SPEC}/server/utilities/completion#error-handling) but state no general rule, so this is a SHOULD.`,
  },
  {
    id: "C021",
    level: "MUST",
    title: "tools/list result is well-formed",
    source: `${SPEC}/server/tools#listing-tools`,
    behaviour:
      "When tools is advertised, tools/list answers a result with a tools array whose entries have a string name and an object inputSchema.",
    scope: "any",
  },
  {
    id: "C022",
    level: "SHOULD",
    title: "tool names are 1-128 of [A-Za-z0-9_.-] and unique",
    source: `${SPEC}/server/tools#tool-names`,
    behaviour: "Every tool name is 1 to 128 characters of A-Z, a-z, 0-9, _, - and ., and unique.",
    scope: "any",
  },
  {
    id: "C023",
    level: "MUST",
    title: "input schemas are valid JSON Schema 2020-12 objects",
    source: `${SPEC}/server/tools#tool`,
    behaviour:
      "Every inputSchema is an object schema (type object) that a JSON Schema 2020-12 validator (ajv) compiles.",
    scope: "any",
    note: `Schemas without $schema default to 2020-12 (${SPEC}/basic/index#json-schema-usage).`,
  },
  {
    id: "C024",
    level: "MUST",
    title: "output schemas are valid JSON Schema 2020-12",
    source: `${SPEC}/server/tools#output-schema`,
    behaviour: "Every outputSchema present compiles under JSON Schema 2020-12 (ajv).",
    scope: "any",
  },
  {
    id: "C025",
    level: "MUST",
    title: "tools/list: caching hints ttlMs and cacheScope",
    source: `${SPEC}/server/utilities/caching#cacheable-results`,
    behaviour:
      'Every tools/list page carries ttlMs, an integer >= 0, and cacheScope, "public" or "private".',
    scope: "any",
  },
  {
    id: "C026",
    level: "SHOULD",
    title: "tools/list pagination ends without repeats",
    source: `${SPEC}/server/utilities/pagination#pagination-flow`,
    behaviour:
      "Following nextCursor ends within 100 pages, never repeats a cursor, and never lists a tool name twice.",
    scope: "any",
    note:
      "The pagination page describes the flow but states no MUST about repeats; tool names SHOULD be unique (server/tools#tool-names).",
  },
  {
    id: "C027",
    level: "SHOULD",
    title: "a bogus cursor is -32602",
    source: `${SPEC}/server/utilities/pagination#error-handling`,
    behaviour: "tools/list with a cursor the server never issued is answered -32602.",
    scope: "any",
  },
  {
    id: "C028",
    level: "MUST",
    title: "an unknown tool is -32602",
    source: `${SPEC}/server/tools#error-handling`,
    behaviour: "tools/call for a tool that is not listed is answered with JSON-RPC error -32602.",
    scope: "any",
    note:
      "The page lists an unknown tool among protocol errors and shows -32602 for it; other codes are reported as failures.",
  },
  {
    id: "C029",
    level: "MUST",
    title: "schema-violating arguments are -32602 or an isError result",
    source: `${SPEC}/server/tools#error-handling`,
    behaviour:
      "tools/call with arguments that violate the tool's inputSchema is answered -32602 or with a result carrying isError: true (the detail says which); never a success, never another error.",
    scope: "any",
  },
  {
    id: "C030",
    level: "MUST",
    title: "tools/call results are well-formed",
    source: `${SPEC}/server/tools#tool-result`,
    behaviour:
      "Every tools/call result has a content array of objects with a string type, and isError, when present, is a boolean.",
    scope: "any",
  },
  {
    id: "C031",
    level: "MUST",
    title: "structuredContent matches outputSchema on every result, errors included",
    source: `${SPEC}/server/tools#output-schema`,
    behaviour:
      "Every tools/call result (isError results included) that carries structuredContent validates against the tool's outputSchema (ajv, 2020-12).",
    scope: "any",
    note:
      "The SDK v1 client and the MCP Inspector validate error results too, and throw when they do not match.",
  },
  {
    id: "C032",
    level: "MUST",
    title: "the tool list is the same across requests",
    source: `${SPEC}/server/tools#capabilities`,
    behaviour:
      "tools/list at the start and near the end of the run (after other requests) lists the same set of tools with the same definitions.",
    scope: "any",
  },
  {
    id: "C033",
    level: "SHOULD",
    title: "tools are listed in a deterministic order",
    source: `${SPEC}/server/tools#capabilities`,
    behaviour: "tools/list at the start and near the end of the run lists the tools in one order.",
    scope: "any",
  },
  {
    id: "C034",
    level: "MUST",
    title: "every result carries resultType",
    source: `${SPEC}/basic/index#result-responses`,
    behaviour:
      'Every result answered to a 2026-07-28 request in this run carries resultType, "complete" or "input_required".',
    scope: "any",
  },
  {
    id: "C035",
    level: "MUST",
    title: "tool error results carry resultType",
    source: `${SPEC}/basic/index#result-responses`,
    behaviour: "Every tools/call result with isError: true carries resultType.",
    scope: "any",
  },
  {
    id: "C036",
    level: "SHOULD",
    title: "every result carries serverInfo in _meta",
    source: `${SPEC}/basic/index#meta`,
    behaviour:
      'Every result answered to a 2026-07-28 request carries _meta["io.modelcontextprotocol/serverInfo"] with string name and version.',
    scope: "any",
  },
  {
    id: "C037",
    level: "MUST",
    title: "no reserved or withdrawn error codes",
    source: `${SPEC}/basic/index#error-codes`,
    behaviour:
      "No error in the run uses a code from -32099 to -32020 other than -32020, -32021 and -32022, nor the withdrawn -32002 or -32042.",
    scope: "any",
  },
  {
    id: "C038",
    level: "MUST",
    title: "-32021 lists data.requiredCapabilities",
    source: `${SPEC}/basic/index#meta`,
    behaviour:
      "Every -32021 MissingRequiredClientCapability error in the run has data.requiredCapabilities (not applicable when none was answered).",
    scope: "any",
  },
  {
    id: "C039",
    level: "MUST",
    title: "stdout carries only JSON-RPC messages",
    source: `${SPEC}/basic/transports/stdio`,
    behaviour:
      "Every line the server wrote to stdout is a JSON-RPC 2.0 response or notification object.",
    scope: "stdio",
    note:
      "The rule is in the page's opening list, before its first section (no anchor): the server MUST NOT write anything to its stdout that is not a valid MCP message.",
  },
  {
    id: "C040",
    level: "MUST",
    title: "no JSON-RPC requests on stdout",
    source: `${SPEC}/basic/transports/stdio#receiving-messages`,
    behaviour:
      "Before initialize is sent, the server wrote no JSON-RPC request (a message with both method and id).",
    scope: "stdio",
    note:
      "2025-era sessions may carry server requests, so a legacy-only target is not applicable and initialize ends the window.",
  },
  {
    id: "C041",
    level: "MUST",
    title: "initialize: a 2025-era result or an error (which is reported)",
    source: `${SPEC}/basic/versioning#backward-compatibility-with-initialization-based-versions`,
    behaviour:
      "initialize (protocolVersion 2025-11-25, no _meta) is answered either with an InitializeResult (protocolVersion, capabilities, serverInfo name and version) or with a JSON-RPC error; the detail says which the server chose.",
    scope: "any",
    note:
      "Dual-era servers MAY serve initialize; for a modern-only server the code is implementation-defined.",
  },
  {
    id: "C042",
    level: "SHOULD",
    title: "an initialize error names the supported versions",
    source: `${SPEC}/basic/versioning#backward-compatibility-with-initialization-based-versions`,
    behaviour:
      "When initialize is refused, the error names 2026-07-28 (in data.supported or the message). Not applicable when initialize is served.",
    scope: "any",
  },
  {
    id: "C043",
    level: "SHOULD",
    title: "the server exits when stdin closes",
    source: `${SPEC}/basic/transports/stdio#shutdown`,
    behaviour: "After the checker closes the server's stdin, the server exits within 10 seconds.",
    scope: "stdio",
  },
  {
    id: "C044",
    level: "MUST",
    title: "HTTP: a request is answered as JSON or an SSE stream",
    source: `${SPEC}/basic/transports/streamable-http#sending-messages`,
    behaviour:
      "A POST of server/discover with the metadata headers is answered 200 with Content-Type application/json or text/event-stream carrying the response.",
    scope: "http",
  },
  {
    id: "C045",
    level: "MUST",
    title: "HTTP: a notification is 202 with no body, or an error status",
    source: `${SPEC}/basic/transports/streamable-http#sending-messages`,
    behaviour:
      "A POST of a notification is answered 202 Accepted with an empty body, or (if the server cannot accept it) a 4xx status; never a JSON-RPC response.",
    scope: "http",
  },
  {
    id: "C046",
    level: "MUST",
    title: "HTTP: an unknown method is 404 with -32601",
    source: `${SPEC}/basic/transports/streamable-http#protocol-version-header`,
    behaviour:
      "A POST of a method no revision defines is answered 404 with a JSON-RPC error -32601.",
    scope: "http",
  },
  {
    id: "C047",
    level: "MUST",
    title: "HTTP: MCP-Protocol-Version unequal to _meta is 400 with -32020",
    source: `${SPEC}/basic/transports/streamable-http#protocol-version-header`,
    behaviour:
      "A POST whose MCP-Protocol-Version header (2025-11-25) differs from its _meta protocolVersion (2026-07-28) is answered 400 with -32020.",
    scope: "http",
  },
  {
    id: "C048",
    level: "MUST",
    title: "HTTP: an unsupported version is 400 with -32022",
    source: `${SPEC}/basic/transports/streamable-http#protocol-version-header`,
    behaviour:
      "A POST claiming 1900-01-01 in both the header and _meta is answered 400 with -32022 listing data.supported.",
    scope: "http",
  },
  {
    id: "C049",
    level: "MUST",
    title: "HTTP: an invalid Origin is 403",
    source: `${SPEC}/basic/transports/streamable-http#security-&-endpoint`,
    behaviour: "A POST with Origin: http://evil.example is answered 403 Forbidden (DNS rebinding).",
    scope: "http",
    note:
      'The section is titled "Security & Endpoint"; the anchor is as the page renders it. Which origins are valid is the server\'s choice; an unrelated public host is taken as invalid.',
  },
  {
    id: "C050",
    level: "MUST",
    title: "HTTP: a missing Mcp-Method header is 400 with -32020",
    source: `${SPEC}/basic/transports/streamable-http#server-validation`,
    behaviour: "A POST without the required Mcp-Method header is answered 400 with -32020.",
    scope: "http",
  },
  {
    id: "C051",
    level: "MUST",
    title: "HTTP: Mcp-Method unequal to the body's method is 400 with -32020",
    source: `${SPEC}/basic/transports/streamable-http#server-validation`,
    behaviour:
      "A POST of server/discover with Mcp-Method: tools/list (header names matched case-insensitively: sent as mcp-method) is answered 400 with -32020.",
    scope: "http",
  },
  {
    id: "C052",
    level: "MUST",
    title: "HTTP: Mcp-Name unequal to params.name is 400 with -32020",
    source: `${SPEC}/basic/transports/streamable-http#server-validation`,
    behaviour:
      "A tools/call POST whose Mcp-Name header names another tool than params.name is answered 400 with -32020; so is one whose =?base64?…?= Mcp-Name decodes to another name.",
    scope: "http",
  },
  {
    id: "C053",
    level: "SHOULD",
    title: "HTTP: GET and DELETE are 405",
    source: `${SPEC}/basic/transports/streamable-http#earlier-streamable-http-revisions`,
    behaviour: "GET and DELETE to the endpoint are answered 405 Method Not Allowed.",
    scope: "http",
  },
  {
    id: "C054",
    level: "MUST",
    title: "HTTP: _meta without clientCapabilities is 400 with -32602",
    source: `${SPEC}/basic/index#meta`,
    behaviour:
      "A POST whose _meta lacks the required clientCapabilities is answered 400 Bad Request with -32602.",
    scope: "http",
  },
];

/** The requirement with `id`, or `undefined`. */
export function requirement(id: string): Requirement | undefined {
  return REQUIREMENTS.find((r) => r.id === id);
}
