/**
 * The keyword pass keeps its list of hits from one text to the next (ADR-135): what a text's
 * redaction finds must not depend on the texts redacted before it. Each text is compared with
 * the finder before ADR-070 (tests/helpers/secrets_reference.ts), in sequences where a flood
 * that grew the list comes before texts with fewer hits, other hits or none.
 */

import assert from "node:assert/strict";
import { redactSecrets } from "../../src/secrets/find.ts";
import { fakeSecret } from "../../src/secrets/rule.ts";
import * as reference from "../helpers/secrets_reference.ts";
import { mulberry32 } from "../helpers/random.ts";
import { sameAsReference } from "../helpers/secrets_oracle.ts";

const token = (seed: string) => fakeSecret(seed, 40, "abcdefghijklmnopqrstuvwxyz0123456789");
const ghp = (seed: string) => "ghp_" + fakeSecret(seed, 36);

Deno.test("redact-hits: attack — a flood's kept hits cannot stand in for the next text's keywords", () => {
  // A flood of 20,000 `Authorization:` lines grows the list; the texts after it hold their
  // keywords and secrets elsewhere (or none), so a hit left from the flood, or a count not
  // reset, would redact a wrong span or miss the real one.
  const flood = `Authorization: Bearer ${token("hits-a")}\n`.repeat(20_000);
  const spans = sameAsReference(flood, "the flood");
  assert.equal(spans.length, 20_000);
  const after = [
    "no keyword at all, only prose\n".repeat(50),
    `x = 1\nAuthorization: Bearer ${token("hits-b")}\n`,
    `${" ".repeat(5000)}password = "${token("hits-c")}"\n`,
    "Authorization: Bearer short\n".repeat(3),
    `${ghp("hits-d")}\n`,
    "",
  ];
  for (const [i, text] of after.entries()) {
    const found = sameAsReference(text, `text ${i} after the flood`);
    if (i === 1 || i === 2 || i === 4) assert.equal(found.length, 1, `text ${i}`);
    if (i === 0 || i === 3 || i === 5) assert.equal(found.length, 0, `text ${i}`);
  }
});

Deno.test("redact-hits: attack — random sequences of floods and short texts redact as each alone", () => {
  const next = mulberry32(135);
  const pieces = [
    () => `Authorization: Bearer ${token(`r${next()}`)}\n`,
    () => "Authorization: x\n",
    () => `token = ${token(`t${next()}`)}\n`,
    () => "token = changeme\n",
    () => `${ghp(`g${next()}`)} `,
    () => "plain words and more plain words\n",
    () => "authorizationauthorization ",
  ];
  for (let n = 0; n < 40; n++) {
    // Every fourth text is long (thousands of hits), the others short.
    const count = n % 4 === 0 ? 2000 + Math.floor(next() * 3000) : Math.floor(next() * 12);
    let text = "";
    for (let k = 0; k < count; k++) text += pieces[Math.floor(next() * pieces.length)]();
    const expected = reference.redactSecrets(text);
    assert.equal(redactSecrets(text), expected, `text ${n} (${count} pieces)`);
  }
});
