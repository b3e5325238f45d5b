/**
 * Redaction as the pipeline applies it: every string of a result goes
 * through the secret finder (`src/secrets/`), each secret is replaced by
 * `[redacted:RULE]` (only the secret: names, hosts and users around it stay
 * readable), and what was replaced is counted by rule for the audit.
 *
 * @module
 */

import { redactSecrets, type RuleCounts } from "../secrets/find.ts";
import { secretMarker } from "../secrets/cut.ts";
import type { RedactionAudit } from "../contract/envelope.ts";
import type { TextPart, WithheldSecret } from "../contract/result.ts";

export type { RedactionAudit };

/** Accumulates redactions across the strings of one half of one response. */
export class Redactor {
  readonly counts: RuleCounts = new Map();

  /** Returns `text` with every secret replaced, counting each. */
  redact(text: string): string {
    return redactSecrets(text, this.counts);
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
