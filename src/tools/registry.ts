/**
 * The tool registry: which tools exist, in the order `tools/list` shows
 * them, and how each is published (title, annotations, JSON Schemas).
 * Loaded by the protocol layer for publishing and by the tool worker for
 * running; it holds no state.
 *
 * @module
 */

import { z } from "zod";
import type { Tool } from "@modelcontextprotocol/server";
import { gitDiffTool } from "./git_diff.ts";
import { gitLogTool } from "./git_log.ts";
import { listDirectoryTool } from "./list_directory.ts";
import { readFileTool } from "./read_file.ts";
import { searchCodeTool } from "./search_code.ts";
import { findSymbolTool } from "./find_symbol.ts";
import { projectOverviewTool } from "./project_overview.ts";
import type { ToolDefinition } from "./types.ts";

/** Every tool, in publishing order. */
export const TOOLS: readonly ToolDefinition[] = [
  readFileTool,
  listDirectoryTool,
  searchCodeTool,
  findSymbolTool,
  projectOverviewTool,
  gitLogTool,
  gitDiffTool,
];

/** The tool called `name`, or `undefined`. */
export function findTool(name: string): ToolDefinition | undefined {
  return TOOLS.find((tool) => tool.name === name);
}

/** The annotations every tool carries: all read-only, closed-world, repeatable. */
export const READ_ONLY_ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/** The tool as `tools/list` publishes it (JSON Schema 2020-12 for input and output). */
export function publishTool(tool: ToolDefinition): Tool {
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
  return TOOLS.map(publishTool);
}

function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" }) as Record<
    string,
    unknown
  >;
}
