/**
 * Finding secrets in linear time: one pass per case (an alternation over
 * the text, and a case-insensitive one over the same text) finds which
 * rules' keywords occur at all and where first; each of those rules then
 * looks at each occurrence of one of its keywords (never at an occurrence
 * inside a run of the token's own characters, see `notAfter`), rejects it
 * cheaply when what follows cannot be the token (`follows`, ADR-070), and
 * tries its sticky pattern only where it can; a rule's keywords and reject,
 * searched ahead as one pattern (its gate, ADR-077), let the scan jump over
 * a flood of candidates that cannot pass; after a match the search resumes
 * past it. Block rules (PEM keys) follow the body once and resume
 * after it. Overlaps go to the earlier rule. The cost is O(length × rules),
 * checked on hostile input by `scripts/bench_content.ts`.
 *
 * @module
 */

import { SECRET_RULES } from "./catalogue.ts";
import {
  type BlockRule,
  type FollowStep,
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

/** A class of characters as a lookup table for ASCII, and the class itself for the rest. */
interface CharClass {
  readonly ascii: Uint8Array;
  readonly re: RegExp;
}

/** A `follows` step made ready: a run of a class, or a literal. */
interface Step {
  /** The literal, or "" for a run (one shape for both: the check runs on every candidate). */
  readonly literal: string;
  readonly run: CharClass;
  readonly min: number;
  readonly max: number;
  /**
   * For a run: a sticky pattern of the run's ASCII characters as far as the step reads (its
   * `max`, or its `min` for the last step), used once the run is longer than a few characters.
   */
  readonly long: RegExp;
}

const NO_CLASS: CharClass = { ascii: new Uint8Array(128), re: /(?!)/ };

/** A run read by the loop up to this long; past it by the step's `long` pattern. */
const SHORT_RUN = 16;

/** A rule made ready to run. */
interface Prepared {
  /** The pattern, sticky. */
  readonly re: RegExp;
  /** Whether the pattern names a `secret` group (if not, `test` and `lastIndex` suffice). */
  readonly grouped: boolean;
  /**
   * Whether `re` has the `secret` group as its only capturing group, unnamed, so `m[1]` is the
   * secret: a match array without a `groups` object costs half as much to build (ADR-087).
   */
  readonly plain: boolean;
  /**
   * Whether that group ends the pattern, so the secret ends the match and starts
   * `secret.length` before its end (which is where its last occurrence in the match lies).
   */
  readonly endsMatch: boolean;
  /** The keywords as searched (lowercase when the rule ignores case). */
  readonly keywords: readonly string[];
  /** For a rule that ignores case, each keyword as a global case-insensitive pattern. */
  readonly folded?: readonly RegExp[];
  /** ASCII characters that may not precede a match (and so continue a run to skip). */
  readonly notAfter?: Uint8Array;
  /** A sticky pattern of a run of `notAfter`'s characters (ASCII only, as the table). */
  readonly skipRun?: RegExp;
  /** ASCII characters that may not follow a match. */
  readonly notBefore?: Uint8Array;
  /** The cheap reject tried before the pattern. */
  readonly follows?: readonly Step[];
  /** The keywords and the reject as one global pattern (see {@linkcode gateOf}). */
  readonly gate?: RegExp;
  /** What the steps' last literal and the run after it must read, searched ahead (see {@linkcode tailOf}). */
  readonly tail?: Tail;
}

/**
 * A rule's tail probe (ADR-087): the last literal of its `follows` steps and the minimum of the
 * run after it, as a global pattern; the steps read it between `minLead` and `maxLead`
 * characters after the start of a candidate.
 */
interface Tail {
  readonly probe: RegExp;
  /** How many characters the probe matches. */
  readonly length: number;
  readonly minLead: number;
  readonly maxLead: number;
}

function asciiTable(re: RegExp | undefined): Uint8Array | undefined {
  if (!re) return undefined;
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) table[c] = re.test(String.fromCharCode(c)) ? 1 : 0;
  return table;
}

/**
 * A sticky pattern matching a run of the table's characters and nothing else (so exactly what a
 * loop over `table` reads): V8 scans a long run several times faster than a loop over
 * `charCodeAt`, and a flood such as `ghp_ghp_…` is one run of a mebibyte.
 */
function runPattern(table: Uint8Array, bound = Infinity): RegExp {
  return new RegExp(`${classSource(table)}${bound === Infinity ? "*" : `{0,${bound}}`}`, "y");
}

/** The table's characters as a regex class, each as `\xNN` (the table is ASCII only). */
function classSource(table: Uint8Array): string {
  let cls = "";
  for (let c = 0; c < 128; c++) {
    if (table[c] === 1) cls += "\\x" + c.toString(16).padStart(2, "0");
  }
  return `[${cls}]`;
}

function charClass(re: RegExp): CharClass {
  const flags = re.flags.replace(/[gy]/g, "");
  const single = new RegExp(`^(?:${re.source})$`, flags);
  return { ascii: asciiTable(single)!, re: single };
}

function inClass(cls: CharClass, c: number): boolean {
  return c < 128 ? cls.ascii[c] === 1 : cls.re.test(String.fromCharCode(c));
}

/**
 * The steps made ready, checked to have one greedy reading: a literal may not start with a
 * character of the run before it, and two runs in a row may not share a character.
 */
function prepareSteps(rule: PatternRule, steps: readonly FollowStep[]): Step[] {
  const out: Step[] = steps.map((step, i) => {
    if ("literal" in step) {
      return { literal: step.literal, run: NO_CLASS, min: 0, max: 0, long: /$/y };
    }
    const run = charClass(step.chars), max = step.max ?? Infinity;
    const long = runPattern(run.ascii, i === steps.length - 1 ? step.min : max);
    return { literal: "", run, min: step.min, max, long };
  });
  for (let i = 0; i + 1 < out.length; i++) {
    const a = out[i], b = out[i + 1];
    if (a.literal !== "") continue;
    const clash = b.literal !== ""
      ? inClass(a.run, b.literal.charCodeAt(0))
      : a.run.ascii.some((v, c) => v === 1 && b.run.ascii[c] === 1);
    if (clash) throw new Error(`${rule.id}: follows step ${i + 1} overlaps the next one`);
  }
  return out;
}

const PREPARED = new WeakMap<PatternRule, Prepared>();

function prepared(rule: PatternRule): Prepared {
  let ready = PREPARED.get(rule);
  if (!ready) {
    const flags = new Set([...rule.pattern.flags, "y"]);
    flags.delete("g");
    const keywords = rule.keywords.map((k) => rule.ignoreCase ? k.toLowerCase() : k);
    if (rule.follows) {
      for (const a of keywords) {
        for (const b of keywords) {
          if (a !== b && b.startsWith(a)) {
            throw new Error(`${rule.id}: with follows, no keyword may start another`);
          }
        }
      }
    }
    const grouped = rule.pattern.source.includes("(?<secret>");
    const plainSource = grouped
      ? unnamedSecret(rule.pattern.source, rule.pattern.flags)
      : undefined;
    ready = {
      re: new RegExp(plainSource ?? rule.pattern.source, [...flags].join("")),
      grouped,
      plain: plainSource !== undefined,
      endsMatch: plainSource !== undefined &&
        groupEndsPattern(plainSource, rule.pattern.source.indexOf("(?<secret>")),
      keywords,
      folded: rule.ignoreCase ? keywords.map((k) => new RegExp(escapeLiteral(k), "gi")) : undefined,
      notAfter: asciiTable(rule.notAfter),
      skipRun: rule.notAfter ? runPattern(asciiTable(rule.notAfter)!) : undefined,
      notBefore: asciiTable(rule.notBefore),
      follows: rule.follows ? prepareSteps(rule, rule.follows) : undefined,
      gate: gateOf(rule, keywords),
      tail: tailOf(rule, keywords),
    };
    PREPARED.set(rule, ready);
  }
  return ready;
}

/**
 * `source` with its `secret` group unnamed, when that group is its only capturing group and
 * occurs once (so the unnamed pattern matches exactly what the named one does, and capture 1
 * is the secret); undefined otherwise, and the named group is read.
 */
function unnamedSecret(source: string, flags: string): string | undefined {
  const parts = source.split("(?<secret>");
  if (parts.length !== 2 || source.includes("\\k<")) return undefined;
  const captures = (src: string) =>
    new RegExp(`(?:${src})|`, flags.replace(/[gy]/g, "")).exec("")!.length - 1;
  if (captures(source) !== 1) return undefined;
  const unnamed = parts[0] + "(" + parts[1];
  return captures(unnamed) === 1 ? unnamed : undefined;
}

/**
 * Whether the group opening at `open` in `source` closes at the source's last character
 * (escapes and classes skipped; a pattern this cannot read gives false, and the finder then
 * looks the secret up in the match).
 */
export function groupEndsPattern(source: string, open: number): boolean {
  if (open < 0 || source[open] !== "(") return false;
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "[") {
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i === source.length - 1;
  }
  return false;
}

/**
 * The keywords followed by the `follows` steps as one global pattern, searched ahead of the
 * scan (ADR-077): where it next matches, at `M`, no candidate before `M` can pass the steps,
 * so the scan jumps there, and a flood of candidates that the steps reject costs one search by
 * V8 instead of a loop per candidate. Each run is read as the steps read it, greedily and
 * without backtracking (an atomic group: a lookahead captures the run, a backreference
 * consumes it), the last run only to its minimum; so an attempt reads what `follows` reads.
 * The pattern may accept more than the steps (with `i`, classes and literals ignore case),
 * never less. A rule with `notAfter` has it as a look-behind: a keyword inside a run is
 * skipped by the scan anyway, and attempts inside runs would read overlapping runs. That is
 * exact only when every keyword starts with a character of the run (a start just after the
 * keyword's first character would otherwise be tried where the scan skips it), and when the
 * rule does not ignore case (`i` would widen the look-behind's class, so the gate would skip
 * more); other rules have no gate.
 */
function gateOf(rule: PatternRule, keywords: readonly string[]): RegExp | undefined {
  if (!rule.follows) return undefined;
  // A step's class with flags of its own could be narrower inside the gate than it is alone.
  if (rule.follows.some((step) => "chars" in step && step.chars.flags !== "")) return undefined;
  let before = "";
  if (rule.notAfter) {
    const table = asciiTable(rule.notAfter)!;
    if (rule.ignoreCase) return undefined;
    if (!keywords.every((k) => continuesRun(table, k.charCodeAt(0)))) return undefined;
    before = `(?<!${classSource(table)})`;
  }
  let source = `${before}(?:${keywords.map(escapeLiteral).join("|")})`;
  let group = 0;
  const last = rule.follows.length - 1;
  rule.follows.forEach((step, i) => {
    if ("literal" in step) {
      source += escapeLiteral(step.literal);
      return;
    }
    const cls = `(?:${step.chars.source})`;
    if (i === last) source += `${cls}{${step.min}}`;
    else {
      const max = step.max === undefined ? "" : String(step.max);
      source += `(?=(${cls}{${step.min},${max}}))\\${++group}`;
    }
  });
  return new RegExp(source, rule.ignoreCase ? "gi" : "g");
}

/**
 * The tail probe of a rule whose steps hold a literal: where the steps pass at a candidate `k`,
 * their last literal lies between `k + minLead` and `k + maxLead` (the keyword's and each step's
 * shortest and longest readings before it) and the run after it has its minimum there, so the
 * probe matches there. Where the probe's next match from `k + minLead` lies past `k + maxLead`,
 * no candidate before that match, less `maxLead`, can pass; where it has none, none can. A flood
 * of near misses the steps reject late (`eyJaaaaaaaa.eyJaaaaaaaa.`, `://a:`) then costs one
 * search for a tail that is not there, where the gate read each candidate up to its failure.
 * Steps with flags of their own (as for the gate) give no probe.
 */
function tailOf(rule: PatternRule, keywords: readonly string[]): Tail | undefined {
  const steps = rule.follows;
  if (!steps || steps.some((step) => "chars" in step && step.chars.flags !== "")) return undefined;
  let last = -1;
  steps.forEach((step, i) => {
    if ("literal" in step) last = i;
  });
  if (last < 0) return undefined;
  let minLead = Math.min(...keywords.map((k) => k.length));
  let maxLead = Math.max(...keywords.map((k) => k.length));
  for (const step of steps.slice(0, last)) {
    if ("literal" in step) {
      minLead += step.literal.length;
      maxLead += step.literal.length;
    } else {
      minLead += step.min;
      maxLead += step.max ?? Infinity;
    }
  }
  const literal = steps[last] as { literal: string };
  const after = steps[last + 1];
  let source = escapeLiteral(literal.literal), length = literal.literal.length;
  if (after && "chars" in after) {
    source += `(?:${after.chars.source}){${after.min}}`;
    length += after.min;
  }
  return { probe: new RegExp(source, "g"), length, minLead, maxLead };
}

function escapeLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&");
}

/** Whether `keyword` (lowercase) occurs at `at` in `text`, ignoring ASCII case. */
function startsWithFolded(text: string, keyword: string, at: number): boolean {
  if (at + keyword.length > text.length) return false;
  for (let i = 0; i < keyword.length; i++) {
    let c = text.charCodeAt(at + i);
    if (c >= 0x41 && c <= 0x5a) c |= 0x20;
    if (c !== keyword.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * Where each rule's keywords first occur, found in one pass over the text per case for all
 * rules together, instead of one pass per rule: on ordinary code most rules' keywords never
 * occur, and their scans were nearly all of redaction's cost. The pass is one alternation of
 * the keywords not seen yet (`i` for the rules that ignore case: the text is not lowercased,
 * ADR-070); at each hit every keyword starting there is noted (so `sk-` and `sk-ant-` at one
 * offset are both seen) and dropped from the alternation, which is rebuilt and resumed one
 * character on, so the text is read once whatever a flood repeats. A rule is then scanned from
 * its first keyword, as before.
 */
function firstHits(
  text: string,
  keywords: ReadonlyMap<string, readonly number[]>,
  folded: boolean,
  first: number[],
  at: Map<string, number>,
): void {
  const left = new Map(keywords);
  let pos = 0;
  while (left.size > 0) {
    const re = alternationOf([...left.keys()], folded);
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m) return;
    for (const [keyword, rules] of left) {
      const here = folded
        ? startsWithFolded(text, keyword, m.index)
        : text.startsWith(keyword, m.index);
      if (!here) continue;
      for (const rule of rules) first[rule] = Math.min(first[rule], m.index);
      at.set(keyword, m.index);
      left.delete(keyword);
    }
    pos = m.index + 1;
  }
}

/** Alternations of keyword sets, compiled once each (the sets a text's hits leave are few). */
const ALTERNATIONS = new Map<string, RegExp>();

function alternationOf(keywords: readonly string[], folded: boolean): RegExp {
  const key = (folded ? "i" : "") + "\0" + keywords.join("\0");
  let re = ALTERNATIONS.get(key);
  if (!re) {
    if (ALTERNATIONS.size >= 512) ALTERNATIONS.clear();
    re = new RegExp(keywords.map(escapeLiteral).join("|"), folded ? "gi" : "g");
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
  const keywords = keywordsOf(rules);
  const first = rules.map(() => Infinity);
  const exactAt = new Map<string, number>(), foldedAt = new Map<string, number>();
  firstHits(text, keywords.exact, false, first, exactAt);
  if (keywords.folded.size > 0) firstHits(text, keywords.folded, true, first, foldedAt);
  // Overlaps go to the earlier rule: a span is kept only if it overlaps no span kept before.
  // The spans of earlier rules are one sorted list; a rule's own come in increasing order
  // (each scan resumes past its last match), so one cursor walks the list once per rule, and
  // a flood of matches costs no per-character occupancy map. A span out of order (none is)
  // would be checked against every span.
  let kept: SecretSpan[] = [];
  let mine: SecretSpan[] = [];
  let cursor = 0, lastStart = -1;
  const claim = (start: number, end: number, rule: string) => {
    if (end <= start) return;
    if (start < lastStart) {
      if ([...kept, ...mine].some((s) => s.start < end && start < s.end)) return;
    } else {
      while (cursor < kept.length && kept[cursor].end <= start) cursor++;
      lastStart = start; // (the cursor has passed what ends before it, kept or not)
      if (cursor < kept.length && kept[cursor].start < end) return;
      const own = mine.length > 0 ? mine[mine.length - 1] : undefined;
      if (own !== undefined && start < own.end) return;
    }
    mine.push({ start, end, rule });
  };
  rules.forEach((rule, i) => {
    if (isBlockRule(rule)) findBlocks(rule, text, claim);
    else if (first[i] !== Infinity) {
      findPattern(rule, text, rule.ignoreCase ? foldedAt : exactAt, claim);
    }
    if (mine.length > 0) {
      kept = kept.length === 0 ? mine.sort((a, b) => a.start - b.start) : merged(kept, mine);
      mine = [];
    }
    cursor = 0;
    lastStart = -1;
  });
  return kept;
}

/** Two lists of spans, none overlapping another, as one sorted by start. */
function merged(a: readonly SecretSpan[], b: SecretSpan[]): SecretSpan[] {
  b.sort((x, y) => x.start - y.start);
  const out: SecretSpan[] = [];
  let i = 0, j = 0;
  while (i < a.length && j < b.length) out.push(a[i].start < b[j].start ? a[i++] : b[j++]);
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}

function continuesRun(table: Uint8Array, c: number): boolean {
  return c < 128 && table[c] === 1;
}

/**
 * Whether the text from `at` (right after a keyword) reads as the steps do: each run greedy,
 * within its bounds, the last one only as far as its minimum. False means the pattern cannot
 * match at this keyword.
 */
function follows(text: string, at: number, steps: readonly Step[]): boolean {
  let p = at;
  const last = steps.length - 1;
  for (let s = 0; s <= last; s++) {
    const step = steps[s];
    const literal = step.literal;
    if (literal !== "") {
      const n = literal.length;
      if (p + n > text.length) return false;
      for (let i = 0; i < n; i++) {
        if (text.charCodeAt(p + i) !== literal.charCodeAt(i)) return false;
      }
      p += n;
      continue;
    }
    let stop = p + (s === last ? step.min : step.max);
    if (stop > text.length) stop = text.length;
    const ascii = step.run.ascii;
    let q = p;
    const short = stop - p > SHORT_RUN ? p + SHORT_RUN : stop;
    for (; q < short; q++) {
      const c = text.charCodeAt(q);
      if (c < 128 ? ascii[c] === 0 : !step.run.re.test(String.fromCharCode(c))) break;
    }
    if (q === short && q < stop) {
      // A long run: its ASCII stretch by the pattern (it reads at most the step's bound from
      // `q`, which reaches `stop`), then one character of the class outside ASCII, if any, and
      // again while the run goes on.
      const long = step.long;
      for (;;) {
        long.lastIndex = q;
        long.test(text);
        q = long.lastIndex < stop ? long.lastIndex : stop;
        if (q === stop) break;
        const c = text.charCodeAt(q);
        if (c < 128 || !step.run.re.test(String.fromCharCode(c))) break;
        q++;
      }
    }
    if (q - p < step.min) return false;
    p = q;
  }
  return true;
}

/**
 * Whether `rule`'s cheap reject lets the text from `at` (right after one of its keywords) reach
 * the pattern; true for a rule without one. For tests, which check it against the pattern.
 */
export function passesFollows(rule: PatternRule, text: string, at: number): boolean {
  const steps = prepared(rule).follows;
  return !steps || follows(text, at, steps);
}

type Claim = (start: number, end: number, rule: string) => void;

/** After this many candidates in a row that the gate let through, a scan stops using it. */
const GATE_GIVE_UP = 8;

/** How many values one rule's scan remembers the verdict of. */
const MAX_VERDICTS = 256;

function findPattern(
  rule: PatternRule,
  text: string,
  firstAt: ReadonlyMap<string, number>,
  claim: Claim,
): void {
  const ready = prepared(rule);
  const { re, keywords, folded, notAfter, notBefore, follows: steps } = ready;
  // The next occurrence of each keyword (-1: none left), found by `indexOf` (or its own
  // case-insensitive pattern) only once the scan has passed the last one: a flood of one keyword
  // costs one short search per occurrence, and the keywords the text never holds cost nothing.
  const next = keywords.map((k) => firstAt.get(k) ?? -1);
  const verdicts = new Map<string, boolean>();
  let lastSecret: string | undefined, lastVerdict = false;
  const gate = ready.gate;
  // Where the tail probe next matches (see tailOf), and how long its match is.
  const tail = ready.tail;
  let tailAt = -Infinity;
  // Where the gate last matched, and how many candidates in a row it let through: past a few,
  // each search only adds to the cost of a flood of real matches.
  let gateAt = -1, gatePassed = 0, gateOn = gate !== undefined;
  let pos = 0;
  for (;;) {
    let k = -1, length = 0;
    for (let j = 0; j < next.length; j++) {
      let at = next[j];
      if (at >= 0 && at < pos) {
        if (folded) {
          const search = folded[j];
          search.lastIndex = pos;
          at = search.test(text) ? search.lastIndex - keywords[j].length : -1;
        } else at = text.indexOf(keywords[j], pos);
        next[j] = at;
      }
      if (at >= 0 && (k < 0 || at < k)) {
        k = at;
        length = keywords[j].length;
      }
    }
    if (k < 0) return;
    if (tail) {
      // The first tail from where this candidate's could start (ADR-087).
      if (tailAt < k + tail.minLead) {
        tail.probe.lastIndex = k + tail.minLead;
        tailAt = tail.probe.test(text) ? tail.probe.lastIndex - tail.length : Infinity;
      }
      if (tailAt === Infinity) return; // no candidate from here on can reach a tail
      if (tailAt > k + tail.maxLead) {
        pos = tailAt - tail.maxLead; // every candidate before it ends short of that tail
        continue;
      }
    }
    if (gateOn && k > gateAt) {
      gate!.lastIndex = k;
      const m = gate!.exec(text);
      gateAt = m ? m.index : Infinity;
      if (gateAt === Infinity) return; // no candidate from here on can pass the steps
      if (gateAt > k) {
        pos = gateAt; // every candidate before it fails the steps or lies inside a run
        gatePassed = 0;
        continue;
      }
      if (++gatePassed >= GATE_GIVE_UP) gateOn = false;
    }
    if (notAfter && k > 0 && continuesRun(notAfter, text.charCodeAt(k - 1))) {
      // Inside a run of the token's own characters: no match can start anywhere in this
      // run, so skip to its end (each run is scanned once, whatever a flood holds).
      const skip = ready.skipRun!;
      skip.lastIndex = k + 1;
      skip.test(text); // always matches (a run of none at least), leaving the run's end
      pos = skip.lastIndex;
      continue;
    }
    if (steps && !follows(text, k + length, steps)) {
      pos = k + 1;
      continue;
    }
    re.lastIndex = k;
    let matched: number, secret: string, start: number;
    if (ready.grouped) {
      const m = re.exec(text);
      if (!m) {
        pos = k + 1;
        continue;
      }
      matched = m[0].length;
      const group = ready.plain ? m[1] : m.groups?.secret;
      secret = group ?? m[0];
      // (A secret that ends the pattern ends the match: no search for its last occurrence.)
      start = group === undefined
        ? k
        : ready.endsMatch
        ? k + matched - secret.length
        : k + m[0].lastIndexOf(secret);
    } else {
      if (!re.test(text)) {
        pos = k + 1;
        continue;
      }
      matched = re.lastIndex - k;
      secret = text.slice(k, k + matched);
      start = k;
    }
    pos = k + Math.max(1, matched);
    if (notBefore && continuesRun(notBefore, text.charCodeAt(k + matched))) continue;
    // A value a flood repeats is judged once (entropy, placeholder, the rule's own check). The
    // last value is compared first: a fresh string is hashed for every map lookup, and a flood
    // of one value then costs a comparison (ADR-087).
    let verdict: boolean | undefined;
    if (secret === lastSecret) verdict = lastVerdict;
    else {
      verdict = verdicts.get(secret);
      if (verdict === undefined) {
        verdict = !(rule.minEntropy !== undefined && shannonEntropy(secret) < rule.minEntropy) &&
          !isPlaceholder(secret) && !(rule.accept && !rule.accept(secret));
        if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
        verdicts.set(secret, verdict);
      }
      lastSecret = secret;
      lastVerdict = verdict;
    }
    if (verdict) claim(start, start + secret.length, rule.id);
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
    // Sticky `test` leaves `lastIndex` at the match's end: no match array per block.
    rule.begin.lastIndex = k;
    if (!rule.begin.test(text)) {
      pos = k + 1;
      continue;
    }
    let p = rule.begin.lastIndex;
    let end = p;
    let sawBody = false;
    let inIndent = false;
    const limit = Math.min(text.length, p + rule.maxBody);
    while (p < limit) {
      const c = text.charCodeAt(p);
      const atLineStart = text.charCodeAt(p - 1) === 0x0a;
      // (A header line starts with a letter: the regex is not tried at any other line.)
      if (atLineStart && !sawBody && ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a)) {
        HEADER_LINE.lastIndex = p;
        if (HEADER_LINE.test(text)) {
          p = HEADER_LINE.lastIndex;
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
          if (rule.end.test(text)) end = rule.end.lastIndex;
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
  let rule = "", marker = "";
  for (const span of spans) {
    // (Each rule's marker built once per run of its spans, not once per span.)
    if (span.rule !== rule) marker = `[redacted:${rule = span.rule}]`;
    out += text.slice(at, span.start) + marker;
    at = span.end;
    counts?.set(span.rule, (counts.get(span.rule) ?? 0) + 1);
  }
  return out + text.slice(at);
}

/** `text` with every secret replaced, counting each by rule. */
export function redactSecrets(text: string, counts?: RuleCounts): string {
  return replaceSpans(text, findSecrets(text), counts);
}
