/**
 * The tools as the main thread knows them (ADR-117): which tools exist, in
 * the order `tools/list` shows them, and how each is published (title,
 * annotations, JSON Schemas) and checked (input, output, refusals). The
 * handlers live in `registry.ts`, which only the tool workers (and tests)
 * load: a spec taken from its own module keeps its handler's graph out of
 * the main thread's heap. `search_code`'s and `find_symbol`'s are; the other
 * tools' specs are still their definitions.
 *
 * @module
 */

import { z } from "zod";
import type { Tool } from "@modelcontextprotocol/server";
import { gitDiffTool } from "./git_diff.ts";
import { gitLogTool } from "./git_log.ts";
import { listDirectoryTool } from "./list_directory.ts";
import { readFileTool } from "./read_file.ts";
import { searchCodeSpec } from "./search_code_spec.ts";
import { findSymbolSpec } from "./find_symbol_spec.ts";
import { projectOverviewTool } from "./project_overview.ts";
import type { ToolSpec } from "./types.ts";

/** Every tool's spec, in publishing order. */
export const TOOL_SPECS: readonly ToolSpec[] = [
  readFileTool,
  listDirectoryTool,
  searchCodeSpec,
  findSymbolSpec,
  projectOverviewTool,
  gitLogTool,
  gitDiffTool,
];

/** The spec of the tool called `name`, or `undefined`. */
export function findSpec(name: string): ToolSpec | undefined {
  return TOOL_SPECS.find((tool) => tool.name === name);
}

/** The annotations every tool carries: all read-only, closed-world, repeatable. */
export const READ_ONLY_ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/** The tool as `tools/list` publishes it (JSON Schema 2020-12 for input and output). */
export function publishTool(tool: ToolSpec): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toJsonSchema(tool.input) as Tool["inputSchema"],
    outputSchema: toJsonSchema(tool.output) as Tool["outputSchema"],
    annotations: { title: tool.title, ...READ_ONLY_ANNOTATIONS },
  };
}

/** All tools as `tools/list` publishes them. */
export function publishedTools(): Tool[] {
  return TOOL_SPECS.map(publishTool);
}

function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" }) as Record<
    string,
    unknown
  >;
}
