/**
 * Credential redaction: finds secrets in text that is about to leave the
 * server and replaces each with `[REDACTED:<kind>]`, counting what it
 * replaced so the result can carry an audit. The rules here are the
 * high-confidence formats (a match is almost never anything but a secret);
 * the content-pipeline issue extends them.
 *
 * @module
 */

/** One redaction rule: a named credential format. */
export interface RedactionRule {
  readonly kind: string;
  readonly pattern: RegExp;
}

/** What was redacted from one response, by kind. Never the secret itself. */
export interface RedactionAudit {
  readonly kind: string;
  readonly count: number;
}

/** The built-in rules. Every pattern is global and linear-time (no nested quantifiers). */
export const REDACTION_RULES: readonly RedactionRule[] = [
  {
    kind: "private_key",
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,16384}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g,
  },
  { kind: "aws_access_key_id", pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  {
    kind: "github_token",
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g,
  },
  { kind: "gitlab_token", pattern: /\bglpat-[A-Za-z0-9_-]{20,64}\b/g },
  { kind: "slack_token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,255}\b/g },
  { kind: "stripe_secret_key", pattern: /\b(?:sk|rk)_live_[A-Za-z0-9]{24,255}\b/g },
  { kind: "google_api_key", pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: "npm_token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  {
    kind: "openai_api_key",
    pattern: /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,255}T3BlbkFJ[A-Za-z0-9_-]{20,255}\b/g,
  },
  { kind: "anthropic_api_key", pattern: /\bsk-ant-[A-Za-z0-9_-]{32,255}\b/g },
  {
    kind: "jwt",
    pattern: /\beyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{16,1024}\b/g,
  },
];

/** Accumulates redactions across the strings of one response. */
export class Redactor {
  readonly #rules: readonly RedactionRule[];
  readonly #counts = new Map<string, number>();

  constructor(rules: readonly RedactionRule[] = REDACTION_RULES) {
    this.#rules = rules;
  }

  /** Returns `text` with every match replaced, counting each. */
  redact(text: string): string {
    let out = text;
    for (const rule of this.#rules) {
      out = out.replace(rule.pattern, () => {
        this.#counts.set(rule.kind, (this.#counts.get(rule.kind) ?? 0) + 1);
        return `[REDACTED:${rule.kind}]`;
      });
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

  /** What has been redacted so far, sorted by kind. */
  audit(): RedactionAudit[] {
    return [...this.#counts].sort(([a], [b]) => a.localeCompare(b)).map(([kind, count]) => ({
      kind,
      count,
    }));
  }
}
