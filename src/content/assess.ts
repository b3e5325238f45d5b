/**
 * Injection assessment: how much a result's untrusted text looks like an
 * attempt to instruct the model that reads it. Signals are found on a folded
 * copy (`fold.ts`: NFKC, confusables, invisible characters removed, tag
 * characters decoded); each has a weight, and the risk combines the distinct
 * signals found by noisy-OR: `risk = 1 − Π(1 − weight)`. Levels:
 * `none` (no signal), `low` (risk < 0.5), `elevated` (< 0.8), `high`.
 * Findings are capped per signal and overall, excerpts are short and escaped.
 *
 * Every pattern is bounded and runs on the default engine over the folded
 * copy once (`scripts/bench_content.ts` measures it on hostile input).
 *
 * @module
 */

import { escapeControlCharacters } from "../contract/text.ts";
import { BIDI, foldForAssessment, INVISIBLE, TAGS } from "./fold.ts";

/** Assessment levels, lowest first. */
export const LEVELS = ["none", "low", "elevated", "high"] as const;
export type Level = typeof LEVELS[number];

/** Risk at or above which a result is `elevated`, and `high`. */
export const ELEVATED_AT = 0.5;
export const HIGH_AT = 0.8;

/** Findings kept per signal, and overall. */
export const MAX_FINDINGS_PER_SIGNAL = 3;
export const MAX_FINDINGS = 12;
/** Characters of an excerpt (after escaping). */
export const MAX_EXCERPT = 100;

/** One finding. */
export interface Signal {
  readonly id: string;
  readonly description: string;
  /** 1-based line of the source (the file's line numbers for numbered parts). */
  readonly line: number;
  /** A short, escaped piece of the line. */
  readonly excerpt: string;
}

/** What the assessment says about one result. */
export interface ContentAssessment {
  readonly level: Level;
  readonly risk: number;
  readonly signals: Signal[];
  /** Invisible, bidi and tag characters in the untrusted text (before folding). */
  readonly invisible_characters: number;
}

/** A signal class: found by a pattern on the folded copy (or on the raw text). */
export interface SignalClass {
  readonly id: string;
  readonly description: string;
  readonly weight: number;
  /** Global pattern over the folded, lowercased copy. */
  readonly folded?: RegExp;
  /** Global pattern over the raw text (characters folding removes). */
  readonly raw?: RegExp;
}

const W = "[^.\\n]";

/** The signal classes, with their weights. */
export const SIGNAL_CLASSES: readonly SignalClass[] = [
  {
    id: "instruction_override",
    description: "Tells the reader to ignore or replace its previous instructions.",
    weight: 0.6,
    folded: new RegExp(
      `\\b(?:ignore|disregard|forget|override|bypass|abandon|discard|skip)\\b${W}{0,40}?\\b(?:all|any|previous|prior|above|earlier|preceding|existing|original|your|the|former)\\b${W}{0,30}?\\b(?:instructions?|directions?|rules|prompts?|guidelines|guardrails|constraints|directives|programming|orders)\\b`,
      "g",
    ),
  },
  {
    id: "assistant_address",
    description: "Addresses the AI assistant or model reading the text.",
    weight: 0.5,
    folded: new RegExp(
      [
        `\\b(?:ai|llm)[ -](?:assistants?|agents?|models?|coders?)\\s{0,3}[:,]`,
        `\\b(?:dear|attention|note to|hey|hello|hi|to)\\s{1,3}(?:the\\s{1,3})?(?:ai|llm|assistant|agent|claude|chatgpt|gpt|copilot|gemini|cursor|language model)\\b\\s{0,3}[:,!]`,
        `\\b(?:(?:to|for)\\s{1,3}(?:the|any|all)\\s{1,3})?(?:ai|llm|language|assistant|agent|bot)s?(?:\\s{1,3}(?:assistant|agent|model|bot)s?)?\\s{1,3}(?:reading|processing|analy[sz]ing|reviewing|summari[sz]ing|parsing|scanning)\\s{1,3}(?:this|these|the)\\b`,
        `\\bif\\s{1,3}you\\s{1,3}are\\s{1,3}(?:an?\\s{1,3})?(?:ai|llm|language model|assistant|agent|bot)\\b`,
      ].join("|"),
      "g",
    ),
  },
  {
    id: "system_prompt_extraction",
    description: "Asks for the system prompt or hidden instructions.",
    weight: 0.6,
    folded: new RegExp(
      `\\b(?:reveal|print|show|output|repeat|leak|display|dump|disclose|tell me|share|recite|write out|give me|paste)\\b${W}{0,30}?(?:\\b(?:your|the)\\s{1,3}(?:system|initial|original|hidden|secret|full|entire)\\s{1,3}(?:prompt|instructions|message|guidelines)|\\byour\\s{1,3}(?:prompt|instructions|guidelines|rules)|\\bthe\\s{1,3}system\\s{1,3}prompt)\\b`,
      "g",
    ),
  },
  {
    id: "role_switch",
    description: "Tries to switch the reader's role or mode (you are now…, developer/DAN mode).",
    weight: 0.55,
    folded:
      /\byou\s{1,3}are\s{1,3}now\b|\bfrom\s{1,3}now\s{1,3}on,?\s{1,3}you\b|\b(?:act|behave)\s{1,3}as\s{1,3}(?:an?\s{1,3})?(?:unrestricted|unfiltered|jailbroken|evil|uncensored)\b|\b(?:dan|god|jailbreak|unrestricted)\s{1,3}mode\b|\bdeveloper\s{1,3}mode\s{1,3}(?:enabled|activated|on)\b|\bpretend\s{1,3}(?:to\s{1,3}be|you\s{1,3}are)\b|\bdo\s{1,3}anything\s{1,3}now\b|\byour\s{1,3}new\s{1,3}(?:role|persona|identity)\b/g,
  },
  {
    id: "fake_instruction_header",
    description: "A header that poses as new or system instructions.",
    weight: 0.55,
    folded:
      /\b(?:new|updated|revised|important|additional|real|actual|hidden|secret|override|urgent)\s{1,3}(?:system\s{1,3})?(?:instructions?|directives?|orders)\s{0,3}:|^[ \t#*>[<!-]{0,8}(?:system prompt|system message|system override|admin override|system instructions?)\s{0,3}[\]>*]{0,3}\s{0,3}:|^[ \t#*>[<!-]{0,8}system\s{0,3}[\]>*]{0,3}\s{0,3}:\s{0,3}(?:you|ignore|from now|always|never|do not|disregard|the assistant)/gm,
  },
  {
    id: "chat_template",
    description: "Chat-template tokens or role lines that fake a conversation turn.",
    weight: 0.7,
    folded:
      /<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|begin_of_text|end_of_text|start_header_id|end_header_id|eot_id|eom_id)\|>|\[\/?inst\]|<<\/?sys>>|<\/?start_of_turn>|<end_of_turn>|^[ \t#]{0,6}(?:human|assistant)\s{0,3}:/gm,
  },
  {
    id: "exfiltration",
    description: "Asks to send data to a URL, or embeds an image URL that carries data out.",
    weight: 0.6,
    folded: new RegExp(
      [
        `\\b(?:send|post|upload|exfiltrate|transmit|forward|leak|submit|email|beacon)\\b[^\\n]{0,60}?\\b(?:to|at|into|via)\\b[^\\n]{0,20}?https?://`,
        `\\b(?:send|post|upload|email|share|include|paste|append|exfiltrate|leak)\\b${W}{0,50}?\\b(?:api keys?|secrets?|tokens?|credentials|passwords?|\\.env|ssh keys?|environment variables|private keys?|id_rsa|aws keys?)\\b`,
        `!\\[[^\\]\\n]{0,100}\\]\\(\\s{0,3}https?://[^)\\s]{1,300}\\?[^)\\s]{0,300}=`,
      ].join("|"),
      "g",
    ),
  },
  {
    id: "command_execution",
    description: "Bait to run a downloaded script or a destructive command.",
    weight: 0.4,
    folded:
      /\b(?:curl|wget)\b[^\n|]{0,200}\|\s{0,3}(?:sudo\s{1,3})?(?:ba|z|da)?sh\b|\bbash\s{1,3}<\(\s{0,3}(?:curl|wget)|\brm\s{1,3}-rf\s{1,3}(?:\/|~|\$home)(?:\s|$)/g,
  },
  {
    id: "obfuscated_command",
    description: "A download-and-run or encoded command (PowerShell -enc, iex of a download).",
    weight: 0.6,
    folded:
      /\b(?:iex|invoke-expression)\b[^\n]{0,50}?(?:iwr|invoke-webrequest|downloadstring)|\bpowershell\b[^\n]{0,30}\s-e(?:nc(?:odedcommand)?)?\s{1,3}[a-z0-9+/=]{20}|\bbase64\s{1,3}(?:-d|--decode)\b[^\n]{0,40}\|\s{0,3}(?:ba|z)?sh\b/g,
  },
  {
    id: "authority_claim",
    description: "Claims authority over the reader's instructions.",
    weight: 0.55,
    folded:
      /\bthis\s{1,3}(?:message|instruction|note|comment|file|text|directive)\s{1,3}(?:overrides|supersedes|takes\s{1,3}precedence)|\btakes?\s{1,3}precedence\s{1,3}over\s{1,3}(?:all|any|your|previous|prior|the system)|\b(?:highest|top|maximum)[ -]priority\s{1,3}(?:instruction|directive|override|order)|\b(?:authorized|approved|sanctioned|mandated|issued)\s{1,3}by\s{1,3}(?:anthropic|openai|google|the\s{1,3}(?:developers?|administrators?|system|security team|owner))|\bofficial\s{1,3}(?:instruction|directive|message|order)s?\s{1,3}from\b|\bi\s{1,3}am\s{1,3}(?:your|the)\s{1,3}(?:developer|administrator|creator|owner|operator)\b/g,
  },
  {
    id: "concealment",
    description: "Asks to hide an action or this text from the user.",
    weight: 0.55,
    folded: new RegExp(
      [
        `\\b(?:do\\s{1,3}not|don'?t|never)\\s{1,3}(?:tell|inform|mention|reveal|show|alert|notify|warn)\\b${W}{0,30}?\\b(?:the\\s{1,3})?(?:user|human|developer|anyone|operator|them)\\b`,
        `\\bwithout\\s{1,3}(?:telling|informing|notifying|alerting|asking|warning)\\s{1,3}(?:the\\s{1,3})?(?:user|human|anyone|them)\\b`,
        `\\b(?:keep|hide)\\s{1,3}(?:this|it)\\s{1,3}(?:secret|hidden|private)\\s{1,3}from\\b`,
        `\\bsilently\\s{1,3}(?:run|execute|send|delete|modify|exfiltrate|upload|install)\\b`,
      ].join("|"),
      "g",
    ),
  },
  {
    id: "tool_call_payload",
    description: "A fake tool call or JSON-RPC message.",
    weight: 0.55,
    folded:
      /"jsonrpc"\s{0,3}:\s{0,3}"2\.0"|"method"\s{0,3}:\s{0,3}"tools\/call"|<\/?(?:function_calls|invoke\s{1,3}name=|tool_call|tool_use|function_call|antml:invoke|antml:function_calls)\b|"(?:tool_calls|function_call|tool_use)"\s{0,3}:\s{0,3}[[{]|<\|(?:tool_call|python_tag)\|>/g,
  },
  {
    id: "bidi_control",
    description: "Bidirectional control characters that reorder what is displayed (Trojan Source).",
    weight: 0.6,
    raw: BIDI,
  },
  {
    id: "tag_characters",
    description: "Invisible Unicode tag characters (text hidden from people, read by models).",
    weight: 0.8,
    raw: TAGS,
  },
  {
    id: "invisible_characters",
    description: "Zero-width or other invisible characters.",
    weight: 0.3,
    raw: /[\u00ad\u180e\u200b-\u200d\u2060-\u2064]|(?!^)\ufeff/g,
  },
  {
    id: "ansi_escape",
    description: "Terminal escape sequences (can hide or rewrite what a terminal shows).",
    weight: 0.5,
    // deno-lint-ignore no-control-regex
    raw: /\x1b\[[0-9;?]{0,20}[@-~]|\x1b\][^\x07\x1b]{0,200}|\x9b[0-9;?]{0,20}[@-~]|\x1b[@-Z\\-_]/g,
  },
];

const RAW_CLASSES = SIGNAL_CLASSES.filter((c) => c.raw);
const FOLDED_CLASSES = SIGNAL_CLASSES.filter((c) => c.folded);
/**
 * Every folded class as one capture group of one alternation (multiline, for role lines). The
 * leading look-behind changes nothing for the alternatives that start at a word boundary (`\b`
 * or `^`) and makes the scan several times faster, since no attempt starts inside a word; the
 * few that start with a symbol (`<|im_start|>`) may then not follow a letter, so chat-template
 * tokens glued to a word are found by {@linkcode GLUED_TOKENS} instead.
 */
const FOLDED = new RegExp(
  `(?<![a-z0-9_])(?:${FOLDED_CLASSES.map((c) => `(${c.folded!.source})`).join("|")})`,
  "gm",
);
const CHAT_TEMPLATE = SIGNAL_CLASSES.find((c) => c.id === "chat_template")!;
const GLUED_TOKENS =
  /(?<=[a-z0-9_])(?:<\|[a-z_]{2,20}\|>|\[\/?inst\]|<<\/?sys>>|<\/?(?:start|end)_of_turn>)/g;

/** Untrusted text to assess: the text and the source line number of each of its lines. */
export interface AssessedText {
  readonly text: string;
  /** `text` has `N\t` line-number prefixes (read_file). */
  readonly numbered?: boolean;
}

/** Splits numbered text into plain text and the line numbers. */
function unnumber(text: string): { text: string; lines: number[] } {
  const lines: number[] = [];
  const bodies = text.split("\n").map((line, i) => {
    const m = /^ {0,12}(\d{1,10})\t/.exec(line);
    lines.push(m ? Number(m[1]) : i + 1);
    return m ? line.slice(m[0].length) : line;
  });
  return { text: bodies.join("\n"), lines };
}

/** Line starts of `text` (index of each line's first character). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

function lineAt(starts: number[], index: number): number {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function excerptOf(line: string, column: number): string {
  const from = Math.max(0, column - 30);
  const piece = escapeControlCharacters(line.slice(from, from + MAX_EXCERPT));
  const cut = piece.length > MAX_EXCERPT ? piece.slice(0, MAX_EXCERPT) : piece;
  return (from > 0 ? "…" : "") + cut + (from + MAX_EXCERPT < line.length ? "…" : "");
}

/** Counts invisible, bidi and tag characters. */
export function countInvisible(text: string): number {
  let n = 0;
  INVISIBLE.lastIndex = 0;
  while (INVISIBLE.exec(text)) n++;
  return n;
}

/** The level a risk falls in (`none` only when nothing was found). */
export function levelOf(risk: number, found: boolean): Level {
  if (!found) return "none";
  return risk >= HIGH_AT ? "high" : risk >= ELEVATED_AT ? "elevated" : "low";
}

/** Assesses the untrusted texts of one result. */
export function assessContent(parts: readonly AssessedText[]): ContentAssessment {
  const byClass = new Map<string, Signal[]>();
  let invisible = 0;
  for (const part of parts) {
    const { text, lines } = part.numbered
      ? unnumber(part.text)
      : { text: part.text, lines: undefined };
    invisible += countInvisible(text);
    // Line starts are computed only once something is found (most texts have no signal).
    let rawStarts: number[] | undefined;
    let foldedStarts: number[] | undefined;
    const record = (cls: SignalClass, index: number, starts: number[], hay: string) => {
      const found = byClass.get(cls.id) ?? [];
      if (found.length >= MAX_FINDINGS_PER_SIGNAL) return;
      const line = lineAt(starts, index);
      rawStarts ??= lineStarts(text);
      const from = rawStarts[line] ?? text.length;
      const nl = text.indexOf("\n", from);
      found.push({
        id: cls.id,
        description: cls.description,
        line: lines ? lines[line] ?? line + 1 : line + 1,
        excerpt: excerptOf(text.slice(from, nl < 0 ? text.length : nl), index - starts[line]),
      });
      byClass.set(cls.id, found);
      void hay;
    };
    for (const cls of RAW_CLASSES) {
      const re = cls.raw!;
      re.lastIndex = 0;
      let n = 0;
      for (let m = re.exec(text); m && n < MAX_FINDINGS_PER_SIGNAL; m = re.exec(text), n++) {
        record(cls, m.index, rawStarts ??= lineStarts(text), text);
      }
    }
    // The folded classes run as one alternation: one pass over the copy, whatever their number.
    // After a find the scan resumes one character on, so a match of another class that starts
    // inside it is still found.
    const hay = foldForAssessment(text);
    FOLDED.lastIndex = 0;
    for (let m = FOLDED.exec(hay); m; m = FOLDED.exec(hay)) {
      const k = FOLDED_CLASSES.findIndex((_, i) => m![i + 1] !== undefined);
      foldedStarts ??= lineStarts(hay);
      if (k >= 0) record(FOLDED_CLASSES[k], m.index, foldedStarts, hay);
      FOLDED.lastIndex = m.index + 1;
    }
    GLUED_TOKENS.lastIndex = 0;
    for (let m = GLUED_TOKENS.exec(hay); m; m = GLUED_TOKENS.exec(hay)) {
      record(CHAT_TEMPLATE, m.index, foldedStarts ??= lineStarts(hay), hay);
    }
  }
  let keep = 1;
  for (const cls of SIGNAL_CLASSES) if (byClass.has(cls.id)) keep *= 1 - cls.weight;
  const risk = Math.round((1 - keep) * 1000) / 1000;
  // The strongest classes first, so the cap drops the weakest findings.
  const signals = SIGNAL_CLASSES.filter((c) => byClass.has(c.id))
    .sort((a, b) => b.weight - a.weight)
    .flatMap((c) => byClass.get(c.id)!)
    .slice(0, MAX_FINDINGS);
  return {
    level: levelOf(risk, byClass.size > 0),
    risk,
    signals,
    invisible_characters: invisible,
  };
}
