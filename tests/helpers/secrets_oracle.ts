/**
 * The redaction oracle the fast-path tests share: `findSecrets` must find exactly what the
 * reference finder (`secrets_reference.ts`) finds on the same text.
 *
 * @module
 */

import assert from "node:assert/strict";
import { SECRET_RULES } from "../../src/secrets/catalogue.ts";
import { findSecrets, type SecretSpan } from "../../src/secrets/find.ts";
import * as reference from "./secrets_reference.ts";

/** Asserts `findSecrets` equals the reference on `text` (`what` names the case); returns the spans. */
export function sameAsReference(text: string, what: string, rules = SECRET_RULES): SecretSpan[] {
  const now = findSecrets(text, rules);
  assert.deepEqual(
    now,
    reference.findSecrets(text, rules),
    `${what}: ${JSON.stringify(text.slice(-160))}`,
  );
  return now;
}
