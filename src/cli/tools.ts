/**
 * `devserver tools`: the published tools, as a person reads them or as JSON.
 *
 * @module
 */

import { publishedTools } from "../tools/specs.ts";
import type { ParsedArgs } from "./args.ts";

/** Prints the tools; resolves with the exit code. */
export function runTools(args: ParsedArgs): number {
  const tools = publishedTools();
  if (args.json) {
    console.log(JSON.stringify({ tools }, null, 2));
    return 0;
  }
  for (const tool of tools) {
    console.log(`${tool.name} — ${tool.title}`);
    console.log(`  ${tool.description}`);
    const schema = tool.inputSchema as {
      properties?: Record<string, { type?: string; description?: string }>;
      required?: string[];
    };
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      const required = schema.required?.includes(name) ? "" : "?";
      console.log(`    ${name}${required}: ${prop.type ?? "value"} — ${prop.description ?? ""}`);
    }
    console.log();
  }
  return 0;
}
