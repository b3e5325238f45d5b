/**
 * Measures what typical results cost a client, for docs/tools.md: a
 * 300-line source file read whole, and a 500-entry directory listed whole,
 * each split into its text half, its structured half (as JSON, which is what
 * a client that forwards structuredContent hands the model), the total the
 * response budget counts, and the bytes on the wire.
 *
 * Usage: deno task measure:results
 *
 * @module
 */

import { join } from "node:path";
import { shapedResultChars } from "../src/contract/budget.ts";
import { callDirect, directContext } from "../tests/helpers/fixtures.ts";

const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "devserver-measure-" }));
try {
  // A 300-line TypeScript file shaped like this repository's own code (mean line ~38 chars).
  const source = Array.from({ length: 300 }, (_, i) =>
    i % 10 === 0
      ? `/** Documentation line ${i} for the function below, as a reader would see it. */`
      : i % 10 === 9
      ? "}"
      : `  const value${i} = await compute(input, { index: ${i} });`).join("\n") + "\n";
  await Deno.writeTextFile(join(base, "module.ts"), source);
  await Deno.mkdir(join(base, "dir"));
  for (let i = 0; i < 500; i++) {
    await Deno.writeTextFile(join(base, "dir", `file-${String(i).padStart(3, "0")}.ts`), "x\n");
  }
  const ctx = directContext(base, { MCP_SANDBOX__LIST_PAGE_SIZE: "500" });
  const rows: string[][] = [];
  for (
    const [label, tool, args] of [
      ["read_file, 300-line file", "read_file", { path: "module.ts" }],
      ["list_directory, 500 entries", "list_directory", { path: "dir" }],
    ] as const
  ) {
    const result = await callDirect(ctx, tool, args);
    if ("invalidParams" in result) {
      throw new Error(String(result.invalidParams));
    }
    const text = (result.content ?? []).map((b) =>
      (b as { text?: string }).text ?? ""
    ).join("");
    const structured = JSON.stringify(result.structuredContent ?? {});
    const wire = new TextEncoder().encode(JSON.stringify(result)).length;
    const s = result.structuredContent as { truncated?: boolean; entries?: unknown[] };
    rows.push([
      label,
      String(text.length),
      String(structured.length),
      String(shapedResultChars(result)),
      String(wire),
      s.truncated ? `yes (${s.entries?.length ?? "?"} returned)` : "no",
    ]);
  }
  console.log(`source file: ${source.length} chars, ${source.split("\n").length - 1} lines`);
  console.log(
    "| result | text half (chars) | structured half (JSON chars) | budget counts | wire bytes | truncated |",
  );
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const row of rows) {
    console.log(`| ${row.join(" | ")} |`);
  }
} finally {
  await Deno.remove(base, { recursive: true });
}
