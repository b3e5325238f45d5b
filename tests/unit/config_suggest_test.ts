import assert from "node:assert/strict";
import { SETTINGS } from "../../src/config/schema.ts";
import { editDistance, nearestName } from "../../src/config/suggest.ts";

const KNOWN = SETTINGS.map((s) => s.env);

Deno.test("suggest: edit distance counts inserts, deletes, substitutions and swaps", () => {
  assert.equal(editDistance("", ""), 0);
  assert.equal(editDistance("abc", "abc"), 0);
  assert.equal(editDistance("abc", ""), 3);
  assert.equal(editDistance("abc", "abcd"), 1);
  assert.equal(editDistance("abc", "ab"), 1);
  assert.equal(editDistance("abc", "axc"), 1);
  assert.equal(editDistance("abcd", "abdc"), 1);
  assert.equal(editDistance("kitten", "sitting"), 3);
});

Deno.test("suggest: typos and swapped sections find the intended name", () => {
  assert.equal(nearestName("MCP_SANDBOX__MAX_FILE_BYTE", KNOWN), "MCP_SANDBOX__MAX_FILE_BYTES");
  assert.equal(nearestName("MCP_SANDBOXX__MAX_FILE_BYTES", KNOWN), "MCP_SANDBOX__MAX_FILE_BYTES");
  assert.equal(nearestName("MCP_SANDBOX_MAX_FILE_BYTES", KNOWN), "MCP_SANDBOX__MAX_FILE_BYTES");
  assert.equal(nearestName("MCP_ENVIROMENT", KNOWN), "MCP_ENVIRONMENT");
  assert.equal(nearestName("MCP_LOG__LEVLE", KNOWN), "MCP_LOG__LEVEL");
});

Deno.test("suggest: comparison ignores the case of the given name", () => {
  assert.equal(nearestName("mcp_log__level", KNOWN), "MCP_LOG__LEVEL");
});

Deno.test("suggest: unrelated names get no suggestion", () => {
  for (const name of ["MCP_PROXY_URL", "MCP_API_KEY", "MCP_FOO", "MCP_FILE_BYTES__MAX_SANDBOX"]) {
    assert.equal(nearestName(name, KNOWN), undefined, name);
  }
  assert.equal(nearestName("anything", []), undefined);
});
