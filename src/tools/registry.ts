/**
 * The tool registry: every tool with its handler, in the order `tools/list`
 * shows them. Loaded by the tool worker for running (and by tests); the
 * main thread loads `specs.ts` instead, which holds no handler it can avoid
 * (ADR-117). It holds no state.
 *
 * @module
 */

import { gitDiffTool } from "./git_diff.ts";
import { gitLogTool } from "./git_log.ts";
import { listDirectoryTool } from "./list_directory.ts";
import { readFileTool } from "./read_file.ts";
import { searchCodeTool } from "./search_code.ts";
import { findSymbolTool } from "./find_symbol.ts";
import { projectOverviewTool } from "./project_overview.ts";
import type { ToolDefinition } from "./types.ts";

export { publishedTools, publishTool, READ_ONLY_ANNOTATIONS } from "./specs.ts";

/** Every tool, in publishing order (the order of `TOOL_SPECS`). */
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
