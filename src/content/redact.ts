/**
 * Redaction as the pipeline applies it: every string of a result goes
 * through the secret finder (`src/secrets/`), each secret is replaced by
 * `[redacted:RULE]` (only the secret: names, hosts and users around it stay
 * readable), and what was replaced is counted by rule for the audit.
 *
 * @module
 */

import { redactSecretsEnding, type RuleCounts } from "../secrets/find.ts";
import { secretMarker } from "../secrets/cut.ts";
import type { RedactionAudit } from "../contract/envelope.ts";
import type { RawOk, TextPart, WithheldSecret } from "../contract/result.ts";

export type { RedactionAudit };

/** A redacted string, and whether it ends with a line feed, known without reading it (ADR-127). */
interface RedactedText {
  readonly text: string;
  readonly endsWithNewline: boolean;
}

/** What redacting one string gave: the text, and how many secrets of each rule it replaced. */
interface Redacted extends RedactedText {
  readonly counts: readonly (readonly [string, number])[];
}

/**
 * Strings already redacted during one response, shared by the redactors of its two halves:
 * the text and structured halves are two renderings of the same result and often hold the
 * same strings (a file's text in a part and in `content`), which are then searched once
 * (ADR-071). Each half still counts what it shows, so the audit is unchanged. Strings longer
 * than V8 hashes by content are hashed by length alone: at most a few per length are kept, so
 * a result of many equal-length strings cannot make the lookups quadratic.
 */
export class RedactionMemo {
  readonly #seen = new Map<string, Redacted>();
  readonly #longByLength = new Map<number, number>();

  /** `text` redacted, from the memo when it was seen before. */
  redact(text: string): Redacted {
    const known = this.#seen.get(text);
    if (known) return known;
    const counts: RuleCounts = new Map();
    const { text: redacted, endsWithNewline } = redactSecretsEnding(text, counts);
    const done: Redacted = { text: redacted, endsWithNewline, counts: [...counts] };
    if (text.length < LONG_STRING) this.#seen.set(text, done);
    else {
      const same = this.#longByLength.get(text.length) ?? 0;
      if (same < MAX_LONG_PER_LENGTH) {
        this.#longByLength.set(text.length, same + 1);
        this.#seen.set(text, done);
      }
    }
    return done;
  }
}

/** V8 hashes strings at least this long by their length only (`String::kMaxHashCalcLength`). */
const LONG_STRING = 16_384;
const MAX_LONG_PER_LENGTH = 4;

/** Accumulates redactions across the strings of one half of one response. */
export class Redactor {
  readonly counts: RuleCounts = new Map();
  readonly #memo: RedactionMemo;

  /** `memo`: shared with the redactor of the other half of the same response. */
  constructor(memo: RedactionMemo = new RedactionMemo()) {
    this.#memo = memo;
  }

  /** Returns `text` with every secret replaced, counting each. */
  redact(text: string): string {
    return this.redactEnding(text).text;
  }

  /** {@linkcode redact}, and whether the result ends with a line feed (ADR-127). */
  redactEnding(text: string): RedactedText {
    const done = this.#memo.redact(text);
    for (const [rule, n] of done.counts) this.counts.set(rule, (this.counts.get(rule) ?? 0) + n);
    return done;
  }

  /** Applies {@linkcode redact} to every string inside a JSON-like value. */
  redactDeep<T>(value: T): T {
    if (typeof value === "string") return this.redact(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.redactDeep(v)) as T;
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.redactDeep(v);
      return out as T;
    }
    return value;
  }
}

/** A successful result's two halves once redacted, with the audit. */
export interface RedactedResult {
  /** The parts' texts (untrusted parts withheld from and redacted; others as they were). */
  readonly texts: string[];
  /**
   * Per part, whether its text in `texts` ends with a line feed, for the fence (ADR-127): known
   * from the redaction without reading the text, which on a flood of secrets is a rope that any
   * read of a character flattens.
   */
  readonly endsWithNewline: boolean[];
  readonly structured: Record<string, unknown>;
  readonly redaction: RedactionAudit;
}

/**
 * Everything redaction does to a successful result: the secrets the tool found in the whole
 * source are withheld where it says they lie (ADR-060), then the untrusted parts' texts and
 * every string of the structured half are redacted, the two halves sharing one memo, and the
 * audit takes the larger count per rule (a secret shown in both halves is one secret) plus each
 * withheld secret once. With redaction off, the result is returned as it came.
 */
export function redactResult(raw: RawOk, redactSecrets: boolean): RedactedResult {
  if (!redactSecrets) {
    return {
      texts: raw.parts.map((part) => part.text),
      endsWithNewline: raw.parts.map((part) => part.text.endsWith("\n")),
      structured: raw.structured,
      redaction: mergeCounts(new Map(), new Map()),
    };
  }
  const memo = new RedactionMemo();
  const textRedactor = new Redactor(memo);
  const structuredRedactor = new Redactor(memo);
  const withheld = raw.withheld ?? [];
  const applied = applyWithheld(raw.parts, raw.structured, withheld);
  const shown: RedactedText[] = raw.parts.map((part, i) =>
    part.untrusted
      ? textRedactor.redactEnding(applied.texts[i])
      : { text: part.text, endsWithNewline: part.text.endsWith("\n") }
  );
  const texts = shown.map((part) => part.text);
  const endsWithNewline = shown.map((part) => part.endsWithNewline);
  const structured = structuredRedactor.redactDeep(applied.structured);
  const withheldCounts = new Map<string, number>();
  for (const w of withheld) withheldCounts.set(w.rule, (withheldCounts.get(w.rule) ?? 0) + 1);
  const redaction = mergeCounts(textRedactor.counts, structuredRedactor.counts, withheldCounts);
  return { texts, endsWithNewline, structured, redaction };
}

/**
 * One audit from the two halves of a response: the larger count per rule
 * (a secret shown in both halves is one secret), plus `extra` counted once.
 */
export function mergeCounts(
  a: RuleCounts,
  b: RuleCounts,
  extra: RuleCounts = new Map(),
): RedactionAudit {
  const counts = new Map<string, number>();
  for (const [rule, n] of [...a, ...b]) counts.set(rule, Math.max(counts.get(rule) ?? 0, n));
  for (const [rule, n] of extra) counts.set(rule, (counts.get(rule) ?? 0) + n);
  const rules = [...counts].sort(([x], [y]) => x.localeCompare(y)).map(([rule, count]) => ({
    rule,
    count,
  }));
  const count = rules.reduce((sum, r) => sum + r.count, 0);
  return { applied: count > 0, count, rules };
}

interface Splice {
  readonly start: number;
  readonly end: number;
  readonly marker: string;
}

/**
 * The texts of `parts` and a copy of `structured` with every withheld piece
 * replaced by its rule's marker where the tool says it lies, and nowhere
 * else: a piece as short as `AB==` cannot rewrite, or inflate, other text
 * (ADR-060). A piece that does not lie inside a string of the result is the
 * tool's bug; it throws rather than let the secret through.
 */
export function applyWithheld(
  parts: readonly TextPart[],
  structured: Record<string, unknown>,
  withheld: readonly WithheldSecret[],
): { texts: string[]; structured: Record<string, unknown> } {
  const inParts = new Map<number, Splice[]>();
  const inFields = new Map<string, { path: readonly (string | number)[]; splices: Splice[] }>();
  for (const secret of withheld) {
    const marker = secretMarker(secret.rule);
    for (const { at, start, end } of secret.pieces) {
      const splice = { start, end, marker };
      if ("part" in at) {
        const list = inParts.get(at.part) ?? [];
        list.push(splice);
        inParts.set(at.part, list);
      } else {
        const key = JSON.stringify(at.field);
        const entry = inFields.get(key) ?? { path: at.field, splices: [] };
        entry.splices.push(splice);
        inFields.set(key, entry);
      }
    }
  }
  for (const index of inParts.keys()) {
    if (!parts[index]?.untrusted) throw new Error(`withheld piece in part ${index}, not untrusted`);
  }
  const texts = parts.map((part, i) => spliceText(part.text, inParts.get(i)));
  if (inFields.size === 0) return { texts, structured };
  const copy = structuredClone(structured);
  for (const { path, splices } of inFields.values()) {
    let parent: unknown = copy;
    for (const key of path.slice(0, -1)) {
      parent = (parent as Record<string | number, unknown>)?.[key];
    }
    const last = path[path.length - 1];
    const holder = parent as Record<string | number, unknown> | undefined;
    const value = holder?.[last];
    if (typeof value !== "string") {
      throw new Error(`withheld piece at ${JSON.stringify(path)}, not a string`);
    }
    holder![last] = spliceText(value, splices);
  }
  return { texts, structured: copy };
}

/** `text` with each splice's characters replaced by its marker (overlapping splices merged). */
function spliceText(text: string, splices: Splice[] | undefined): string {
  if (!splices || splices.length === 0) return text;
  splices.sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const { start, end, marker } of splices) {
    if (
      !(Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start < end &&
        end <= text.length)
    ) {
      throw new Error(`withheld piece ${start}..${end} outside a string of ${text.length}`);
    }
    if (end <= at) continue; // inside a piece already replaced
    if (start >= at) out += text.slice(at, start) + marker;
    at = end; // (a piece overlapping the previous one extends it)
  }
  return out + text.slice(at);
}
