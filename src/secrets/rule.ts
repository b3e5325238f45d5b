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
  /**
   * What must come right after the keyword for the pattern to have a chance: a cheap reject
   * tried before the regex (ADR-070). Each step is a run of one class of characters (greedy,
   * `min` to `max` long) or a literal; the first character of a step must not belong to the
   * run before it, so the greedy reading is the only one. The steps may accept more than the
   * pattern (a shorter `min`, a longer `max`, a wider class), never less: a test runs both on
   * hostile text and checks that every match the pattern makes passes the steps.
   */
  readonly follows?: readonly FollowStep[];
  /** Samples, built on demand. */
  readonly samples: () => RuleSamples;
}

/** One step of a rule's {@linkcode PatternRule.follows}. */
export type FollowStep =
  | { readonly chars: RegExp; readonly min: number; readonly max?: number }
  | { readonly literal: string };

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

const PRESENT = new Uint32Array(4);

/** Texts up to this long have their `p·log2(p)` terms kept in a table (NaN: not yet computed). */
const TERM_MAX = 128;
const TERMS = new Float64Array((TERM_MAX + 1) * (TERM_MAX + 1)).fill(NaN);

/** `p·log2(p)` for `p = count / n`, computed by the same expression every time (so sums agree). */
function term(count: number, n: number): number {
  if (n > TERM_MAX) {
    const p = count / n;
    return p * Math.log2(p);
  }
  const i = n * (TERM_MAX + 1) + count;
  let t = TERMS[i];
  if (t !== t) {
    const p = count / n;
    TERMS[i] = t = p * Math.log2(p);
  }
  return t;
}

/**
 * Shannon entropy of `text` in bits per character. No map unless a character is not ASCII,
 * and only the characters present are summed (in character order, as a pass over all 128
 * would): it runs once per candidate secret, thousands of times on a flood.
 */
export function shannonEntropy(text: string): number {
  const n = text.length;
  if (n === 0) return 0;
  let wide: Map<number, number> | undefined;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      ASCII_COUNTS[c]++;
      PRESENT[c >> 5] |= 1 << (c & 31);
    } else (wide ??= new Map()).set(c, (wide.get(c) ?? 0) + 1);
  }
  let bits = 0;
  for (let w = 0; w < 4; w++) {
    let set = PRESENT[w];
    PRESENT[w] = 0;
    while (set !== 0) {
      const low = set & -set;
      const c = (w << 5) + (31 - Math.clz32(low));
      set ^= low;
      bits -= term(ASCII_COUNTS[c], n);
      ASCII_COUNTS[c] = 0;
    }
  }
  if (wide) {
    for (const count of wide.values()) {
      const p = count / n;
      bits -= p * Math.log2(p);
    }
  }
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
 * The run test is a loop, not a backreference and two copies: it runs on every
 * candidate of a flood.
 */
export function isPlaceholder(secret: string): boolean {
  if (PLACEHOLDER_WORDS.test(secret) || PLACEHOLDER_VALUES.test(secret)) return true;
  return isOneCharacterRun(secret);
}

function isLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/**
 * Whether `secret`, past a short `ab_` / `abcd-` prefix (2 to 8 letters and a `_` or `-`) and
 * with its `_` and `-` left out, is one character repeated (not a line terminator, as `.`).
 */
function isOneCharacterRun(secret: string): boolean {
  let letters = 0;
  while (letters < secret.length && isLetter(secret.charCodeAt(letters))) letters++;
  const sep = secret.charCodeAt(letters);
  const from = letters >= 2 && letters <= 8 && (sep === 0x5f || sep === 0x2d) ? letters + 1 : 0;
  if (from >= secret.length) return false;
  let first = -1;
  for (let i = from; i < secret.length; i++) {
    const c = secret.charCodeAt(i);
    if (c === 0x5f || c === 0x2d) continue;
    if (first < 0) {
      if (c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029) return false;
      first = c;
    } else if (c !== first) return false;
  }
  return first >= 0;
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
