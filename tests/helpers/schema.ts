/**
 * JSON Schema 2020-12 validation of tool results, with the validator both
 * SDKs use (ajv; ADR-020). The dispatcher checks results with the zod
 * object a schema is generated from; clients check them against the JSON
 * Schema we publish. This checks what clients check, so a result our zod
 * accepts but a client would reject (or the other way round) fails a test.
 *
 * `assertConformingResult` is the one check every test result goes through
 * (installed by `startServer` and `callDirect` in fixtures.ts and by the
 * end-to-end helpers in tests/e2e/support.ts).
 *
 * @module
 */

import { Ajv2020, type ValidateFunction } from "ajv/dist/2020";
import addFormatsModule from "ajv-formats";
import type { Tool } from "@modelcontextprotocol/server";
import { shapedResultChars } from "../../src/contract/budget.ts";
import { REFUSAL_META_KEY } from "../../src/contract/envelope.ts";
import { REFUSAL_CODES } from "../../src/contract/refusal.ts";
import { publishedTools } from "../../src/tools/registry.ts";

// ajv-formats is CommonJS: its default export is the plugin function itself.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * A fresh ajv in strict mode for JSON Schema 2020-12, with the string
 * formats the SDKs register. Strict mode also rejects schema keywords ajv
 * does not know, so a malformed published schema fails to compile here.
 */
export function newValidator(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: true });
  addFormats(ajv);
  return ajv;
}

/** `schema` compiled under JSON Schema 2020-12 (throws when it does not compile). */
export function compileSchema(schema: object, ajv: Ajv2020 = newValidator()): ValidateFunction {
  return ajv.compile(schema);
}

/** The problems ajv found, one line each (empty when `validate` passed). */
export function schemaErrors(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map((e) =>
    `${e.instancePath || "(root)"} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`
  );
}

/** Compiled output schemas of the published tools, by name (compiled once, on first use). */
let outputValidators: Map<string, ValidateFunction> | undefined;

/** The published definition and compiled output schema of tool `name`. */
function outputValidator(name: string): ValidateFunction | undefined {
  if (!outputValidators) {
    const ajv = newValidator();
    outputValidators = new Map(
      publishedTools().map((tool: Tool) => [tool.name, compileSchema(tool.outputSchema!, ajv)]),
    );
  }
  return outputValidators.get(name);
}

/** A tool result as any client hands it over. */
export interface ResultLike {
  isError?: boolean;
  content?: unknown[];
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
}

/** What a result is checked against. */
export interface ConformanceLimits {
  /** The response budget in force (`MCP_SERVER__MAX_RESULT_CHARS`). */
  readonly maxResultChars: number;
}

const REFUSAL_TEXT = /^Refused \(([a-z_]+)\): [^\n]*\nRemedy: [^\n]+$/;

/**
 * Why `result` of tool `name` breaks the result contract (empty when it
 * keeps it): a success must carry `structuredContent` that validates
 * against the tool's published `outputSchema` (the specification's MUST,
 * and what the SDK v1 client and the Inspector enforce); a refusal must
 * carry none, and say its code and remedy as ADR-013 writes them; every
 * result must fit the response budget.
 */
export function resultProblems(
  name: string,
  result: ResultLike,
  limits: ConformanceLimits,
): string[] {
  const validate = outputValidator(name);
  if (!validate) return [`no published tool is called ${JSON.stringify(name)}`];
  const problems: string[] = [];
  if (!Array.isArray(result.content)) problems.push("content is not an array");
  if (result.isError === true) {
    if (result.structuredContent !== undefined) {
      problems.push("a refusal carries structuredContent (ADR-013: it must not)");
    }
    const texts = (result.content ?? []).map((b) => (b as { text?: unknown }).text);
    const text = texts.length === 1 && typeof texts[0] === "string" ? texts[0] : undefined;
    const code = text?.match(REFUSAL_TEXT)?.[1];
    if (!code || !(REFUSAL_CODES as readonly string[]).includes(code)) {
      problems.push(`a refusal's text is not "Refused (<code>): …\\nRemedy: …": ${texts}`);
    }
    const meta = result._meta?.[REFUSAL_META_KEY] as { error?: unknown } | undefined;
    if (meta?.error !== code) problems.push(`_meta["${REFUSAL_META_KEY}"] does not say ${code}`);
  } else if (result.structuredContent === undefined) {
    problems.push("a successful result has no structuredContent, but the tool has an outputSchema");
  } else if (!validate(result.structuredContent)) {
    problems.push(
      ...schemaErrors(validate).map((e) => `structuredContent does not match outputSchema: ${e}`),
    );
  }
  const chars = shapedResultChars(result);
  if (chars > limits.maxResultChars) {
    problems.push(
      `the result holds ${chars} characters, over the budget of ${limits.maxResultChars}`,
    );
  }
  return problems;
}

/** Throws, naming every problem, unless `result` keeps the result contract of tool `name`. */
export function assertConformingResult(
  name: string,
  result: ResultLike,
  limits: ConformanceLimits,
): void {
  const problems = resultProblems(name, result, limits);
  if (problems.length === 0) return;
  const message = `tool ${name} returned a result that breaks the result contract:\n  ` +
    problems.join("\n  ");
  // Also on stderr: when the result was produced under the protocol layer, the thrown
  // error becomes a -32603 there and this line is where the reason is.
  console.error(message);
  throw new Error(message);
}
