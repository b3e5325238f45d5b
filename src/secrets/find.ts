/**
 * Finding secrets in linear time: one pass over the text finds every keyword of every rule
 * (a loop over pairs of code units and a table, ADR-092); each rule whose keywords occur then
 * looks at each occurrence of one of them (never at an occurrence inside a run of the token's
 * own characters, see `notAfter`), rejects it cheaply when what follows cannot be the token
 * (`follows`, ADR-070), and tries its sticky pattern only where it can (a pattern that ends with
 * its secret group first as two `test`s, the part before the group then the group, ADR-131); a
 * rule's keywords and reject, searched ahead as one pattern (its gate, ADR-077), let the scan
 * jump over a flood of candidates that cannot pass; after a match the search resumes past it.
 * Block rules (PEM keys) follow the body once and resume after it. Overlaps go to the earlier rule. The cost is
 * O(length × rules), checked on hostile input by `scripts/bench_content.ts`.
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
  /**
   * For a pattern whose `secret` group ends it: the pattern before the group (`lead`) and the
   * group (`value`), each sticky, tried one after the other by `test` (ADR-131). The lead alone
   * finds the first of its readings in the pattern's own order of trying them, which is the
   * reading the whole pattern takes when the value then matches: so where both match, the match
   * is the pattern's, the secret from the lead's end to the value's, with no match array and no
   * string made; where the lead fails the pattern fails; where the value fails after the lead,
   * the pattern may still match by a later reading of the lead, and `exec` decides.
   */
  readonly lead?: RegExp;
  readonly value?: RegExp;
  /** The keywords as searched (lowercase when the rule ignores case). */
  readonly keywords: readonly string[];
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
 * run after it; the steps read it between `minLead` and `maxLead` characters after the start of
 * a candidate. It is looked for by `indexOf` and a loop (ADR-093), not by a global pattern.
 */
interface Tail {
  readonly literal: string;
  /** The class of the run after the literal, and its minimum (0: no run is checked). */
  readonly run: CharClass;
  readonly min: number;
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
    const sticky = [...flags].join("");
    const open = rule.pattern.source.indexOf("(?<secret>");
    const endsMatch = plainSource !== undefined && groupEndsPattern(plainSource, open);
    const split = endsMatch ? splitAt(plainSource!, open, sticky) : undefined;
    ready = {
      re: new RegExp(plainSource ?? rule.pattern.source, sticky),
      grouped,
      plain: plainSource !== undefined,
      endsMatch,
      lead: split?.lead,
      value: split?.value,
      keywords,
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
 * `source` cut before the group opening at `open`, which ends it, as two sticky patterns: what
 * comes before the group, and the group (made non-capturing). Undefined when the part before
 * holds an alternation outside any group (`a|(x)`: the group is then not what every match ends
 * with) or a part does not compile alone.
 */
export function splitAt(
  source: string,
  open: number,
  flags: string,
): { lead: RegExp; value: RegExp } | undefined {
  const lead = source.slice(0, open);
  let depth = 0;
  for (let i = 0; i < lead.length; i++) {
    const c = lead[i];
    if (c === "\\") i++;
    else if (c === "[") {
      for (i++; i < lead.length && lead[i] !== "]"; i++) if (lead[i] === "\\") i++;
    } else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) return undefined;
  }
  if (depth !== 0 || source[open] !== "(") return undefined;
  try {
    return {
      lead: new RegExp(lead, flags),
      value: new RegExp("(?:" + source.slice(open + 1), flags),
    };
  } catch {
    return undefined;
  }
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
  const literal = (steps[last] as { literal: string }).literal;
  const after = steps[last + 1];
  return after && "chars" in after
    ? { literal, run: charClass(after.chars), min: after.min, minLead, maxLead }
    : { literal, run: NO_CLASS, min: 0, maxLead, minLead };
}

/**
 * Where the first tail at or after `from` starts (its literal), or Infinity: what a global search
 * of `literal(?:run){min}` from `from` finds, by `indexOf` of the literal and a loop over the run
 * (ADR-093). A global pattern fails at every literal that is not a tail, and V8 counts each
 * failed start as a backtrack: past 50,000 in one search (a flood of `.` in `eyJ` near misses),
 * `--enable-experimental-regexp-engine-on-excessive-backtracks`, which the server runs with,
 * reruns the search in the linear engine, about 15 times slower here.
 */
function nextTail(text: string, tail: Tail, from: number): number {
  const { literal, run, min } = tail;
  const n = text.length, ascii = run.ascii;
  for (let at = text.indexOf(literal, from); at >= 0; at = text.indexOf(literal, at + 1)) {
    const p = at + literal.length;
    if (p + min > n) return Infinity; // (every later literal ends nearer the end)
    let q = 0;
    for (; q < min; q++) {
      const c = text.charCodeAt(p + q);
      if (c < 128 ? ascii[c] === 0 : !run.re.test(String.fromCharCode(c))) break;
    }
    if (q === min) return at;
  }
  return Infinity;
}

function escapeLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&");
}

/**
 * The candidates of one pattern rule: the offsets where one of its keywords occurs (`at`, the
 * first `count` of them), in increasing order, each once, with the index of the keyword found
 * there (`keyword`, or `only` for a rule whose candidates all come from one keyword): the first
 * of the rule's keywords that starts there, as the per-keyword searches before ADR-092 picked.
 */
interface Candidates {
  readonly at: Int32Array;
  readonly count: number;
  readonly keyword: Int32Array | undefined;
  readonly only: number;
}

/** One keyword as the scan looks for it. */
interface Entry {
  /** The keyword, lowercase when it is folded. */
  readonly text: string;
  readonly folded: boolean;
  /** Its index in {@linkcode KeywordTable.entries}, where its offsets are kept. */
  readonly index: number;
}

/**
 * Every keyword of a rule set, ready for {@linkcode scanKeywords} (ADR-092): a table of the
 * keywords' first two code units (both cases of a folded keyword's letters) naming a bucket, and
 * per bucket and third code unit the list of keywords that can start so.
 */
interface KeywordTable {
  /** `first << 7 | second` (both ASCII) → bucket number; 0: no keyword starts with the pair. */
  readonly pairs: Uint16Array;
  /**
   * `bucket << 7 | third` (ASCII) → the number of the list of the bucket's keywords that may go on
   * with `third` (two code units long, or with that third one in their case); 0: none.
   */
  readonly third: Uint16Array;
  /** Per bucket, the list for a third code unit that is not ASCII, or the end of the text. */
  readonly wide: Uint16Array;
  /** List number → its keywords, each with the code units already matched (2 or 3). */
  readonly lists: readonly (readonly Entry[])[];
  readonly from: readonly (readonly number[])[];
  /**
   * Keywords the pair table cannot hold (one code unit long, a first two that are not ASCII, or
   * folded and not ASCII, where V8's `i` folds more than ASCII): searched one by one, as before.
   */
  readonly alone: readonly Entry[];
  readonly entries: readonly Entry[];
  /** Per rule (undefined for a block rule), the entry of each of its keywords, in its order. */
  readonly ofRule: readonly (readonly number[] | undefined)[];
  /** Per list, the slots of `third` (and `WIDE_SLOT + bucket` of `wide`) that name it. */
  readonly slots: readonly (readonly number[])[];
  /** Per entry, the lists that hold it when it is exact (none when folded). */
  readonly holding: readonly (readonly number[])[];
}

/**
 * Misses of an exact keyword before the pass may look for it by `indexOf` instead, and what one
 * miss costs in code units an `indexOf` reads (a comparison about 15 ns, a code unit about 1).
 */
const MISSES_BEFORE_SEARCH = 64;
const MISS_COST = 16;

/** A slot of `wide` among `third`'s, in {@linkcode KeywordTable.slots}. */
const WIDE_SLOT = 1 << 24;

/** Texts at least this long get their own copy of the list tables, where lists are unnamed. */
const OWN_TABLES_FROM = 4096;

const TABLES = new WeakMap<readonly SecretRule[], KeywordTable>();

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 128) return false;
  return true;
}

/** Both ASCII cases of `c` when it is a letter and `folded`, else `c` alone. */
function casesOf(c: number, folded: boolean): number[] {
  if (!folded) return [c];
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x7a ? [lower & ~0x20, lower] : [c];
}

function keywordTable(rules: readonly SecretRule[]): KeywordTable {
  let ready = TABLES.get(rules);
  if (ready) return ready;
  const byKey = new Map<string, Entry>();
  const entries: Entry[] = [];
  const ofRule = rules.map((rule) => {
    if (isBlockRule(rule)) return undefined;
    const folded = rule.ignoreCase === true;
    return prepared(rule).keywords.map((text) => {
      const key = (folded ? "i" : "s") + text;
      let entry = byKey.get(key);
      if (!entry) {
        entry = { text, folded, index: entries.length };
        entries.push(entry);
        byKey.set(key, entry);
      }
      return entry.index;
    });
  });
  const pairs = new Uint16Array(128 * 128);
  const buckets: Entry[][] = [[]];
  const alone: Entry[] = [];
  for (const entry of entries) {
    const { text, folded } = entry;
    if (text.length < 2 || !isAscii(folded ? text : text.slice(0, 2))) {
      alone.push(entry);
      continue;
    }
    for (const a of casesOf(text.charCodeAt(0), folded)) {
      for (const b of casesOf(text.charCodeAt(1), folded)) {
        const pair = (a << 7) | b;
        if (pairs[pair] === 0) {
          pairs[pair] = buckets.length;
          buckets.push([]);
        }
        buckets[pairs[pair]].push(entry);
      }
    }
  }
  // One list per bucket and third code unit, shared where equal (most are the empty one).
  const third = new Uint16Array(buckets.length << 7);
  const wide = new Uint16Array(buckets.length);
  const lists: Entry[][] = [[]], from: number[][] = [[]];
  const listIds = new Map<string, number>();
  const listOf = (entries: Entry[], skip: number[]): number => {
    if (entries.length === 0) return 0;
    const key = entries.map((e, i) => `${e.index}:${skip[i]}`).join(",");
    let id = listIds.get(key);
    if (id === undefined) {
      listIds.set(key, id = lists.length);
      lists.push(entries);
      from.push(skip);
    }
    return id;
  };
  buckets.forEach((bucket, b) => {
    if (b === 0) return;
    for (let c = 0; c < 128; c++) {
      const here: Entry[] = [], skip: number[] = [];
      for (const entry of bucket) {
        const { text, folded } = entry;
        if (text.length === 2) [here[here.length], skip[skip.length]] = [entry, 2];
        else if (casesOf(text.charCodeAt(2), folded).includes(c)) {
          [here[here.length], skip[skip.length]] = [entry, 3];
        }
      }
      third[(b << 7) | c] = listOf(here, skip);
    }
    const here: Entry[] = [], skip: number[] = [];
    for (const entry of bucket) {
      if (entry.text.length === 2 || entry.text.charCodeAt(2) >= 128) {
        [here[here.length], skip[skip.length]] = [entry, 2];
      }
    }
    wide[b] = listOf(here, skip);
  });
  // Where each list is named, and which lists hold each exact keyword: once the pass has seen
  // an exact keyword, the lists that hold nothing else it still looks for are unnamed there.
  const slots: number[][] = lists.map(() => []);
  third.forEach((l, slot) => {
    if (l !== 0) slots[l].push(slot);
  });
  wide.forEach((l, b) => {
    if (l !== 0) slots[l].push(WIDE_SLOT + b);
  });
  const holding: number[][] = entries.map(() => []);
  lists.forEach((list, l) => {
    for (const entry of list) if (!entry.folded) holding[entry.index].push(l);
  });
  ready = { pairs, third, wide, lists, from, alone, entries, ofRule, slots, holding };
  TABLES.set(rules, ready);
  return ready;
}

/**
 * The keywords found in one text, per entry: `pos[e]` holds its offsets in order (the first
 * `count[e]`; for an exact keyword only its first offset). The pass records hits as pairs (offset,
 * entry) in text order, split by entry once it ends.
 */
interface Hits {
  readonly pos: (Int32Array | undefined)[];
  readonly count: Int32Array;
}

/** `buffer` with twice the room, its contents kept. */
function grown(buffer: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(buffer.length * 2);
  bigger.set(buffer);
  return bigger;
}

/**
 * The pass's list of hits, kept from one text to the next (taken while a pass uses it, given
 * back by {@linkcode hitsOf} once split): a flood of keywords grew a list from 16 entries for
 * every text, about 2 MB of fresh typed arrays per MiB of `Authorization:` lines, zeroed,
 * copied and then collected. Kept up to {@linkcode KEPT_HITS} entries (4 MB), as the
 * assessment keeps its candidate lists (ADR-091).
 */
let spareHits = new Int32Array(256);
const KEPT_HITS = 1 << 20;
const NO_HITS = new Int32Array(0);

/** The flat list of hits split by entry, each entry's offsets in order. */
function byEntry(found: Int32Array, length: number, entries: number): Hits {
  const count = new Int32Array(entries);
  for (let h = 1; h < length; h += 2) count[found[h]]++;
  const pos: (Int32Array | undefined)[] = [];
  for (let e = 0; e < entries; e++) pos.push(count[e] > 0 ? new Int32Array(count[e]) : undefined);
  const fill = new Int32Array(entries);
  for (let h = 0; h < length; h += 2) {
    const e = found[h + 1];
    pos[e]![fill[e]++] = found[h];
  }
  return { pos, count };
}

/** What the pass has found so far: hits as pairs (offset, entry), and the exact keywords seen. */
interface ScanState {
  found: Int32Array<ArrayBuffer>;
  length: number;
  readonly seen: Uint8Array;
  /** Per exact keyword, how often its start showed without it, and where `indexOf` found it next. */
  readonly misses: Int32Array;
  readonly nextAt: Int32Array;
  /** The tables this pass reads; `owned` when they are its own copies, where lists are unnamed. */
  readonly third: Uint16Array;
  readonly wide: Uint16Array;
  readonly owned: boolean;
  readonly table: KeywordTable;
}

/**
 * Records each keyword of `list` that occurs at `i`, compared past the code units the tables
 * matched (`skip`); an exact keyword is recorded once (the first offset), a folded one each time.
 */
function compareList(
  text: string,
  i: number,
  list: readonly Entry[],
  skip: readonly number[],
  state: ScanState,
): void {
  const n = text.length;
  for (let e = 0; e < list.length; e++) {
    const entry = list[e];
    if (state.seen[entry.index] === 1) continue; // (an exact keyword found already, or absent)
    const keyword = entry.text, size = keyword.length;
    if (i + size > n) continue;
    const misses = state.misses[entry.index];
    if (!entry.folded && misses >= MISSES_BEFORE_SEARCH && misses * MISS_COST >= n - i) {
      // An exact keyword whose start the text keeps showing without it: where it next occurs is
      // one `indexOf`, and until there nothing needs comparing (nowhere, if it does not occur).
      // Only once its misses have cost about what a search of the rest would: an `indexOf` that
      // finds nothing reads the rest (about 1 ms per MiB on text full of its first letters).
      let at = state.nextAt[entry.index];
      if (at < i) state.nextAt[entry.index] = at = text.indexOf(keyword, i);
      if (at < 0) {
        seenExact(state, entry.index);
        continue;
      }
      if (at > i) continue;
    }
    let q = skip[e];
    if (entry.folded) {
      for (; q < size; q++) {
        let c = text.charCodeAt(i + q);
        if (c >= 0x41 && c <= 0x5a) c |= 0x20;
        if (c !== keyword.charCodeAt(q)) break;
      }
    } else {
      while (q < size && text.charCodeAt(i + q) === keyword.charCodeAt(q)) q++;
    }
    if (q !== size) {
      if (!entry.folded) state.misses[entry.index]++;
    } else {
      if (state.length === state.found.length) state.found = grown(state.found);
      state.found[state.length] = i;
      state.found[state.length + 1] = entry.index;
      state.length += 2;
      if (!entry.folded) seenExact(state, entry.index);
    }
  }
}

/**
 * Marks exact keyword `e` seen, and unnames each list that holds it where the pass no longer
 * looks for anything it holds (every keyword of it exact and seen): a flood of one exact keyword
 * then costs the pass two table reads per occurrence and no call (ADR-092).
 */
function seenExact(state: ScanState, e: number): void {
  state.seen[e] = 1;
  if (!state.owned) return; // (a short text keeps the shared tables)
  const { lists, slots, holding } = state.table;
  for (const l of holding[e]) {
    if (!lists[l].every((entry) => !entry.folded && state.seen[entry.index] === 1)) continue;
    for (const slot of slots[l]) {
      if (slot >= WIDE_SLOT) state.wide[slot - WIDE_SLOT] = 0;
      else state.third[slot] = 0;
    }
  }
}

/**
 * Every occurrence of every keyword of the rule set, in one pass over the text for all rules and
 * both cases (ADR-092): a loop over the code units reads each pair of neighbours in a table,
 * and only where a keyword starts with that pair (and may go on with the third code unit) are
 * the bucket's keywords compared, ASCII case folded for the rules that ignore case (V8's
 * non-Unicode `i` folds ASCII letters with each other only, ADR-070). Two alternations over the
 * whole text did this before (3–11 ms per MiB by the text's characters, and more after a
 * garbage collection dropped their compiled code), then a search per keyword occurrence.
 */
function scanKeywords(text: string, table: KeywordTable): ScanState {
  const { pairs, lists, from, entries } = table;
  // Lists are unnamed in this pass's own copy of the tables, made only for a text long enough
  // for the copy (15 KB) not to matter: a result's structured half is thousands of short strings.
  const own = text.length >= OWN_TABLES_FROM;
  const third = own ? table.third.slice() : table.third;
  const wide = own ? table.wide.slice() : table.wide;
  const state: ScanState = {
    found: spareHits.length > 0 ? spareHits : new Int32Array(256),
    length: 0,
    seen: new Uint8Array(entries.length),
    misses: new Int32Array(entries.length),
    nextAt: new Int32Array(entries.length).fill(-1),
    third,
    wide,
    owned: own,
    table,
  };
  spareHits = NO_HITS; // (taken: given back by hitsOf)
  const n = text.length;
  let c0 = n > 0 ? text.charCodeAt(0) : 0;
  // (The loop holds only table reads; the rare comparisons are a call of their own, so the
  // loop's optimized code meets no path it has not run before.)
  for (let i = 0; i + 1 < n; i++) {
    const c1 = text.charCodeAt(i + 1);
    if ((c0 | c1) < 128) {
      const b = pairs[(c0 << 7) | c1];
      if (b !== 0) {
        const c2 = i + 2 < n ? text.charCodeAt(i + 2) : 128; // (past the end: the wide list)
        const l = c2 < 128 ? third[(b << 7) | c2] : wide[b];
        if (l !== 0) compareList(text, i, lists[l], from[l], state);
      }
    }
    c0 = c1;
  }
  return state;
}

/**
 * The pass's hits split by keyword, with the keywords the tables cannot hold searched alone
 * (`indexOf`, or their own `i` pattern). Apart from the pass, so that the pass's optimized code
 * holds nothing but the loop: inlined, this work (which code with few hits rarely runs) deopted
 * it at the end of every call, and the next call's loop ran unoptimized until replaced on the
 * stack (34 deopts in 33 calls on code).
 */
function hitsOf(text: string, table: KeywordTable, state: ScanState): Hits {
  const hits = byEntry(state.found, state.length, table.entries.length);
  if (state.found.length <= KEPT_HITS) spareHits = state.found;
  for (const entry of table.alone) {
    const search = entry.folded ? new RegExp(escapeLiteral(entry.text), "gi") : undefined;
    const at: number[] = [];
    for (let from = 0;;) {
      let i: number;
      if (search) {
        search.lastIndex = from;
        i = search.test(text) ? search.lastIndex - entry.text.length : -1;
      } else i = text.indexOf(entry.text, from);
      if (i < 0) break;
      at.push(i);
      if (!entry.folded) break; // (an exact keyword: its first offset, as in the pass)
      from = i + 1;
    }
    if (at.length > 0) {
      hits.pos[entry.index] = Int32Array.from(at);
      hits.count[entry.index] = at.length;
    }
  }
  return hits;
}

/**
 * A rule's candidates from the keyword offsets: one keyword's offsets as they are, several
 * merged in order, one candidate per offset (the first of the rule's keywords found there).
 */
function candidatesOf(hits: Hits, ofRule: readonly number[]): Candidates | undefined {
  let present = 0, single = -1;
  for (let j = 0; j < ofRule.length; j++) {
    if (hits.count[ofRule[j]] > 0) {
      present++;
      single = j;
    }
  }
  if (present === 0) return undefined;
  if (present === 1) {
    const e = ofRule[single];
    return { at: hits.pos[e]!, count: hits.count[e], keyword: undefined, only: single };
  }
  let total = 0;
  for (const e of ofRule) total += hits.count[e];
  const at = new Int32Array(total), keyword = new Int32Array(total);
  const cursor = new Int32Array(ofRule.length);
  let count = 0;
  for (;;) {
    let best = -1, bestAt = 0;
    for (let j = 0; j < ofRule.length; j++) {
      const e = ofRule[j];
      if (cursor[j] < hits.count[e]) {
        const p = hits.pos[e]![cursor[j]];
        if (best < 0 || p < bestAt) [best, bestAt] = [j, p];
      }
    }
    if (best < 0) break;
    at[count] = bestAt;
    keyword[count++] = best;
    for (let j = 0; j < ofRule.length; j++) {
      const e = ofRule[j];
      if (cursor[j] < hits.count[e] && hits.pos[e]![cursor[j]] === bestAt) cursor[j]++;
    }
  }
  return { at, count, keyword, only: 0 };
}

/** The lists of a {@linkcode SpanList} that holds no span (never written: its length is 0). */
const NO_SPANS = new Int32Array(0);

/**
 * Spans as three parallel typed lists (start, end, the rule's index in the rule set), sorted by
 * start and disjoint once settled: no object per span while the rules run (a flood of matches
 * makes tens of thousands, and each object lived until the text was replaced, ADR-093), and no
 * boxed array grown by `push` either (ADR-126).
 */
class SpanList {
  // (Empty until the first span: most strings of a result have none, and a typed list costs
  // several objects, which a structured half of 20,000 strings made 1.2–1.8× dearer.)
  start: Int32Array<ArrayBuffer> = NO_SPANS;
  end: Int32Array<ArrayBuffer> = NO_SPANS;
  rule: Int32Array<ArrayBuffer> = NO_SPANS;
  length = 0;

  push(start: number, end: number, rule: number): void {
    const n = this.length;
    if (n === this.start.length) {
      this.start = n === 0 ? new Int32Array(16) : grown(this.start);
      this.end = n === 0 ? new Int32Array(16) : grown(this.end);
      this.rule = n === 0 ? new Int32Array(16) : grown(this.rule);
    }
    this.start[n] = start;
    this.end[n] = end;
    this.rule[n] = rule;
    this.length = n + 1;
  }
}

/**
 * The spans the rules claim, settled as they come (ADR-126: one object whose fields the claim
 * reads, where a closure over `let` variables read each through its context). Overlaps go to
 * the earlier rule: a span is kept only if it overlaps no span kept before. The spans of
 * earlier rules are one sorted list (`kept`); a rule's own (`mine`) come in increasing order
 * (each scan resumes past its last match), so one cursor walks the list once per rule, and a
 * flood of matches costs no per-character occupancy map. A span out of order (none is) is
 * checked against every span.
 */
class Claims {
  kept = new SpanList();
  mine = new SpanList();
  /** The index of the rule whose spans are being claimed. */
  rule = 0;
  cursor = 0;
  lastStart = -1;
  inOrder = true;

  /** Keeps `[start, end)` for the current rule unless it overlaps a span kept already. */
  claim(start: number, end: number): void {
    if (end <= start) return;
    const mine = this.mine, kept = this.kept;
    const n = mine.length;
    if (start < this.lastStart) {
      if (overlapsAny(kept, start, end) || overlapsAny(mine, start, end)) return;
      this.inOrder = false;
    } else {
      let cursor = this.cursor;
      while (cursor < kept.length && kept.end[cursor] <= start) cursor++;
      this.cursor = cursor;
      this.lastStart = start; // (the cursor has passed what ends before it, kept or not)
      if (cursor < kept.length && kept.start[cursor] < end) return;
      if (n > 0 && start < mine.end[n - 1]) return;
      if (n > 0 && start < mine.start[n - 1]) this.inOrder = false;
    }
    mine.push(start, end, this.rule);
  }

  /** The current rule is done: its spans join the kept ones, and the next rule starts. */
  settle(next: number): void {
    if (this.mine.length > 0) {
      const mine = this.inOrder ? this.mine : sortedSpans(this.mine);
      this.kept = this.kept.length === 0 ? mine : merged(this.kept, mine);
      this.mine = new SpanList();
    }
    this.rule = next;
    this.cursor = 0;
    this.lastStart = -1;
    this.inOrder = true;
  }
}

/** Every secret in `text`, sorted by position, none overlapping. */
export function findSecrets(
  text: string,
  rules: readonly SecretRule[] = SECRET_RULES,
): SecretSpan[] {
  const spans = findSpans(text, rules);
  const out: SecretSpan[] = [];
  for (let i = 0; i < spans.length; i++) {
    out.push({ start: spans.start[i], end: spans.end[i], rule: rules[spans.rule[i]].id });
  }
  return out;
}

function findSpans(text: string, rules: readonly SecretRule[]): SpanList {
  const table = keywordTable(rules);
  const hits = hitsOf(text, table, scanKeywords(text, table));
  const claims = new Claims();
  rules.forEach((rule, i) => {
    claims.settle(i);
    if (isBlockRule(rule)) findBlocks(rule, text, claims);
    else {
      const ofRule = table.ofRule[i]!;
      if (!rule.ignoreCase) {
        const first = ofRule.map((e) => hits.count[e] > 0 ? hits.pos[e]![0] : -1);
        if (first.some((at) => at >= 0)) findPattern(rule, text, first, claims);
      } else {
        const candidates = candidatesOf(hits, ofRule);
        if (candidates) findPattern(rule, text, candidates, claims);
      }
    }
  });
  claims.settle(0); // (the last rule's spans join the kept ones; the index is not used again)
  return claims.kept;
}

function overlapsAny(spans: SpanList, start: number, end: number): boolean {
  for (let i = 0; i < spans.length; i++) {
    if (spans.start[i] < end && start < spans.end[i]) return true;
  }
  return false;
}

/** `spans` sorted by start. */
function sortedSpans(spans: SpanList): SpanList {
  const order = Array.from({ length: spans.length }, (_, i) => i)
    .sort((x, y) => spans.start[x] - spans.start[y]);
  const out = new SpanList();
  for (const i of order) out.push(spans.start[i], spans.end[i], spans.rule[i]);
  return out;
}

/** Two sorted lists of spans, none overlapping another, as one sorted by start. */
function merged(a: SpanList, b: SpanList): SpanList {
  const out = new SpanList();
  let i = 0, j = 0;
  const na = a.length, nb = b.length;
  while (i < na && j < nb) {
    if (a.start[i] < b.start[j]) out.push(a.start[i], a.end[i], a.rule[i++]);
    else out.push(b.start[j], b.end[j], b.rule[j++]);
  }
  for (; i < na; i++) out.push(a.start[i], a.end[i], a.rule[i]);
  for (; j < nb; j++) out.push(b.start[j], b.end[j], b.rule[j]);
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

/**
 * The gate is searched only for a rule with at least this many candidates, one per
 * `GATE_DENSITY` code units of the text or more.
 */
const GATE_MIN_CANDIDATES = 64;
const GATE_DENSITY = 64;

/**
 * The first index from `from` on (below `n`) whose offset is `pos` or more (`n` if none):
 * a few steps, then a doubling search and a binary one, so a scan that jumps over a flood of
 * its own keyword does not step through every offset it passed.
 */
function firstFrom(offsets: Int32Array, n: number, from: number, pos: number): number {
  let lo = from;
  for (let i = 0; i < 4; i++) {
    if (lo >= n || offsets[lo] >= pos) return lo;
    lo++;
  }
  let step = 8, hi = lo;
  while (hi < n && offsets[hi] < pos) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > n) hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid] < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Failures of a rule's value after its lead that a scan tries before judging the split (ADR-131). */
const SPLIT_TRIAL = 16;

/** After this many candidates in a row that the gate let through, a scan stops using it. */
const GATE_GIVE_UP = 8;

/**
 * How many values one rule's scan remembers the verdict of: a table of this many slots, a value
 * in the slot its length and three of its code units name (see {@linkcode verdictSlot}).
 */
const VERDICT_SLOTS = 256;

/**
 * The slot of a value in a rule's verdict table: from its length, first, middle and last code
 * units. Values that share a slot evict each other, which costs a verdict, never a wrong one:
 * a slot's value is compared whole before its verdict is used (ADR-126).
 */
export function verdictSlot(secret: string): number {
  const n = secret.length;
  return (Math.imul(n, 0x9e3779b1) ^ Math.imul(secret.charCodeAt(0), 0x85ebca6b) ^
    Math.imul(secret.charCodeAt(n >> 1), 0xc2b2ae35) ^
    Math.imul(secret.charCodeAt(n - 1), 0x27d4eb2f)) >>> 24;
}

/**
 * One rule's verdicts on the values its scan found (entropy, placeholder, the rule's own check),
 * remembered in {@linkcode VERDICT_SLOTS} slots made at the second value judged (most scans
 * judge one or none). A Map of 256 values, cleared when full, cost about 450 ns per distinct
 * value on a flood of them (ADR-126); apart from the scan, whose loop stays as small as before.
 */
class Verdicts {
  readonly #rule: PatternRule;
  #first: string | undefined;
  #firstVerdict = false;
  #judged: (string | undefined)[] | undefined;
  #verdicts: Uint8Array | undefined;

  constructor(rule: PatternRule) {
    this.#rule = rule;
  }

  /** Whether `secret` is kept as a secret of the rule. */
  of(secret: string): boolean {
    if (this.#first === undefined) {
      this.#first = secret;
      return this.#firstVerdict = judge(this.#rule, secret);
    }
    let judged = this.#judged, verdicts = this.#verdicts;
    if (judged === undefined || verdicts === undefined) {
      judged = this.#judged = new Array(VERDICT_SLOTS).fill(undefined);
      verdicts = this.#verdicts = new Uint8Array(VERDICT_SLOTS);
      const slot = verdictSlot(this.#first);
      judged[slot] = this.#first;
      verdicts[slot] = this.#firstVerdict ? 1 : 0;
    }
    const slot = verdictSlot(secret);
    if (judged[slot] === secret) return verdicts[slot] === 1;
    const verdict = judge(this.#rule, secret);
    judged[slot] = secret;
    verdicts[slot] = verdict ? 1 : 0;
    return verdict;
  }
}

/** Whether `rule` keeps `secret`: entropy floor, not a placeholder, the rule's own check. */
function judge(rule: PatternRule, secret: string): boolean {
  return !(rule.minEntropy !== undefined && shannonEntropy(secret) < rule.minEntropy) &&
    !isPlaceholder(secret) && !(rule.accept && !rule.accept(secret));
}

function findPattern(
  rule: PatternRule,
  text: string,
  from: Candidates | number[],
  claims: Claims,
): void {
  const ready = prepared(rule);
  const { re, keywords, notAfter, notBefore, follows: steps } = ready;
  // A rule that ignores case walks the offsets of its keywords that the pass found (ADR-092),
  // skipping those before where it resumes. A case-sensitive one has the first offset of each
  // keyword (-1: none), and looks for the next by `indexOf` only once the scan has passed the
  // last: a flood of one keyword costs one short search per occurrence the scan reaches, and
  // none where it jumps over a run, and the pass records no more than one offset per keyword.
  const nextAt = Array.isArray(from) ? from : undefined;
  const candidates = Array.isArray(from) ? undefined : from;
  const offsets = candidates?.at, which = candidates?.keyword, only = candidates?.only ?? 0;
  const count = candidates?.count ?? 0;
  let next = 0;
  // The last value is compared first: a flood of one value then costs a comparison (ADR-087).
  let verdicts: Verdicts | undefined; // (made at the first value: most scans judge none)
  let lastSecret: string | undefined, lastVerdict = false;
  const gate = ready.gate;
  // Where the tail probe next matches (see tailOf).
  const tail = ready.tail;
  let tailAt = -Infinity;
  // Where the gate last matched, and how many candidates in a row it let through: past a few,
  // each search only adds to the cost of a flood of real matches. The gate searches the text
  // itself, so it pays only where candidates are dense (a flood); on sparse ones each is
  // checked by the steps, which cost less than a search of the text between them (ADR-092).
  // A case-sensitive rule, whose candidates are found one by one, has no count to judge by: it
  // searches its gate once GATE_MIN_CANDIDATES of them have failed the steps or lain inside a
  // run (a flood), and until then checks each by the steps, since the gate's search of all the
  // text after a candidate cost more than the few a text usually holds (ADR-113).
  let gateAt = -1, gatePassed = 0, failed = 0;
  let gateOn = gate !== undefined && nextAt === undefined &&
    count >= GATE_MIN_CANDIDATES && count * GATE_DENSITY >= text.length;
  const armAt = gate !== undefined && nextAt !== undefined ? GATE_MIN_CANDIDATES : -1;
  // Whether the lead and the value are tried before the pattern (ADR-131): until the value has
  // failed after the lead more than SPLIT_TRIAL times and more than half as often as it matched,
  // as on a flood of near misses, where each failure costs the two tests and then an `exec`.
  let split = ready.lead !== undefined, splitHits = 0, splitMisses = 0;
  let pos = 0;
  for (;;) {
    let k = -1, length = 0;
    if (nextAt !== undefined) {
      for (let j = 0; j < nextAt.length; j++) {
        let at = nextAt[j];
        if (at >= 0 && at < pos) nextAt[j] = at = text.indexOf(keywords[j], pos);
        if (at >= 0 && (k < 0 || at < k)) {
          k = at;
          length = keywords[j].length;
        }
      }
      if (k < 0) return;
    } else {
      if (next < count && offsets![next] < pos) next = firstFrom(offsets!, count, next, pos);
      if (next >= count) return;
      k = offsets![next];
      length = keywords[which === undefined ? only : which[next]].length;
    }
    if (tail) {
      // The first tail from where this candidate's could start (ADR-087).
      if (tailAt < k + tail.minLead) tailAt = nextTail(text, tail, k + tail.minLead);
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
      if (++failed === armAt) gateOn = true;
      continue;
    }
    if (steps && !follows(text, k + length, steps)) {
      pos = k + 1;
      if (++failed === armAt) gateOn = true;
      continue;
    }
    // The match's length, and the secret's span; the secret as a string only once judged.
    let matched = -1, start = k, end = k, secret: string | undefined;
    if (split) {
      const lead = ready.lead!;
      lead.lastIndex = k;
      if (!lead.test(text)) {
        pos = k + 1; // (no reading of the lead: the pattern cannot match here)
        continue;
      }
      const value = ready.value!;
      value.lastIndex = start = lead.lastIndex;
      if (value.test(text)) {
        end = value.lastIndex;
        matched = end - k;
        splitHits++;
      } else if (++splitMisses > SPLIT_TRIAL && splitMisses * 2 > splitHits) split = false;
    }
    if (matched < 0) {
      re.lastIndex = k;
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
      end = start + secret.length;
    }
    pos = k + Math.max(1, matched);
    if (notBefore && continuesRun(notBefore, text.charCodeAt(k + matched))) continue;
    // A value a flood repeats is judged once (entropy, placeholder, the rule's own check).
    let verdict: boolean;
    secret ??= text.slice(start, end);
    if (secret === lastSecret) verdict = lastVerdict;
    else {
      verdict = (verdicts ??= new Verdicts(rule)).of(secret);
      lastSecret = secret;
      lastVerdict = verdict;
    }
    if (verdict) claims.claim(start, end);
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
function findBlocks(rule: BlockRule, text: string, claims: Claims): void {
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
    claims.claim(k, end);
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
  const names: string[] = [], index = new Map<string, number>();
  const list = new SpanList();
  for (const { start, end, rule } of spans) {
    let r = index.get(rule);
    if (r === undefined) index.set(rule, r = names.push(rule) - 1);
    list.push(start, end, r);
  }
  return replaceParallel(text, list, names, counts);
}

/** The marker a withheld or redacted secret of `rule` is replaced by. */
export function secretMarker(rule: string): string {
  return `[redacted:${rule}]`;
}

/** `text` with each span of `spans` replaced by its rule's marker (`names[rule]`). */
function replaceParallel(
  text: string,
  spans: SpanList,
  names: readonly string[],
  counts?: RuleCounts,
): string {
  const n = spans.length;
  if (n === 0) return text;
  let out = "";
  let at = 0;
  let rule = -1, marker = "", run = 0;
  for (let i = 0; i < n; i++) {
    // (Each rule's marker built once per run of its spans, not once per span; counted per run.)
    if (spans.rule[i] !== rule) {
      if (run > 0) counts?.set(names[rule], (counts.get(names[rule]) ?? 0) + run);
      marker = secretMarker(names[rule = spans.rule[i]]);
      run = 0;
    }
    out += text.slice(at, spans.start[i]) + marker;
    at = spans.end[i];
    run++;
  }
  if (run > 0) counts?.set(names[rule], (counts.get(names[rule]) ?? 0) + run);
  return out + text.slice(at);
}

/** The rules' ids by index, as spans name them. */
const RULE_IDS = SECRET_RULES.map((rule) => rule.id);

/** `text` with every secret replaced, counting each by rule. */
export function redactSecrets(text: string, counts?: RuleCounts): string {
  return redactSecretsEnding(text, counts).text;
}

/**
 * {@linkcode redactSecrets}, and whether its result ends with a line feed, told from `text` and
 * the last span rather than by reading the result (ADR-127): on a flood of secrets that result
 * is a rope of a piece and a marker per secret, and any read of a character of it flattens the
 * whole (the fence asked, then the response's join copied it again). It ends with `text`'s last
 * character unless the last span reaches the end, and then with the marker's `]`.
 */
export function redactSecretsEnding(
  text: string,
  counts?: RuleCounts,
  rules: readonly SecretRule[] = SECRET_RULES,
): { text: string; endsWithNewline: boolean } {
  const spans = findSpans(text, rules);
  const n = spans.length;
  const last = text.length - 1;
  return {
    text: replaceParallel(
      text,
      spans,
      rules === SECRET_RULES ? RULE_IDS : rules.map((rule) => rule.id),
      counts,
    ),
    endsWithNewline: last >= 0 && text.charCodeAt(last) === 0x0a &&
      (n === 0 || spans.end[n - 1] <= last),
  };
}
