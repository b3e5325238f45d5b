/**
 * The walker asks the same denylist as containment, path patterns
 * included: a credential file that is harmless by name alone
 * (`gh/hosts.yml`, `.m2/settings.xml`) is never searched or parsed.
 *
 * @module
 */

import assert from "node:assert/strict";
import { callDirect, directContext, makeWorkspace } from "../helpers/fixtures.ts";

const SECRET = "oauth_token: SEARCHABLE-CREDENTIAL-MARKER";

Deno.test("attack: search_code over the workspace finds nothing inside path-pattern credential files (gh/hosts.yml, .m2/settings.xml)", async () => {
  await using ws = await makeWorkspace({
    "cfg/gh/hosts.yml": `${SECRET}\n`,
    "home/.m2/settings.xml": `<password>${SECRET}</password>\n`,
    "notes.txt": "SEARCHABLE-CREDENTIAL-MARKER mentioned in an ordinary file\n",
  });
  const ctx = directContext(ws.root);
  const result = await callDirect(ctx, "search_code", {
    pattern: "SEARCHABLE-CREDENTIAL-MARKER",
    output_mode: "files_with_matches",
  });
  const text = JSON.stringify(result);
  assert.ok(text.includes("notes.txt"), "the ordinary file is found: the search ran");
  assert.ok(!text.includes("hosts.yml"), "gh/hosts.yml is never searched");
  assert.ok(!text.includes("settings.xml"), ".m2/settings.xml is never searched");
  assert.ok(!text.includes("oauth_token"), "no credential text is returned");
});
