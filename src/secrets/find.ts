/**
 * Finding secrets in linear time: the keywords of all rules are located in
 * one pass per case (an alternation over the text, another over a
 * lowercased copy), and each rule's sticky pattern is tried once at each
 * occurrence of one of its keywords (never at an occurrence inside a run of
 * the token's own characters, see `notAfter`); after a match the search
 * resumes past it. Block rules (PEM keys) follow the body once and resume
 * after it. Overlaps go to the earlier rule. The cost is O(length × rules),
 * checked on hostile input by `scripts/bench_content.ts`.
 *
 * @module
 */

import { SECRET_RULES } from "./catalogue.ts";
import {
  type BlockRule,
  isBlockRule,
  isPlaceholder,
  type PatternRule,
  type SecretRule,
  shannonEntropy,
} from "./rule.ts";

/** One secret found: `text.slice(start, end)` is replaced, labelled with the rule's id. */
export interface SecretSpan {
  readonly start: number;
  readonly end: number;
  readonly rule: string;
}

/** A rule made ready to run: the pattern sticky, `notAfter` as a lookup table. */
interface Prepared {
  readonly re: RegExp;
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
 * Where the keywords of a rule set occur, found in one pass per case (not one per rule): the
 * keywords of case-sensitive rules as one alternation over the text, those of the others,
 * lowercased, as one over a lowercased copy. After a hit the scan resumes one character on, and
 * every keyword starting there is checked, so overlapping keywords (`sk-`, `sk-ant-`) are all
 * seen. The result, per rule, is the sorted list of offsets where one of its keywords starts:
 * what scanning for that rule's keywords alone would visit.
 */
interface KeywordScan {
  readonly exact: RegExp | undefined;
  readonly folded: RegExp | undefined;
  /** Keyword → the indexes (in the rule set) of the pattern rules it starts. */
  readonly exactRules: Map<string, number[]>;
  readonly foldedRules: Map<string, number[]>;
  /** First character → the keywords starting with it. */
  readonly exactByFirst: Map<string, string[]>;
  readonly foldedByFirst: Map<string, string[]>;
}

const SCANS = new WeakMap<readonly SecretRule[], KeywordScan>();

function keywordScan(rules: readonly SecretRule[]): KeywordScan {
  let scan = SCANS.get(rules);
  if (scan) return scan;
  const exactRules = new Map<string, number[]>(), foldedRules = new Map<string, number[]>();
  rules.forEach((rule, i) => {
    if (isBlockRule(rule)) return;
    for (const k of rule.keywords) {
      const [map, key] = rule.ignoreCase ? [foldedRules, k.toLowerCase()] : [exactRules, k];
      map.set(key, [...(map.get(key) ?? []), i]);
    }
  });
  const byFirst = (map: Map<string, number[]>) => {
    const out = new Map<string, string[]>();
    for (const k of map.keys()) out.set(k[0], [...(out.get(k[0]) ?? []), k]);
    return out;
  };
  const alternation = (map: Map<string, number[]>) =>
    map.size === 0
      ? undefined
      : new RegExp([...map.keys()].map((k) => escapeLiteral(k)).join("|"), "g");
  scan = {
    exact: alternation(exactRules),
    folded: alternation(foldedRules),
    exactRules,
    foldedRules,
    exactByFirst: byFirst(exactRules),
    foldedByFirst: byFirst(foldedRules),
  };
  SCANS.set(rules, scan);
  return scan;
}

/** Per rule index, the offsets in `hay` where one of its keywords starts (see {@linkcode KeywordScan}). */
function keywordHits(
  hay: string,
  re: RegExp | undefined,
  byFirst: Map<string, string[]>,
  rulesOf: Map<string, number[]>,
  hits: number[][],
): void {
  if (!re) return;
  re.lastIndex = 0;
  for (let m = re.exec(hay); m; m = re.exec(hay)) {
    const k = m.index;
    for (const keyword of byFirst.get(hay[k]) ?? []) {
      if (!hay.startsWith(keyword, k)) continue;
      for (const rule of rulesOf.get(keyword)!) {
        const list = hits[rule];
        if (list[list.length - 1] !== k) list.push(k);
      }
    }
    re.lastIndex = k + 1;
  }
}

/** Every secret in `text`, sorted by position, none overlapping. */
export function findSecrets(
  text: string,
  rules: readonly SecretRule[] = SECRET_RULES,
): SecretSpan[] {
  const found: SecretSpan[] = [];
  let occupied: Uint8Array | undefined;
  let lower: string | undefined;
  const scan = keywordScan(rules);
  const hits: number[][] = rules.map(() => []);
  keywordHits(text, scan.exact, scan.exactByFirst, scan.exactRules, hits);
  if (scan.folded) {
    lower = lowerCopy(text);
    keywordHits(lower, scan.folded, scan.foldedByFirst, scan.foldedRules, hits);
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
    else if (hits[i].length > 0) findPattern(rule, text, hits[i], claim);
  });
  return found.sort((a, b) => a.start - b.start);
}

function continuesRun(table: Uint8Array, c: number): boolean {
  return c < 128 && table[c] === 1;
}

type Claim = (start: number, end: number, rule: string) => void;

/** Tries `rule` at its keyword offsets `hits` (sorted), as a scan for its keywords from `pos` would. */
function findPattern(rule: PatternRule, text: string, hits: readonly number[], claim: Claim): void {
  const { re, notAfter, notBefore } = prepared(rule);
  let pos = 0;
  let h = 0;
  for (;;) {
    while (h < hits.length && hits[h] < pos) h++;
    if (h === hits.length) return;
    const k = hits[h];
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
