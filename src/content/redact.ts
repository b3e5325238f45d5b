/**
 * Redaction as the pipeline applies it: every string of a result goes
 * through the secret finder (`src/secrets/`), each secret is replaced by
 * `[redacted:RULE]` (only the secret: names, hosts and users around it stay
 * readable), and what was replaced is counted by rule for the audit.
 *
 * @module
 */

import { redactSecrets, type RuleCounts } from "../secrets/find.ts";
import type { RedactionAudit } from "../contract/envelope.ts";

export type { RedactionAudit };

/** Accumulates redactions across the strings of one half of one response. */
export class Redactor {
  readonly counts: RuleCounts = new Map();

  /** Returns `text` with every secret replaced, counting each. */
  redact(text: string): string {
    return redactSecrets(text, this.counts);
  }

  /** Replaces literal fragments of secrets found elsewhere (see `RawOk.withheld`). */
  withhold(text: string, fragments: readonly string[], rule: string): string {
    let out = text;
    for (const fragment of fragments) {
      if (fragment.length > 0 && out.includes(fragment)) {
        out = out.split(fragment).join(`[redacted:${rule}]`);
      }
    }
    return out;
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
