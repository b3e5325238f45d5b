/**
 * What the tool definitions cost a model: for each published tool, the
 * bytes (UTF-8) of its name, description and input schema as JSON — what a
 * client puts in the model's context for it — and all tools together; and,
 * for comparison, the whole `tools/list` entry (with title, output schema
 * and annotations), which clients receive but usually do not show the model.
 *
 * Usage: deno task measure:tools   (add --json for machine-readable output)
 *
 * @module
 */

import { publishedTools } from "../src/tools/registry.ts";

/** The size of one tool's definition. */
export interface ToolDefinitionSize {
  readonly name: string;
  /** `{ name, description, inputSchema }` as JSON, in bytes. */
  readonly modelBytes: number;
  /** The whole published entry as JSON, in bytes. */
  readonly listedBytes: number;
}

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

/** Per tool and in total: what the definitions of all published tools cost. */
export function measureToolDefinitions(): {
  tools: ToolDefinitionSize[];
  /** All tools' `{ name, description, inputSchema }` as one JSON array, in bytes. */
  modelBytes: number;
  /** The whole `tools` array of `tools/list` as JSON, in bytes. */
  listedBytes: number;
} {
  const published = publishedTools();
  const forModel = published.map(({ name, description, inputSchema }) => ({
    name,
    description,
    inputSchema,
  }));
  return {
    tools: published.map((tool, i) => ({
      name: tool.name,
      modelBytes: bytes(forModel[i]),
      listedBytes: bytes(tool),
    })),
    modelBytes: bytes(forModel),
    listedBytes: bytes(published),
  };
}

if (import.meta.main) {
  const sizes = measureToolDefinitions();
  if (Deno.args.includes("--json")) {
    console.log(JSON.stringify(sizes, null, 2));
  } else {
    const width = Math.max(5, ...sizes.tools.map((t) => t.name.length));
    console.log(`${"tool".padEnd(width)}  name+description+inputSchema  whole tools/list entry`);
    for (const tool of sizes.tools) {
      console.log(
        `${tool.name.padEnd(width)}  ${String(tool.modelBytes).padStart(28)}  ${
          String(tool.listedBytes).padStart(22)
        }`,
      );
    }
    console.log(
      `${"total".padEnd(width)}  ${String(sizes.modelBytes).padStart(28)}  ${
        String(sizes.listedBytes).padStart(22)
      }  (bytes, JSON, UTF-8; goal for seven tools: ≤ 10240)`,
    );
  }
}
