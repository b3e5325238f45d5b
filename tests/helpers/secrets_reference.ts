/**
 * The secret finder as it was before ADR-070 (main 21fc7c6), with the entropy and
 * placeholder checks of that version, kept as an oracle: tests/unit/redact_fast_test.ts
 * checks that the faster finder finds exactly what this one does on hostile text.
 *
 * Finding secrets in linear time: one pass per case (over the text, and
 * over a lowercased copy) finds which rules' keywords occur at all and
 * where first; each of those rules' sticky pattern is then tried once at
 * each occurrence of one of its keywords (never at an occurrence inside a run of
 * the token's own characters, see `notAfter`); after a match the search
 * resumes past it. Block rules (PEM keys) follow the body once and resume
 * after it. Overlaps go to the earlier rule. The cost is O(length × rules),
 * checked on hostile input by `scripts/bench_content.ts`.
 *
 * @module
 */

import { SECRET_RULES } from "../../src/secrets/catalogue.ts";
import {
  type BlockRule,
  isBlockRule,
  type PatternRule,
  type SecretRule,
} from "../../src/secrets/rule.ts";

/** One secret found: `text.slice(start, end)` is replaced, labelled with the rule's id. */
export interface SecretSpan {
  readonly start: number;
  readonly end: number;
  readonly rule: string;
}

/** A rule made ready to run: the pattern sticky, `notAfter` as a lookup table. */
interface Prepared {
  readonly re: RegExp;
  /** The keywords as one global alternation (lowercase when the rule ignores case). */
  readonly keywords: RegExp;
  /** ASCII characters that may not precede a match (and so continue a run to skip). */
  readonly notAfter?: Uint8Array;
  /** ASCII characters that may not follow a match. */
  readonly notBefore?: Uint8Array;
}

function asciiTable(re: RegExp | undefined): Uint8Array | undefined {
  if (!re) return undefined;
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) table[c] = re.test(String.fromCharCode(c)) ? 1 : 0;
  return table;
}

const PREPARED = new WeakMap<PatternRule, Prepared>();

function prepared(rule: PatternRule): Prepared {
  let ready = PREPARED.get(rule);
  if (!ready) {
    const flags = new Set([...rule.pattern.flags, "y"]);
    flags.delete("g");
    let notAfter: Uint8Array | undefined;
    if (rule.notAfter) {
      notAfter = new Uint8Array(128);
      for (let c = 0; c < 128; c++) {
        notAfter[c] = rule.notAfter.test(String.fromCharCode(c)) ? 1 : 0;
      }
    }
    ready = {
      re: new RegExp(rule.pattern.source, [...flags].join("")),
      keywords: new RegExp(
        rule.keywords.map((k) => escapeLiteral(rule.ignoreCase ? k.toLowerCase() : k)).join("|"),
        "g",
      ),
      notAfter: asciiTable(rule.notAfter),
      notBefore: asciiTable(rule.notBefore),
    };
    PREPARED.set(rule, ready);
  }
  return ready;
}

function escapeLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&");
}

/** An ASCII-lowercased copy of the same length (so indices map one to one). */
function lowerCopy(text: string): string {
  const lower = text.toLowerCase();
  return lower.length === text.length ? lower : text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/**
 * Where each rule's keywords first occur, found in one pass over the text and one over its
 * lowercased copy for all rules together, instead of one pass per rule: on ordinary code most
 * rules' keywords never occur, and their scans were nearly all of redaction's cost. The pass
 * is one alternation of the keywords not seen yet; at each hit every keyword starting there is
 * noted (so `sk-` and `sk-ant-` at one offset are both seen) and dropped from the alternation,
 * which is rebuilt and resumed one character on, so the text is read once whatever a flood
 * repeats. A rule is then scanned from its first keyword, as before.
 */
function firstHits(
  hay: string,
  keywords: ReadonlyMap<string, readonly number[]>,
  first: number[],
): void {
  const left = new Map(keywords);
  let pos = 0;
  while (left.size > 0) {
    const re = alternationOf([...left.keys()]);
    re.lastIndex = pos;
    const m = re.exec(hay);
    if (!m) return;
    for (const [keyword, rules] of left) {
      if (!hay.startsWith(keyword, m.index)) continue;
      for (const rule of rules) first[rule] = Math.min(first[rule], m.index);
      left.delete(keyword);
    }
    pos = m.index + 1;
  }
}

/** Alternations of keyword sets, compiled once each (the sets a text's hits leave are few). */
const ALTERNATIONS = new Map<string, RegExp>();

function alternationOf(keywords: readonly string[]): RegExp {
  const key = keywords.join("\0");
  let re = ALTERNATIONS.get(key);
  if (!re) {
    if (ALTERNATIONS.size >= 512) ALTERNATIONS.clear();
    re = new RegExp(keywords.map(escapeLiteral).join("|"), "g");
    ALTERNATIONS.set(key, re);
  }
  return re;
}

/** The keywords of a rule set, by case, each with the indexes of the pattern rules it starts. */
const KEYWORDS = new WeakMap<
  readonly SecretRule[],
  { exact: Map<string, number[]>; folded: Map<string, number[]> }
>();

function keywordsOf(rules: readonly SecretRule[]) {
  let ready = KEYWORDS.get(rules);
  if (!ready) {
    ready = { exact: new Map(), folded: new Map() };
    for (const [i, rule] of rules.entries()) {
      if (isBlockRule(rule)) continue;
      for (const k of rule.keywords) {
        const [map, key] = rule.ignoreCase ? [ready.folded, k.toLowerCase()] : [ready.exact, k];
        map.set(key, [...(map.get(key) ?? []), i]);
      }
    }
    KEYWORDS.set(rules, ready);
  }
  return ready;
}

/** Every secret in `text`, sorted by position, none overlapping. */
export function findSecrets(
  text: string,
  rules: readonly SecretRule[] = SECRET_RULES,
): SecretSpan[] {
  const found: SecretSpan[] = [];
  let occupied: Uint8Array | undefined;
  let lower: string | undefined;
  const keywords = keywordsOf(rules);
  const first = rules.map(() => Infinity);
  firstHits(text, keywords.exact, first);
  if (keywords.folded.size > 0) {
    lower = lowerCopy(text);
    firstHits(lower, keywords.folded, first);
  }
  const claim = (start: number, end: number, rule: string) => {
    if (end <= start) return;
    occupied ??= new Uint8Array(text.length);
    for (let i = start; i < end; i++) if (occupied[i]) return;
    occupied.fill(1, start, end);
    found.push({ start, end, rule });
  };
  rules.forEach((rule, i) => {
    if (isBlockRule(rule)) findBlocks(rule, text, claim);
    else if (first[i] !== Infinity) {
      findPattern(rule, text, rule.ignoreCase ? lower! : text, first[i], claim);
    }
  });
  return found.sort((a, b) => a.start - b.start);
}

function continuesRun(table: Uint8Array, c: number): boolean {
  return c < 128 && table[c] === 1;
}

type Claim = (start: number, end: number, rule: string) => void;

function findPattern(
  rule: PatternRule,
  text: string,
  hay: string,
  from: number,
  claim: Claim,
): void {
  const { re, keywords, notAfter, notBefore } = prepared(rule);
  let pos = from;
  for (;;) {
    keywords.lastIndex = pos;
    const hit = keywords.exec(hay);
    if (!hit) return;
    const k = hit.index;
    if (notAfter && k > 0 && continuesRun(notAfter, text.charCodeAt(k - 1))) {
      // Inside a run of the token's own characters: no match can start anywhere in this
      // run, so skip to its end (each run is scanned once, whatever a flood holds).
      let p = k + 1;
      while (p < text.length && continuesRun(notAfter, text.charCodeAt(p))) p++;
      pos = p;
      continue;
    }
    re.lastIndex = k;
    const m = re.exec(text);
    if (!m) {
      pos = k + 1;
      continue;
    }
    pos = k + Math.max(1, m[0].length);
    if (notBefore && continuesRun(notBefore, text.charCodeAt(k + m[0].length))) continue;
    const secret = m.groups?.secret ?? m[0];
    const start = k + (m.groups?.secret === undefined ? 0 : m[0].lastIndexOf(secret));
    const end = start + secret.length;
    if (isPlaceholder(secret)) continue;
    if (rule.minEntropy !== undefined && shannonEntropy(secret) < rule.minEntropy) continue;
    if (rule.accept && !rule.accept(secret)) continue;
    claim(start, end, rule.id);
  }
}

const HEADER_LINE = /[A-Za-z][A-Za-z-]{0,31}: [^\n]{0,256}/y;

function isBodyChar(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) ||
    c === 0x2b || c === 0x2f || c === 0x3d || c === 0x5c; // + / = and the \ of an escaped \n
}

/**
 * PEM-style blocks: the opening line, then the body (base64, `Key: value`
 * header lines, whitespace, escaped `\n`) up to the closing line. A block
 * without its closing line within `maxBody` is redacted from the opening
 * line to the end of its body, so a cut-off key is withheld too.
 */
function findBlocks(rule: BlockRule, text: string, claim: Claim): void {
  const [keyword] = rule.keywords;
  let pos = 0;
  for (;;) {
    const k = text.indexOf(keyword, pos);
    if (k < 0) return;
    rule.begin.lastIndex = k;
    const head = rule.begin.exec(text);
    if (!head) {
      pos = k + 1;
      continue;
    }
    let p = k + head[0].length;
    let end = p;
    let sawBody = false;
    let inIndent = false;
    const limit = Math.min(text.length, p + rule.maxBody);
    while (p < limit) {
      const c = text.charCodeAt(p);
      const atLineStart = text.charCodeAt(p - 1) === 0x0a;
      if (atLineStart && !sawBody) {
        HEADER_LINE.lastIndex = p;
        const header = HEADER_LINE.exec(text);
        if (header) {
          p += header[0].length;
          end = p;
          continue;
        }
      }
      if (isBodyChar(c)) {
        p++;
        end = p;
        sawBody = true;
        inIndent = false;
      } else if (c === 0x0a || c === 0x0d) {
        if (c === 0x0a && atLineStart && sawBody) break; // a blank line ends an open body
        p++;
        inIndent = true;
      } else if ((c === 0x20 || c === 0x09) && inIndent) {
        p++; // indentation (a key inside YAML or a heredoc)
      } else {
        if (c === 0x2d && text.startsWith(rule.endKeyword, p)) {
          rule.end.lastIndex = p;
          const tail = rule.end.exec(text);
          if (tail) end = p + tail[0].length;
        }
        break;
      }
    }
    claim(k, end, rule.id);
    pos = Math.max(end, k + 1);
  }
}

/** What one redaction pass replaced, by rule. */
export type RuleCounts = Map<string, number>;

/** `text` with each span replaced by `[redacted:RULE]`; counts added to `counts`. */
export function replaceSpans(
  text: string,
  spans: readonly SecretSpan[],
  counts?: RuleCounts,
): string {
  if (spans.length === 0) return text;
  let out = "";
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, span.start) + `[redacted:${span.rule}]`;
    at = span.end;
    counts?.set(span.rule, (counts.get(span.rule) ?? 0) + 1);
  }
  return out + text.slice(at);
}

/** `text` with every secret replaced, counting each by rule. */
export function redactSecrets(text: string, counts?: RuleCounts): string {
  return replaceSpans(text, findSecrets(text), counts);
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
