/**
 * What a secret rule is: data in the manner of gitleaks'
 * `cmd/generate/config/rules/*.go` — an id (the label `[redacted:ID]`
 * shows), a description, keywords for a cheap `indexOf` prefilter, a sticky
 * pattern tried only where a keyword occurs, an entropy floor where the
 * rule is generic, and must-match / must-not-match samples checked by a
 * test. This module imports nothing.
 *
 * Linear time is a property of the shape, checked by a test and a
 * benchmark on hostile input: a pattern is tried once per keyword
 * occurrence, sticky (`y`) at that occurrence, and every quantifier in it is
 * bounded; `notAfter` forbids a start inside a run of the rule's own
 * characters, so the runs that different attempts scan are disjoint.
 *
 * @module
 */

/** Samples beside a rule: built at test time, so the source holds no secret-shaped literal. */
export interface RuleSamples {
  /** Text in which the rule must find exactly one secret. */
  readonly match: readonly string[];
  /** Text in which no rule may find anything (near misses, placeholders). */
  readonly noMatch: readonly string[];
}

/** A rule matched by a sticky pattern at each keyword occurrence. */
export interface PatternRule {
  /** Stable id, shown as `[redacted:ID]` and in the audit. */
  readonly id: string;
  /** What the rule finds, for docs and `doctor`. */
  readonly description: string;
  /**
   * Literal strings one of which starts every match; they are searched with
   * `indexOf` (lowercase ones in a lowercased copy when `ignoreCase`).
   */
  readonly keywords: readonly string[];
  /** Whether keywords and pattern ignore ASCII case. */
  readonly ignoreCase?: boolean;
  /**
   * Sticky pattern tried at a keyword occurrence. The secret is the named
   * group `secret` (its last occurrence in the match), or the whole match.
   * Every quantifier must be bounded, and the pattern must compile in V8's
   * linear-time engine (no lookaround, no backreference): a test checks both.
   */
  readonly pattern: RegExp;
  /** A character before the keyword that forbids a match there (the token's own alphabet). */
  readonly notAfter?: RegExp;
  /** A character right after the match that forbids it (the token would go on). */
  readonly notBefore?: RegExp;
  /** Shannon entropy floor of the secret, in bits per character (generic rules). */
  readonly minEntropy?: number;
  /** Extra check on the secret (for example: not a code reference). */
  readonly accept?: (secret: string) => boolean;
  /** Samples, built on demand. */
  readonly samples: () => RuleSamples;
}

/** A rule that finds a delimited block (PEM private keys) with its own linear scan. */
export interface BlockRule {
  readonly id: string;
  readonly description: string;
  readonly keywords: readonly string[];
  /** Sticky pattern of the opening line at a keyword occurrence. */
  readonly begin: RegExp;
  /** Sticky pattern of the closing line. */
  readonly end: RegExp;
  /** Literal that starts the closing line. */
  readonly endKeyword: string;
  /** The longest body followed before a block counts as unterminated. */
  readonly maxBody: number;
  readonly samples: () => RuleSamples;
}

/** Any secret rule. */
export type SecretRule = PatternRule | BlockRule;

/** Whether a rule is a block rule. */
export function isBlockRule(rule: SecretRule): rule is BlockRule {
  return "begin" in rule;
}

const ASCII_COUNTS = new Uint32Array(128);

/** Shannon entropy of `text` in bits per character. */
export function shannonEntropy(text: string): number {
  const n = text.length;
  if (n === 0) return 0;
  const counts = new Map<number, number>();
  ASCII_COUNTS.fill(0);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) ASCII_COUNTS[c]++;
    else counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let bits = 0;
  const add = (c: number) => {
    if (c === 0) return;
    const p = c / n;
    bits -= p * Math.log2(p);
  };
  for (let c = 0; c < 128; c++) add(ASCII_COUNTS[c]);
  for (const c of counts.values()) add(c);
  return bits;
}

const PLACEHOLDER_WORDS =
  /example|changeme|change_me|change-me|replace_?me|replace-me|your[_-]?|placeholder|dummy|redacted|sample|insert|xxxx|\*\*\*|\.\.\.|<|>|\$\{|\{\{|%\(|^\$[A-Z_]/i;

const PLACEHOLDER_VALUES =
  /^(?:pass(?:word|wd)?|secret|pwd|admin|root|user|token|test|none|null)$/i;

/**
 * Whether a found value is a placeholder rather than a secret: the words
 * docs use (`changeme`, `REPLACE_ME`, `<your-key>`, `example`), template
 * references (`${TOKEN}`, `{{ secret }}`), runs of one character (`xxxx…`).
 */
export function isPlaceholder(secret: string): boolean {
  if (PLACEHOLDER_WORDS.test(secret) || PLACEHOLDER_VALUES.test(secret)) return true;
  const body = secret.replace(/^[A-Za-z]{2,8}[_-]/, "");
  return body.length > 0 && /^(.)\1*$/.test(body.replace(/[_-]/g, ""));
}

/** A deterministic pseudo-random string over `alphabet`, for samples (never a real secret). */
export function fakeSecret(seed: string, length: number, alphabet = ALNUM): string {
  let state = 2166136261;
  for (const ch of seed) state = Math.imul(state ^ ch.charCodeAt(0), 16777619) >>> 0;
  let out = "";
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out += alphabet[(state >>> 8) % alphabet.length];
  }
  return out;
}

/** Alphabets for samples. */
export const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
export const UPPER_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
export const BASE64 = ALNUM + "+/";
export const HEX = "0123456789abcdef";
