import assert from "node:assert/strict";
import {
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSION,
  SERVER_VERSION,
  SUPPORTED_VERSIONS,
} from "../../src/version.ts";

Deno.test("version: SERVER_VERSION equals deno.json's version", async () => {
  const denoJson = JSON.parse(
    await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
  );
  assert.equal(typeof denoJson.version, "string");
  assert.equal(SERVER_VERSION, denoJson.version);
  assert.match(SERVER_VERSION, /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
});

Deno.test("version: the modern revision comes first, then only older ones", () => {
  assert.equal(SUPPORTED_VERSIONS[0], MODERN_PROTOCOL_VERSION);
  assert.deepEqual(LEGACY_PROTOCOL_VERSIONS, SUPPORTED_VERSIONS.slice(1));
  assert.ok(LEGACY_PROTOCOL_VERSIONS.length > 0);
  for (const v of LEGACY_PROTOCOL_VERSIONS) {
    assert.match(v, /^\d{4}-\d{2}-\d{2}$/);
    assert.ok(v < MODERN_PROTOCOL_VERSION, v);
  }
});

Deno.test("version: the pinned Deno (deno.json engines) is the one running and the one .ci/run installs", async () => {
  const denoJson = JSON.parse(
    await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
  );
  const pinned: string = denoJson.engines?.deno;
  assert.match(pinned, /^\d+\.\d+\.\d+$/);
  assert.equal(Deno.version.deno, pinned, "run the tests with the pinned Deno");
  const ciRun = await Deno.readTextFile(new URL("../../.ci/run", import.meta.url));
  assert.match(ciRun, new RegExp(`DENO_VERSION="${pinned.replaceAll(".", "\\.")}"`));
});
