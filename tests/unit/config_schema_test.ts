import assert from "node:assert/strict";
import { SETTINGS } from "../../src/config/schema.ts";

Deno.test("schema: every setting is named MCP_<SECTION>__<FIELD> (or MCP_ENVIRONMENT) and unique", () => {
  const envs = SETTINGS.map((s) => s.env);
  const keys = SETTINGS.map((s) => s.key);
  assert.equal(new Set(envs).size, envs.length);
  assert.equal(new Set(keys).size, keys.length);
  for (const env of envs) {
    assert.match(env, /^MCP_(ENVIRONMENT|[A-Z]+__[A-Z_]+)$/, env);
  }
});

Deno.test("schema: every default lies inside its own kind", () => {
  for (const spec of SETTINGS) {
    const { kind, defaultText } = spec;
    switch (kind.type) {
      case "boolean":
        assert.ok(["true", "false"].includes(defaultText), spec.env);
        break;
      case "integer": {
        const n = Number(defaultText);
        assert.ok(Number.isSafeInteger(n) && n >= kind.min && n <= kind.max, spec.env);
        assert.ok(kind.min <= kind.max, spec.env);
        break;
      }
      case "enum":
        assert.ok(kind.values.includes(defaultText), spec.env);
        break;
      case "path":
        assert.equal(defaultText, "", spec.env);
        break;
      case "host":
        assert.match(defaultText, /^[a-z0-9.:]+$/, spec.env);
        break;
      case "secret":
        // A secret never has a default: unset means "none".
        assert.equal(defaultText, "", spec.env);
        break;
      case "list": {
        const items = defaultText.split(",").filter((s) => s !== "");
        assert.ok(items.length <= kind.maxItems, spec.env);
        for (const item of items) {
          assert.ok(item.length <= kind.maxItemLength && !item.includes("/"), spec.env);
        }
        break;
      }
    }
    assert.ok(spec.doc.length > 0 && !spec.doc.includes("\n"), `${spec.env} has a one-line doc`);
  }
});
