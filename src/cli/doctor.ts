/**
 * `devserver doctor`: what would be served and what refused. It loads the
 * configuration, starts the real sandbox, lists the workspace root through
 * it, drops the main thread's permissions as `serve` does and reports the
 * end state. Exit 0 when it can serve, 1 when it cannot.
 *
 * @module
 */

import { hostSemantics } from "../access/path_semantics.ts";
import { createDevServer } from "../app.ts";
import { type Config, ConfigError } from "../config/load.ts";
import { SETTINGS } from "../config/schema.ts";
import { quoteName } from "../contract/text.ts";
import { Denylist } from "../access/denylist.ts";
import { dropMainThreadPermissions, reportPermissions } from "../isolation/permissions.ts";
import { TOOL_SPECS } from "../tools/specs.ts";
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION, SERVER_VERSION } from "../version.ts";
import type { ParsedArgs } from "./args.ts";
import { configFor } from "./config.ts";

/** Runs the checks, printing one line each; resolves with the exit code. */
export async function runDoctor(args: ParsedArgs): Promise<number> {
  const ok = (text: string) => console.log(`ok    ${text}`);
  const bad = (text: string) => console.log(`FAIL  ${text}`);
  const info = (text: string) => console.log(`      ${text}`);
  console.log(`devserver ${SERVER_VERSION} doctor`);

  let config: Config;
  try {
    config = configFor(args);
  } catch (error) {
    if (error instanceof ConfigError) {
      bad(`configuration: ${error.message}`);
      console.log("cannot serve");
      return 1;
    }
    throw error;
  }
  const overridden = SETTINGS.filter((s) => Deno.env.get(s.env) !== undefined).map((s) => s.env);
  ok(`configuration (${overridden.length ? "set: " + overridden.join(", ") : "all defaults"})`);
  ok(`workspace ${quoteName(config.workspaceRoot, 240)} (environment: ${config.environment})`);
  info(
    `limits: file ${config.maxFileBytes} bytes, ${config.maxLines} lines per read, ` +
      `${config.listPageSize} entries per page, ${config.toolTimeoutMs} ms per call, ` +
      `${config.maxLineBytes}-byte protocol lines`,
  );
  info(
    `denylist: ${new Denylist(config.denyExtra).patterns.length} patterns ` +
      `(${config.denyExtra.length} added by MCP_SANDBOX__DENY_EXTRA); ` +
      `symlinks ${config.followSymlinks ? "followed inside the workspace" : "not followed"}; ` +
      `redaction ${config.redactSecrets ? "on" : "OFF"}`,
  );
  info(
    `protocol: ${MODERN_PROTOCOL_VERSION}; initialize clients (${LEGACY_PROTOCOL_VERSIONS[0]}…) ` +
      (config.legacyClients === "serve" ? "served" : "rejected with -32022"),
  );
  info(
    `path rules: ${hostSemantics().flavor} (from the host; names compared folded on every platform)`,
  );
  info(`tools: ${TOOL_SPECS.map((t) => t.name).join(", ")}`);

  let gitVersion: string | undefined;
  try {
    const out = await new Deno.Command("git", {
      args: ["--version"],
      stdout: "piped",
      stderr: "null",
    })
      .output();
    if (out.success) gitVersion = new TextDecoder().decode(out.stdout).trim();
  } catch { /* not installed */ }
  if (gitVersion) ok(`git found: ${gitVersion}`);
  else info("git not found: the tool workers may run only git, and it is absent");

  const server = createDevServer(config);
  let healthy = true;
  try {
    await server.sandbox.started; // the workers' and supervisor's modules load under our read grant
    await dropMainThreadPermissions(config.transport !== "stdio");
    const result = await server.dispatcher.call("list_directory", {});
    const main = await reportPermissions();
    if (result.isError) {
      healthy = false;
      bad("sandbox: listing the workspace root through the tool worker failed");
    } else {
      ok("sandbox: tool worker started with read=[workspace], run=[git], nothing else");
    }
    // HTTP mode keeps net to listen; everything else is dropped in either mode.
    const dropped = config.transport === "http"
      ? (["read", "run", "env", "write"] as const)
      : (["read", "run", "net", "env", "write"] as const);
    const held = dropped.filter((n) => main[n] === "granted");
    if (held.length === 0) {
      ok(`permission layer active: the main thread holds no ${dropped.join(", ")}`);
    } else {
      healthy = false;
      bad(`permission layer: the main thread still holds ${held.join(", ")}`);
    }
  } finally {
    server.close();
  }
  console.log(healthy ? "ready to serve" : "cannot serve");
  return healthy ? 0 : 1;
}
