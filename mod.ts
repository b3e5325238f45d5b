/**
 * devserver as a library: build the read-only MCP server for a workspace,
 * inspect its tool registry, and shape results the way the server does.
 *
 * ```ts
 * import { createDevServer, loadConfig } from "./mod.ts";
 *
 * const server = createDevServer(loadConfig(Deno.env.toObject(), { cwd: Deno.cwd() }));
 * const result = await server.dispatcher.call("read_file", { path: "README.md" });
 * server.close();
 * ```
 *
 * The factory (`server.factory`) plugs into the SDK's `serveStdio` or
 * `createMcpHandler`; `devserver serve` is exactly that plus the stdio
 * transport in `src/transport/stdio.ts`.
 *
 * @module
 */

/** Build a server (sandbox workers, dispatcher, SDK factory) from a configuration. */
export { createDevServer, type DevServer, sandboxSettings } from "./src/app.ts";
/** Parse and validate the `MCP_*` settings once at start. */
export { type Config, ConfigError, loadConfig, type LoadOptions } from "./src/config/load.ts";
/** The catalogue of settings (names, kinds, defaults, docs). */
export { SETTINGS, type SettingSpec } from "./src/config/schema.ts";
/** The tool registry: every tool, in publishing order, and how it is published. */
export { findTool, publishedTools, publishTool, TOOLS } from "./src/tools/registry.ts";
/** What a tool is, and what it returns before the result pipeline shapes it. */
export type { ToolContext, ToolDefinition, ToolTable } from "./src/tools/types.ts";
export type { RawToolResult, TextPart } from "./src/contract/result.ts";
export type { ToolLimits, ToolSettings } from "./src/contract/settings.ts";
/** The one path from a raw result to what the client sees. */
export { shapeToolResult } from "./src/content/pipeline.ts";
/** Refusals: stable codes with remedies. */
export { refusal, REFUSAL_CODES, type RefusalCode, ToolRefusal } from "./src/contract/refusal.ts";
/** Containment: resolve a user's path inside the workspace, or refuse. */
export { type ContainmentPolicy, resolveInWorkspace } from "./src/access/resolve.ts";
/** The stdio transport that closes the SDK's stdio gaps. */
export { LineTransport, type LineTransportOptions } from "./src/transport/stdio.ts";
/** The program's identity and protocol revisions. */
export {
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSION,
  SERVER_NAME,
  SERVER_VERSION,
} from "./src/version.ts";
