/**
 * ADR-032's claim, checked: the grammar loader obtains web-tree-sitter's
 * runtime and every grammar's `.wasm` and `tags.scm` through module imports
 * only, never through a file read by path. A worker with no permission at
 * all (no read anywhere, so neither the npm cache nor node_modules) loads
 * and uses every bundled grammar, while a read of the same `.wasm` by path
 * is refused. `deno compile` embeds module imports, so a compiled binary
 * loads them the same way (the binary itself is checked by the release
 * smoke test; compiling needs a runtime download not possible here).
 *
 * @module
 */

import assert from "node:assert/strict";
import { PARSED_LANGUAGES } from "../../src/symbols/languages.ts";

const WORKER = new URL("./fixtures/grammar_load_worker.ts", import.meta.url);

Deno.test("attack: a grammar read by path instead of imported would fail in a worker without read permission — every grammar loads there, and a direct read of its .wasm is refused", async () => {
  const wasmPath = new URL(import.meta.resolve("tree-sitter-python/tree-sitter-python.wasm"))
    .pathname;
  // The path is real: a read by path needs exactly the permission the worker lacks.
  assert.ok(Deno.statSync(wasmPath).size > 0, wasmPath);
  const worker = new Worker(WORKER, {
    type: "module",
    deno: { permissions: "none" },
  } as WorkerOptions);
  try {
    const answer = await new Promise<
      { report: Record<string, string>; directRead: string; read: string }
    >((resolve, reject) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(event.message));
      };
      worker.postMessage({ wasmPath });
    });
    assert.notEqual(answer.read, "granted", "the worker must hold no read permission");
    assert.equal(answer.directRead, "NotCapable", "a read by path must be refused in the worker");
    assert.deepEqual(
      answer.report,
      Object.fromEntries(PARSED_LANGUAGES.map((language) => [language, "parsed"])),
    );
  } finally {
    worker.terminate();
  }
});

Deno.test("the symbols layer reads no file by path: no Deno read, fs or fetch call in src/symbols/", () => {
  const dir = new URL("../../src/symbols/", import.meta.url);
  const forbidden =
    /\bDeno\.(readFile|readFileSync|readTextFile|readTextFileSync|open|openSync)\b|node:fs|\bfetch\(/;
  const checked: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.name.endsWith(".ts")) continue;
    const source = Deno.readTextFileSync(new URL(entry.name, dir));
    assert.doesNotMatch(source, forbidden, entry.name);
    checked.push(entry.name);
  }
  assert.ok(checked.includes("grammars.ts"), "the loader was not among the files checked");
});
