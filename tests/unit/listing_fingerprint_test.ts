import assert from "node:assert/strict";
import { namesFingerprint } from "../../src/access/workspace.ts";

Deno.test("listing fingerprint: the same names give the same fingerprint, whatever the checkout", () => {
  assert.equal(namesFingerprint(["a", "b", "c"]), namesFingerprint(["a", "b", "c"]));
});

Deno.test("listing fingerprint: an added, removed or renamed entry changes it", () => {
  const base = namesFingerprint(["a.txt", "b.txt", "c.txt"]);
  assert.notEqual(namesFingerprint(["a.txt", "b.txt", "c.txt", "d.txt"]), base);
  assert.notEqual(namesFingerprint(["a.txt", "b.txt"]), base);
  assert.notEqual(namesFingerprint(["a.txt", "b.txt", "x.txt"]), base, "rename, same count");
  // Names are separated: moving a character between neighbours is a change too.
  assert.notEqual(namesFingerprint(["ab", "c"]), namesFingerprint(["a", "bc"]));
  assert.notEqual(namesFingerprint([]), namesFingerprint([""]));
});
