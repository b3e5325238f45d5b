/**
 * JSON Schema 2020-12 with a real validator (ajv, the one the SDKs use):
 * whether a schema compiles, and whether a value matches it. `$ref`s to
 * other documents are never fetched (the specification forbids fetching
 * them by default).
 *
 * @module
 */

import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";

/** A compiled schema, or why it did not compile. */
export type Compiled =
  | { readonly ok: true; readonly validate: (value: unknown) => string | undefined }
  | { readonly ok: false; readonly error: string }
  | { readonly ok: "unsupported"; readonly dialect: string };

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020_12 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

/**
 * Compiles `schema` as JSON Schema 2020-12 (no `$schema`, or 2020-12 named)
 * or draft-07 (named); any other dialect is reported as unsupported.
 */
export function compileSchema(schema: unknown): Compiled {
  const dialect = schema !== null && typeof schema === "object"
    ? (schema as Record<string, unknown>).$schema
    : undefined;
  const options = { strict: false, allErrors: true, validateFormats: false };
  // A fresh validator per schema: one schema's $id cannot clash with another's.
  let ajv;
  if (dialect === undefined || (typeof dialect === "string" && DRAFT_2020_12.test(dialect))) {
    ajv = new Ajv2020(options);
  } else if (typeof dialect === "string" && DRAFT_07.test(dialect)) {
    ajv = new Ajv(options);
  } else {
    return { ok: "unsupported", dialect: String(dialect) };
  }
  try {
    const validate = ajv.compile(schema as Record<string, unknown>);
    return {
      ok: true,
      validate: (value) => {
        if (validate(value)) return undefined;
        return (validate.errors ?? []).slice(0, 3)
          .map((e: { instancePath: string; message?: string }) =>
            `${e.instancePath || "/"} ${e.message ?? "is invalid"}`
          ).join("; ");
      },
    };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
