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
import { BIDI, foldCounting, foldInto, foldUnits, SPECIAL, stripEscapes, TAGS } from "./fold.ts";
import {
  curlMay,
  curlOrWgetAt,
  findWitnesses,
  releaseWitnesses,
  stopAfter,
  WITNESS_AFTER,
  WITNESS_CHUNK,
  WITNESS_JUDGED_AFTER,
  WITNESS_REACH,
  WITNESS_SPACING,
  witnessReach,
  witnessWithin,
} from "./upload_reader.ts";

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
  /**
   * The gate of a folded class (ADR-072): every match of `folded` starts with one of these
   * words (a whole word of `[a-z0-9_]`), or, for `lineWords`, starts a line that holds only
   * `[ \t#*>[<!-]` (at most 8 of them) before that word, or, for `symbols`, starts with one of
   * these two characters. The pattern is tried only where its gate opens.
   */
  readonly words?: readonly string[];
  readonly lineWords?: readonly string[];
  readonly symbols?: readonly string[];
  /**
   * A second gate for the candidates its `words` open: every match that starts with one of
   * `words` holds one of these words too (it may be the first one), starting at most `reach`
   * characters after the match. A word candidate without one is not tried, so a flood of a
   * common gate word (`to`, `you`, `ignore`) costs the scan and nothing more.
   */
  readonly confirm?: {
    readonly reach: number;
    readonly words: readonly string[];
    /**
     * Some of the class's own gate words (its `words`) that every match starting with them
     * holds: their candidates need none of the confirming `words` above, and they confirm no
     * other candidate. In an ASCII text the class's reader stands in for a confirming word
     * (ADR-124, ADR-130); in any other the pattern is tried.
     */
    readonly self?: readonly string[];
  };
}

const W = "[^.\\n]";

/*
 * Command-line uploads (`command_upload`, ADR-115). The pieces are lowercase ASCII (the class
 * runs with `i` over the folded copy, the reference over its lowercased fold). Every run is
 * bounded, and the only run of shell words after a gate word stops at the next gate word, so a
 * flood of failing `curl …` candidates reads each character of it about once.
 */
/** A local source that holds credentials, somewhere in a path (the denylist's names, mostly). */
const SENSITIVE = String
  .raw`(?:\.(?:env|envrc|aws|npmrc|netrc|pypirc|git-credentials|gitconfig|git/config|docker/config|kube/config|pgpass|vault-token|pem|key|p12|pfx|tfstate|tfvars|config/gh|gnupg|(?:bash|zsh|python|psql|mysql|node_repl)_history)\b|/(?:etc/(?:passwd|shadow)|proc/self/environ)\b|\b(?:id_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)|credentials\b|kubeconfig\b|secrets?\b))`;
/** A path that names a sensitive source, read from where the path starts. */
const SENSITIVE_PATH = String.raw`["']?[^\s'"|;@<]{0,100}?${SENSITIVE}`;
/**
 * A variable named for a secret: `$GITHUB_TOKEN`, `${AWS_SECRET_ACCESS_KEY}`, PowerShell's
 * `$env:NPM_TOKEN`, a GitHub Actions `${{ secrets.X }}`.
 */
const SECRET_VARIABLE = String
  .raw`(?:\$\{?(?:env:)?[a-z0-9_]{0,40}?(?:token|secret|passwd|password|api_?key|access_key|private_key|credentials?)\b|\$\{\{[ \t]{0,3}secrets\.)`;
/** A command substitution that reads a sensitive source, the environment, or a secret. */
const SECRET_SUBSTITUTION = String
  .raw`(?:\$\(|\x60)[^()\x60\n]{0,100}?(?:${SENSITIVE}|\b(?:env|printenv|whoami|hostname|history)\b|\bauth\s{1,3}token\b|\bget-secret-value\b|${SECRET_VARIABLE})`;
/** A shell-word separator on one line, or across `\` line continuations (one loop: ADR-115). */
const SEP = String.raw`(?:[ \t]|\\\r?\n){1,24}`;
/** Flags whose value is the request's body or a form field (curl, wget, PowerShell). */
const DATA_FLAG = String
  .raw`(?:-[a-z]{0,3}[df]|--(?:data(?:-binary|-raw|-ascii|-urlencode)?|json|form(?:-string)?|post-data|body-data)|-body)`;
/** Flags whose value is a file to upload (curl `-T`, wget, PowerShell `-InFile`). */
const FILE_FLAG = String.raw`(?:-[a-z]{0,3}t|--(?:upload-file|post-file|body-file)|-infile)`;
/** A value (quoted or one word) that holds `@file`/`<file` of a sensitive source, a substitution or a secret variable. */
const SECRET_VALUE = String
  .raw`(?:"(?:[^"\\\n]|\\.){0,200}?|'[^'\n]{0,200}?|[^\s'"]{0,100}?)(?:[@<]${SENSITIVE_PATH}|${SECRET_SUBSTITUTION}|${SECRET_VARIABLE})`;
/** A URL that embeds a secret substitution or variable. */
const SECRET_URL = String
  .raw`["']?(?:https?|ftps?)://[^\s'"]{0,300}?(?:${SECRET_SUBSTITUTION}|${SECRET_VARIABLE})`;
/** What curl or wget sends, at the start of a shell word. */
const UPLOAD_PAYLOAD = String
  .raw`(?:${DATA_FLAG}(?:${SEP}|=)?${SECRET_VALUE}|${FILE_FLAG}(?:${SEP}|=)?${SENSITIVE_PATH}|${SECRET_URL}|<[ \t]{0,3}${SENSITIVE_PATH})`;
/** What PowerShell's web cmdlets send: `-Body`, `-InFile`, or the URL. */
const POWERSHELL_PAYLOAD = String
  .raw`(?:-body${SEP}${SECRET_VALUE}|-infile${SEP}${SENSITIVE_PATH}|${SECRET_URL})`;
/** The commands that send a request; a shell word that is one ends the words a candidate reads. */
const UPLOAD_TOOLS = String
  .raw`(?:curl|wget|invoke-webrequest|invoke-restmethod|iwr|irm|nc|ncat|netcat)`;
/** Up to 16 shell words after a command, none of them another command. */
const UPLOAD_WORDS = String.raw`(?:${SEP}(?!${UPLOAD_TOOLS}\b)[^\s|]{1,200}){0,16}?${SEP}`;
/**
 * Words every match of `command_upload` that starts with PowerShell's or nc's command holds (its
 * confirming words): a payload flag or the URL's scheme for PowerShell, the source's name for nc.
 * A curl/wget candidate is confirmed by itself (`self`: ADR-130), so these are not looked for
 * after it and it confirms nothing else.
 */
const UPLOAD_CONFIRM = [
  "body",
  "infile",
  "http",
  "https",
  "ftp",
  "ftps",
  // The words of SENSITIVE, one per alternative (the redirect nc reads from).
  ...["env", "envrc", "aws", "npmrc", "netrc", "pypirc", "git", "gitconfig", "docker", "kube"],
  ...["pgpass", "vault", "pem", "key", "p12", "pfx", "tfstate", "tfvars", "config", "gnupg"],
  ...["bash", "zsh", "python", "psql", "mysql", "node_repl"].map((s) => `${s}_history`),
  ...["etc", "proc", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "credentials", "kubeconfig"],
  ...["secret", "secrets"],
];
/** httpie's request items: `field@file`, `field=$SECRET`, `field:=$(…)`, or a body redirected in. */
const HTTPIE_PAYLOAD = String
  .raw`(?:[a-z0-9_-]{1,40}(?:@${SENSITIVE_PATH}|:?=${SECRET_VALUE})|<[ \t]{0,3}${SENSITIVE_PATH})`;

/** The signal classes, with their weights. */
export const SIGNAL_CLASSES: readonly SignalClass[] = [
  {
    id: "instruction_override",
    confirm: {
      reach: 120,
      words: [
        "instruction",
        "instructions",
        "direction",
        "directions",
        "rules",
        "prompt",
        "prompts",
        "guidelines",
        "guardrails",
        "constraints",
        "directives",
        "programming",
        "orders",
      ],
    },
    words: ["ignore", "disregard", "forget", "override", "bypass", "abandon", "discard", "skip"],
    description: "Tells the reader to ignore or replace its previous instructions.",
    weight: 0.6,
    folded: new RegExp(
      `\\b(?:ignore|disregard|forget|override|bypass|abandon|discard|skip)\\b${W}{0,40}?\\b(?:all|any|previous|prior|above|earlier|preceding|existing|original|your|the|former)\\b${W}{0,30}?\\b(?:instructions?|directions?|rules|prompts?|guidelines|guardrails|constraints|directives|programming|orders)\\b`,
      "g",
    ),
  },
  {
    id: "assistant_address",
    confirm: {
      reach: 60,
      words: [
        "ai",
        "ais",
        "llm",
        "llms",
        "assistant",
        "assistants",
        "agent",
        "agents",
        "model",
        "models",
        "coder",
        "coders",
        "claude",
        "chatgpt",
        "gpt",
        "copilot",
        "gemini",
        "cursor",
        "language",
        "languages",
        "bot",
        "bots",
        "reading",
        "processing",
        "analysing",
        "analyzing",
        "reviewing",
        "summarising",
        "summarizing",
        "parsing",
        "scanning",
      ],
    },
    words: [
      "ai",
      "ais",
      "llm",
      "llms",
      "dear",
      "attention",
      "note",
      "hey",
      "hello",
      "hi",
      "to",
      "for",
      "language",
      "languages",
      "assistant",
      "assistants",
      "agent",
      "agents",
      "bot",
      "bots",
      "if",
    ],
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
    confirm: { reach: 80, words: ["prompt", "instructions", "message", "guidelines", "rules"] },
    words: [
      "reveal",
      "print",
      "show",
      "output",
      "repeat",
      "leak",
      "display",
      "dump",
      "disclose",
      "tell",
      "share",
      "recite",
      "write",
      "give",
      "paste",
    ],
    description: "Asks for the system prompt or hidden instructions.",
    weight: 0.6,
    folded: new RegExp(
      `\\b(?:reveal|print|show|output|repeat|leak|display|dump|disclose|tell me|share|recite|write out|give me|paste)\\b${W}{0,30}?(?:\\b(?:your|the)\\s{1,3}(?:system|initial|original|hidden|secret|full|entire)\\s{1,3}(?:prompt|instructions|message|guidelines)|\\byour\\s{1,3}(?:prompt|instructions|guidelines|rules)|\\bthe\\s{1,3}system\\s{1,3}prompt)\\b`,
      "g",
    ),
  },
  {
    id: "role_switch",
    confirm: {
      reach: 40,
      words: [
        "now",
        "unrestricted",
        "unfiltered",
        "jailbroken",
        "evil",
        "uncensored",
        "mode",
        "role",
        "persona",
        "identity",
        "pretend",
      ],
    },
    words: [
      "you",
      "from",
      "act",
      "behave",
      "dan",
      "god",
      "jailbreak",
      "unrestricted",
      "developer",
      "pretend",
      "do",
      "your",
    ],
    description: "Tries to switch the reader's role or mode (you are now…, developer/DAN mode).",
    weight: 0.55,
    folded:
      /\byou\s{1,3}are\s{1,3}now\b|\bfrom\s{1,3}now\s{1,3}on,?\s{1,3}you\b|\b(?:act|behave)\s{1,3}as\s{1,3}(?:an?\s{1,3})?(?:unrestricted|unfiltered|jailbroken|evil|uncensored)\b|\b(?:dan|god|jailbreak|unrestricted)\s{1,3}mode\b|\bdeveloper\s{1,3}mode\s{1,3}(?:enabled|activated|on)\b|\bpretend\s{1,3}(?:to\s{1,3}be|you\s{1,3}are)\b|\bdo\s{1,3}anything\s{1,3}now\b|\byour\s{1,3}new\s{1,3}(?:role|persona|identity)\b/g,
  },
  {
    id: "fake_instruction_header",
    confirm: {
      reach: 40,
      words: ["instruction", "instructions", "directive", "directives", "orders"],
    },
    words: [
      "new",
      "updated",
      "revised",
      "important",
      "additional",
      "real",
      "actual",
      "hidden",
      "secret",
      "override",
      "urgent",
    ],
    lineWords: ["system", "admin"],
    description: "A header that poses as new or system instructions.",
    weight: 0.55,
    folded:
      /\b(?:new|updated|revised|important|additional|real|actual|hidden|secret|override|urgent)\s{1,3}(?:system\s{1,3})?(?:instructions?|directives?|orders)\s{0,3}:|^[ \t#*>[<!-]{0,8}(?:system prompt|system message|system override|admin override|system instructions?)\s{0,3}[\]>*]{0,3}\s{0,3}:|^[ \t#*>[<!-]{0,8}system\s{0,3}[\]>*]{0,3}\s{0,3}:\s{0,3}(?:you|ignore|from now|always|never|do not|disregard|the assistant)/gm,
  },
  {
    id: "chat_template",
    lineWords: ["human", "assistant"],
    symbols: ["<|", "[i", "[/", "<<", "<s", "</", "<e"],
    description: "Chat-template tokens or role lines that fake a conversation turn.",
    weight: 0.7,
    folded:
      /<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|begin_of_text|end_of_text|start_header_id|end_header_id|eot_id|eom_id)\|>|\[\/?inst\]|<<\/?sys>>|<\/?start_of_turn>|<end_of_turn>|^[ \t#]{0,6}(?:human|assistant)\s{0,3}:/gm,
  },
  {
    id: "exfiltration",
    confirm: {
      reach: 120,
      words: [
        "http",
        "https",
        "api",
        "keys",
        "key",
        "secret",
        "secrets",
        "token",
        "tokens",
        "credentials",
        "password",
        "passwords",
        "env",
        "ssh",
        "environment",
        "private",
        "id_rsa",
        "aws",
      ],
    },
    words: [
      "send",
      "post",
      "upload",
      "exfiltrate",
      "transmit",
      "forward",
      "leak",
      "submit",
      "email",
      "beacon",
      "share",
      "include",
      "paste",
      "append",
    ],
    symbols: ["!["],
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
    id: "command_upload",
    // The longest match: 16 words of 200 characters and their separators, then the payload.
    confirm: { reach: 4_000, words: UPLOAD_CONFIRM, self: ["curl", "wget"] },
    words: ["curl", "wget", "invoke", "iwr", "irm", "nc", "ncat", "netcat"],
    lineWords: ["http", "https"],
    description:
      "A curl/wget/httpie/Invoke-WebRequest/nc command that uploads a local secret (a key or .env file, the environment, a secret variable).",
    weight: 0.6,
    folded: new RegExp(
      [
        String.raw`\b(?:curl|wget)${UPLOAD_WORDS}${UPLOAD_PAYLOAD}`,
        String
          .raw`\b(?:invoke-webrequest|invoke-restmethod|iwr|irm)${UPLOAD_WORDS}${POWERSHELL_PAYLOAD}`,
        String.raw`\b(?:nc|ncat|netcat)${UPLOAD_WORDS}<[ \t]{0,3}${SENSITIVE_PATH}`,
        String
          .raw`^[ \t#*>[<!-]{0,8}https?(?:${SEP}-[a-z-]{1,20}){0,4}${SEP}(?:post|put|patch)\b${UPLOAD_WORDS}${HTTPIE_PAYLOAD}`,
      ].join("|"),
      "gm",
    ),
  },
  {
    id: "command_execution",
    // Every match holds a shell's name or `rf` (`bash <(curl` starts with one): a curl or wget
    // without one, the commonest case, is not tried (ADR-115).
    confirm: { reach: 240, words: ["sh", "bash", "zsh", "dash", "rf"] },
    words: ["curl", "wget", "bash", "rm"],
    description: "Bait to run a downloaded script or a destructive command.",
    weight: 0.4,
    folded:
      /\b(?:curl|wget)\b(?:(?!\b(?:curl|wget)\b)[^\n|]){0,200}\|\s{0,3}(?:sudo\s{1,3})?(?:ba|z|da)?sh\b|\bbash\s{1,3}<\(\s{0,3}(?:curl|wget)|\brm\s{1,3}-rf\s{1,3}(?:\/|~|\$home)(?:\s|$)/g,
  },
  {
    id: "obfuscated_command",
    confirm: {
      reach: 90,
      words: ["iwr", "invoke", "downloadstring", "e", "enc", "encodedcommand", "d", "decode"],
    },
    words: ["iex", "invoke", "powershell", "base64"],
    description: "A download-and-run or encoded command (PowerShell -enc, iex of a download).",
    weight: 0.6,
    folded:
      /\b(?:iex|invoke-expression)\b[^\n]{0,50}?(?:iwr|invoke-webrequest|downloadstring)|\bpowershell\b[^\n]{0,30}\s-e(?:nc(?:odedcommand)?)?\s{1,3}[a-z0-9+/=]{20}|\bbase64\s{1,3}(?:-d|--decode)\b[^\n]{0,40}\|\s{0,3}(?:ba|z)?sh\b/g,
  },
  {
    id: "authority_claim",
    confirm: {
      reach: 50,
      words: [
        "overrides",
        "supersedes",
        "precedence",
        "priority",
        "anthropic",
        "openai",
        "google",
        "developer",
        "developers",
        "administrator",
        "administrators",
        "system",
        "security",
        "owner",
        "creator",
        "operator",
        "official",
      ],
    },
    words: [
      "this",
      "take",
      "takes",
      "highest",
      "top",
      "maximum",
      "authorized",
      "approved",
      "sanctioned",
      "mandated",
      "issued",
      "official",
      "i",
    ],
    description: "Claims authority over the reader's instructions.",
    weight: 0.55,
    folded:
      /\bthis\s{1,3}(?:message|instruction|note|comment|file|text|directive)\s{1,3}(?:overrides|supersedes|takes\s{1,3}precedence)|\btakes?\s{1,3}precedence\s{1,3}over\s{1,3}(?:all|any|your|previous|prior|the system)|\b(?:highest|top|maximum)[ -]priority\s{1,3}(?:instruction|directive|override|order)|\b(?:authorized|approved|sanctioned|mandated|issued)\s{1,3}by\s{1,3}(?:anthropic|openai|google|the\s{1,3}(?:developers?|administrators?|system|security team|owner))|\bofficial\s{1,3}(?:instruction|directive|message|order)s?\s{1,3}from\b|\bi\s{1,3}am\s{1,3}(?:your|the)\s{1,3}(?:developer|administrator|creator|owner|operator)\b/g,
  },
  {
    id: "concealment",
    confirm: {
      reach: 80,
      words: [
        "user",
        "human",
        "developer",
        "anyone",
        "operator",
        "them",
        "run",
        "execute",
        "send",
        "delete",
        "modify",
        "exfiltrate",
        "upload",
        "install",
        "secret",
        "hidden",
        "private",
      ],
    },
    words: ["do", "don", "dont", "never", "without", "keep", "hide", "silently"],
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
    symbols: ['"j', '"m', "</", "<f", "<i", "<t", "<a", '"t', '"f', "<|"],
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
const CHAT_TEMPLATE = FOLDED_CLASSES.findIndex((c) => c.id === "chat_template");
/**
 * Each folded class as a sticky, case-insensitive pattern (the gate scan reads the folded copy
 * before lowercasing; `i` on an ASCII pattern is the same as lowercasing the text, since no
 * non-ASCII character matches an ASCII one without `u`). The look-behind is what the single
 * alternation before ADR-072 had: no attempt starts inside a word, so chat-template tokens glued
 * to a word are found by {@linkcode GLUED_TOKENS} instead.
 */
const STICKY = FOLDED_CLASSES.map((c) =>
  new RegExp(`(?<![a-z0-9_])(?:${c.folded!.source})`, `iy${c.folded!.multiline ? "m" : ""}`)
);
const GLUED_TOKENS =
  /(?<=[a-z0-9_])(?:<\|[a-z_]{2,20}\|>|\[\/?inst\]|<<\/?sys>>|<\/?(?:start|end)_of_turn>)/iy;
/** Bit of chat_template's glued tokens in a symbol gate's mask (above every class's bit). */
const GLUED = 1 << FOLDED_CLASSES.length;

// The gate tables. A word is hashed as it is read (lowercase code units, `h = (h * 31 + c) & HASH_MASK`); the
// table maps a hash to the classes the word starts (`words`) and starts at a line's head
// (`lineWords`). A hash that collides only costs a pattern attempt.
const TABLE_SIZE = 1024;
const HASH_MASK = 0xfffffff;
const TABLE_KEYS = new Int32Array(TABLE_SIZE);
const TABLE_WORDS = new Int32Array(TABLE_SIZE);
const TABLE_LINES = new Int32Array(TABLE_SIZE);
const TABLE_CONFIRM = new Int32Array(TABLE_SIZE);
function wordHash(word: string): number {
  let h = 0;
  for (let i = 0; i < word.length; i++) h = (h * 31 + word.charCodeAt(i)) & HASH_MASK;
  return h | 1;
}
function addWord(word: string, mask: number, table: Int32Array): void {
  const key = wordHash(word);
  let j = key & (TABLE_SIZE - 1);
  while (TABLE_KEYS[j] !== 0 && TABLE_KEYS[j] !== key) j = (j + 1) & (TABLE_SIZE - 1);
  TABLE_KEYS[j] = key;
  table[j] |= mask;
}
/** Byte → lowercase ASCII word character, or 0. */
const WORD_CHAR = new Int32Array(256);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c).toLowerCase();
  if (/[a-z0-9_]/.test(ch)) WORD_CHAR[c] = ch.charCodeAt(0);
}
/** {@linkcode WORD_CHAR} as bytes (the gate's inner loop reads this one). */
const WORD_BYTE = Uint8Array.from(WORD_CHAR);
/** Byte → 1 if it may stand before a line word (`[ \t#*>[<!-]`). */
const LINE_PREFIX = new Uint8Array(256);
for (const ch of " \t#*>[<!-") LINE_PREFIX[ch.charCodeAt(0)] = 1;
/**
 * Byte → what the gate does with it between words: `KEEPS_HEAD` (a line prefix that starts no
 * symbol pair), `ENDS_HEAD` (any other ASCII byte but a newline that starts no symbol pair), or
 * 0 (a newline, a symbol pair's first byte, a non-ASCII byte: looked at in full). Filled below,
 * once the symbol pairs are known.
 */
const BYTE_KIND = new Uint8Array(256);
const KEEPS_HEAD = 1, ENDS_HEAD = 2;
/** (first byte << 7 | lowercased second byte) → classes a symbol gate starts. */
const SYMBOLS = new Int32Array(128 << 7);
/** Byte → 1 if a symbol pair starts with it. */
const SYMBOL_FIRST = new Uint8Array(128);
/**
 * Bit of `command_upload`'s self-confirmed curl/wget candidates in a word's mask (above GLUED):
 * stored like any confirmed word candidate, but confirmed by nothing in `confirms` (ADR-130).
 */
const SELF = GLUED << 1;
FOLDED_CLASSES.forEach((c, k) => {
  const self = new Set(c.confirm?.self ?? []);
  for (const w of c.words ?? []) addWord(w, self.has(w) ? SELF : 1 << k, TABLE_WORDS);
  for (const w of c.lineWords ?? []) addWord(w, 1 << k, TABLE_LINES);
  for (const w of c.confirm?.words ?? []) addWord(w, 1 << k, TABLE_CONFIRM);
  // A self-confirmed word only says that the text holds one (no list: ADR-130).
  for (const w of self) addWord(w, SELF, TABLE_CONFIRM);
  for (const pair of c.symbols ?? []) {
    SYMBOL_FIRST[pair.charCodeAt(0)] = 1;
    SYMBOLS[(pair.charCodeAt(0) << 7) | pair.charCodeAt(1)] |= 1 << k;
  }
});
// The glued tokens start with `<|`, `[i`, `[/`, `<<`, `</`, `<s`, `<e` (and follow a word).
for (const pair of FOLDED_CLASSES[CHAT_TEMPLATE].symbols!) {
  SYMBOLS[(pair.charCodeAt(0) << 7) | pair.charCodeAt(1)] |= GLUED;
}
for (let c = 0; c < 0x80; c++) {
  if (c === 10 || c === 13 || SYMBOL_FIRST[c] === 1 || WORD_CHAR[c] !== 0) continue;
  BYTE_KIND[c] = LINE_PREFIX[c] === 1 ? KEEPS_HEAD : ENDS_HEAD;
}
const LINE_WORD_REACH = 8;
/** Classes whose word candidates need a confirming word, and how far it may be. */
const CONFIRMED = FOLDED_CLASSES.reduce((m, c, k) => c.confirm ? m | (1 << k) : m, SELF);
const REACH = FOLDED_CLASSES.map((c) => c.confirm?.reach ?? 0);
/** Index of `command_upload` among the folded classes (its curl/wget reader: ADR-124). */
const UPLOAD = FOLDED_CLASSES.findIndex((c) => c.id === "command_upload");
if (FOLDED_CLASSES.some((c, k) => c.confirm?.self?.length && k !== UPLOAD)) {
  throw new Error("only command_upload's candidates confirm themselves (SELF is its bit)");
}

let scratch = new Uint8Array(0);
/**
 * The UTF-8 bytes of `text` in a reused buffer, and whether it is pure ASCII. A non-ASCII
 * character in the first 4 KiB settles that without encoding a text that will be folded (and
 * encoded) anyway; for an ASCII text `encodeInto` is a copy.
 */
function bytesOf(
  text: string,
  folding = false,
): { bytes: Uint8Array; length: number; ascii: boolean } {
  // deno-lint-ignore no-control-regex
  if (folding && /[^\x00-\x7f]/.test(text.slice(0, 4096))) {
    return { bytes: scratch, length: 0, ascii: false };
  }
  if (scratch.length <= text.length * 3) scratch = new Uint8Array(text.length * 3 + 1);
  const { written } = ENCODER.encodeInto(text, scratch);
  return { bytes: scratch, length: written, ascii: written === text.length };
}
const ENCODER = new TextEncoder();
const UTF8 = new TextDecoder();

/** Non-ASCII code units among the first 4,096 from which a text counts as dense (1 in 16). */
const DENSE_AT = 256;

/**
 * Whether the first 4,096 code units of `text` hold at least {@linkcode DENSE_AT} non-ASCII
 * ones: folding from the code units (`foldUnits`) then costs less than encoding the text and
 * folding its bytes (`foldInto`), which wins on mostly-ASCII text (ADR-090). Only speed depends
 * on it.
 */
function denseNonAscii(text: string): boolean {
  const end = Math.min(text.length, 4096);
  let count = 0;
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) >= 0x80) count++;
  return count >= DENSE_AT;
}

/**
 * Candidate starts: (UTF-16 index, word classes, other classes) triples, in order, and per
 * class the starts of its confirming words, in reused buffers.
 */
let candidates = new Int32Array(3 << 10);
let candidateCount = 0;
const confirms = FOLDED_CLASSES.map(() => new Int32Array(256));
const confirmCounts = new Int32Array(FOLDED_CLASSES.length);
/** (start, classes) pairs in order, in a reused buffer. */
interface Pairs {
  list: Int32Array;
  count: number;
}
/**
 * The word candidates of the classes with confirming words, kept apart from `candidates` until
 * the reach of each is checked against `confirms` (after the scan): a flood of a common gate
 * word then costs a store per word, not a place in the ordered list, and is dropped at once
 * when its classes have no confirming word in the text.
 */
const wordPairs: Pairs = { list: new Int32Array(512), count: 0 };
/**
 * [0]: the classes of the word candidates among the first [1] units of `wordPairs`, or-ed, and
 * SELF once the text has shown a curl or wget (ADR-130: {@linkcode confirmAt}).
 */
const seen = new Int32Array(2);
/** The symbol candidates (not glued), apart too: a full class's are dropped by a mask. */
const symbolPairs: Pairs = { list: new Int32Array(512), count: 0 };

function addPair(pairs: Pairs, at: number, mask: number): void {
  if (pairs.count + 2 > pairs.list.length) {
    const grown = new Int32Array(pairs.list.length * 2);
    grown.set(pairs.list);
    pairs.list = grown;
  }
  pairs.list[pairs.count++] = at;
  pairs.list[pairs.count++] = mask;
}

function addCandidate(at: number, words: number, others: number): void {
  let j = candidateCount;
  if ((j === 0 || candidates[j - 3] < at) && j + 3 <= candidates.length) {
    candidates[j] = at;
    candidates[j + 1] = words;
    candidates[j + 2] = others;
    candidateCount = j + 3;
    return;
  }
  // A line candidate starts before the word that opened it (at most 8 characters back, so
  // past at most a few symbol candidates): keep the list in order.
  while (j > 0 && candidates[j - 3] > at) j -= 3;
  if (j > 0 && candidates[j - 3] === at) {
    candidates[j - 2] |= words;
    candidates[j - 1] |= others;
    return;
  }
  if (candidateCount + 3 > candidates.length) {
    const grown = new Int32Array(candidates.length * 2);
    grown.set(candidates);
    candidates = grown;
  }
  candidates.copyWithin(j + 3, j, candidateCount);
  candidates[j] = at;
  candidates[j + 1] = words;
  candidates[j + 2] = others;
  candidateCount += 3;
}

/** Appends `at` to the list of each class of `mask`. */
function addTo(lists: Int32Array[], counts: Int32Array, at: number, mask: number): void {
  for (let k = 0; mask !== 0; k++, mask >>>= 1) {
    if ((mask & 1) === 0) continue;
    let list = lists[k];
    if (counts[k] === list.length) {
      const grown = new Int32Array(list.length * 2);
      grown.set(list);
      lists[k] = list = grown;
    }
    list[counts[k]++] = at;
  }
}

/**
 * Buffers a flood grew are not kept for the next result (the common sizes are), but for the
 * two candidate lists up to 4 MiB each, the bound of the byte buffer: a MiB of one gate word
 * (`to`, zalgo's `i`) fills a list of a million entries, and growing it again from 512 for each
 * such result cost more than the scan (ADR-091); the text's own UTF-8 is kept up to 4 MiB too.
 */
function releaseBuffers(): void {
  if (scratch.length > 4 << 20) scratch = new Uint8Array(0);
  if (candidates.length > 3 << 14) candidates = new Int32Array(3 << 10);
  for (let k = 0; k < confirms.length; k++) {
    if (confirms[k].length > 1 << 14) confirms[k] = new Int32Array(256);
  }
  for (const pairs of [wordPairs, symbolPairs]) {
    if (pairs.list.length > 1 << 20) pairs.list = new Int32Array(512);
  }
}

/**
 * At a confirming word whose own word candidates are of the classes `own`: curl and wget only
 * say that the text holds one (they confirm themselves); another is kept for the classes that
 * have had a word candidate so far or have one here, the only ones it can confirm (a match's
 * confirming word starts at or after its start). Which classes have had one is read from the
 * word candidates here, at a confirming word, not at every candidate: each entry is read once
 * (ADR-130). Called before the word's own candidates are stored, where `addTo` was called before
 * ADR-130 (called after them, it cost about 2% on code).
 */
function confirmAt(start: number, confirm: number, own: number): void {
  if (confirm === SELF) {
    seen[0] |= SELF;
    return;
  }
  // The word's own candidates (`official` confirms itself) are stored just after this.
  let had = seen[0] | (own & CONFIRMED);
  if ((confirm & ~had) !== 0) {
    const list = wordPairs.list, n = wordPairs.count;
    for (let i = seen[1]; i < n; i += 2) had |= list[i + 1];
    seen[0] = had;
    seen[1] = n;
  }
  if ((confirm & had) !== 0) addTo(confirms, confirmCounts, start, confirm & had);
}

/** At the end of a word whose hash is `h`: its candidates and confirmations. */
function endWord(h: number, start: number, lineStart: number, lineHead: boolean): void {
  const key = h | 1;
  let j = key & (TABLE_SIZE - 1);
  for (let k = TABLE_KEYS[j]; k !== 0; k = TABLE_KEYS[j = (j + 1) & (TABLE_SIZE - 1)]) {
    if (k !== key) continue;
    if (TABLE_CONFIRM[j] !== 0) confirmAt(start, TABLE_CONFIRM[j], TABLE_WORDS[j]);
    const words = TABLE_WORDS[j];
    if (words !== 0) {
      if ((words & CONFIRMED) !== 0) {
        // A store, the commonest case of a flood (`addPair` grows the list when it is full).
        const n = wordPairs.count, list = wordPairs.list;
        if (n + 2 <= list.length) {
          list[n] = start;
          list[n + 1] = words & CONFIRMED;
          wordPairs.count = n + 2;
        } else addPair(wordPairs, start, words & CONFIRMED);
      }
      if ((words & ~CONFIRMED) !== 0) addCandidate(start, words & ~CONFIRMED, 0);
    }
    if (lineHead && TABLE_LINES[j] !== 0 && start - lineStart <= LINE_WORD_REACH) {
      addCandidate(lineStart, 0, TABLE_LINES[j]);
    }
    return;
  }
}

/**
 * Fills the candidate lists of the folded copy, each in order. One pass over its UTF-8 bytes:
 * at the end of each word, the word's classes at its start (`wordPairs`) and the classes it
 * confirms (`confirms`), and at a line's first word after at most 8 prefix characters, that
 * word's line classes at the line's start (`candidates`); at each symbol pair, its classes
 * (`symbolPairs`, or `candidates` for a pair glued to a word).
 */
function gateCandidates(bytes: Uint8Array, length: number): void {
  candidateCount = 0;
  confirmCounts.fill(0);
  wordPairs.count =
    symbolPairs.count =
    seen[0] =
    seen[1] =
      0;
  // extra: UTF-8 bytes read so far beyond their UTF-16 units (index = byte index − extra).
  let extra = 0, lineStart = 0, lineHead = true;
  // A sentinel (not a word character) ends the last word without a bounds check per byte.
  if (length >= bytes.length) {
    const room = new Uint8Array(length + 1);
    room.set(bytes.subarray(0, length));
    bytes = room;
  }
  bytes[length] = 0;
  for (let i = 0; i < length; i++) {
    // A word (two loops, words and the rest, run several times faster than one). The hash in
    // int32 arithmetic (`(h << 5) - h` is `h * 31` modulo 2^32, and HASH_MASK keeps 28 bits).
    const from = i;
    let h = 0;
    for (let w = WORD_BYTE[bytes[i]]; w !== 0; w = WORD_BYTE[bytes[++i]]) {
      h = ((h << 5) - h + w) & HASH_MASK;
    }
    const glued = i > from;
    if (glued) {
      endWord(h, from - extra, lineStart, lineHead);
      lineHead = false;
      if (i >= length) break;
    }
    const c = bytes[i];
    // The commonest bytes between words first: a line prefix (space, tab…) keeps the line's
    // head; any other ASCII byte that is not a newline and starts no symbol pair ends it.
    const kind = BYTE_KIND[c];
    if (kind === KEEPS_HEAD) {
      // Indentation: a run of spaces in one tight loop (the sentinel, 0, ends it).
      while (bytes[i + 1] === 0x20) i++;
      continue;
    }
    if (kind === ENDS_HEAD) {
      lineHead = false;
      continue;
    }
    if (c < 0x80) {
      if (c === 10 || c === 13) {
        lineStart = i + 1 - extra;
        lineHead = true;
      } else if (lineHead && LINE_PREFIX[c] === 0) lineHead = false;
      if (SYMBOL_FIRST[c] === 1 && i + 1 < length) {
        const d = bytes[i + 1];
        const pair = SYMBOLS[(c << 7) | (d < 0x80 ? WORD_CHAR[d] || d : 0)];
        if (pair !== 0) {
          // A glued pair may start a glued chat-template token (ordered list); another one
          // starts the classes of its own lists.
          if (glued) {
            if ((pair & GLUED) !== 0) addCandidate(i - extra, 0, GLUED);
          } else if ((pair & ~GLUED) !== 0) {
            addPair(symbolPairs, i - extra, pair & ~GLUED);
          }
        }
      }
      continue;
    }
    // Non-ASCII: a lead byte and its continuation bytes, skipped at once (they add no UTF-16
    // unit; a 4-byte sequence is two units). A stray continuation byte (not in UTF-8 the
    // encoder or the fold writes) is skipped alone, as before.
    if ((c & 0xc0) === 0x80) {
      extra++;
      continue;
    }
    lineHead = false;
    if (c < 0xe0) {
      i++;
      extra++;
    } else if (c < 0xf0) {
      // U+2028 and U+2029 (E2 80 A8/A9) end a line for `^` too.
      const ends = c === 0xe2 && bytes[i + 1] === 0x80 &&
        (bytes[i + 2] === 0xa8 || bytes[i + 2] === 0xa9);
      i += 2;
      extra += 2;
      if (ends) {
        lineStart = i + 1 - extra;
        lineHead = true;
      }
    } else {
      i += 3;
      extra += 2;
    }
  }
}

/** The witnesses of a text are not used yet, used (found up to `upload.to`), no longer used. */
const WITNESSES_UNUSED = 0, WITNESSES_ON = 1, WITNESSES_OFF = 2;
/** The curl/wget candidates of the current text (ADR-124): how far its witnesses are found. */
const upload = {
  /** Candidates seen (up to WITNESS_AFTER). */
  candidates: 0,
  /** WITNESSES_UNUSED, WITNESSES_ON or WITNESSES_OFF (they let too few go). */
  state: WITNESSES_UNUSED,
  to: 0,
  /** Candidates of the current chunk checked against the witnesses, and those let go. */
  checked: 0,
  skipped: 0,
};
function resetUploadState(): void {
  upload.state = WITNESSES_UNUSED;
  upload.candidates =
    upload.to =
    upload.checked =
    upload.skipped =
      0;
}
/**
 * False only where `command_upload` cannot match at `at` (a word candidate: the gate's list
 * from entry `w` holds what follows it). At `curl` or `wget` of an ASCII text (`u`, `end`:
 * its code units): in a flood ({@linkcode WITNESS_AFTER} candidates, at least one per
 * {@linkcode WITNESS_SPACING} units) none is read without a witness within its reach, while the
 * witnesses let 3 in 4 go (judged per chunk, once {@linkcode WITNESS_JUDGED_AFTER} candidates
 * have been checked in it); then the reader.
 */
function uploadMay(u: Uint8Array, end: number, at: number, w: number): boolean {
  if (!curlOrWgetAt(u, end, at)) return true;
  if (upload.state === WITNESSES_UNUSED && ++upload.candidates >= WITNESS_AFTER) {
    if (at < upload.candidates * WITNESS_SPACING) upload.state = WITNESSES_ON;
  }
  if (upload.state === WITNESSES_ON) {
    const reach = Math.min(at + WITNESS_REACH + 1, end);
    while (upload.state === WITNESSES_ON && upload.to < reach) {
      if (
        upload.to > 0 && upload.checked >= WITNESS_JUDGED_AFTER &&
        upload.skipped * 4 < upload.checked * 3
      ) {
        upload.state = WITNESSES_OFF;
      } else {
        const from = upload.to;
        upload.to = Math.min(from + WITNESS_CHUNK, end);
        findWitnesses(u, end, from, upload.to);
        upload.checked = upload.skipped = 0;
      }
    }
    if (upload.state === WITNESSES_ON) {
      upload.checked++;
      // The farthest reach first: in a flood without witnesses no stop is looked for.
      if (
        !witnessWithin(at, at + WITNESS_REACH) ||
        !witnessWithin(
          at,
          witnessReach(
            u,
            end,
            at,
            stopAfter(u, end, wordPairs.list, wordPairs.count, w, (1 << UPLOAD) | SELF, at),
          ),
        )
      ) {
        upload.skipped++;
        return false;
      }
    }
  }
  return curlMay(u, end, at);
}

/** Untrusted text to assess: the text and the source line number of each of its lines. */
export interface AssessedText {
  readonly text: string;
  /** `text` has `N\t` line-number prefixes (read_file). */
  readonly numbered?: boolean;
  /**
   * The line of the result each line of `text` stands for (1-based), when `text` is not the
   * result's own text but stands beside it (a part's raw names: ADR-116).
   */
  readonly lineNumbers?: readonly number[];
}

/** A line-number prefix of `read_file`, after the newline that ends the line before. */
const NUMBER_PREFIX = /\n {0,12}\d{1,10}\t/g;

/**
 * Splits numbered text into plain text and a lookup of each line's number (its prefix, or its
 * 1-based index when it has none). The prefixes go in one replace; a number is parsed only for
 * a line that holds a finding.
 */
function unnumber(text: string): { text: string; lineNumber: (line: number) => number } {
  let starts: number[] | undefined;
  const lineNumber = (line: number) => {
    starts ??= lineStarts(text);
    const m = /^ {0,12}(\d{1,10})\t/.exec(
      text.slice(starts[line] ?? text.length, starts[line] + 24),
    );
    return m ? Number(m[1]) : line + 1;
  };
  // A newline in front makes the first line's prefix look like the others (a scan led by a
  // literal newline is several times faster than a look-behind at every position).
  return { text: ("\n" + text).replace(NUMBER_PREFIX, "\n").slice(1), lineNumber };
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

/** The level a risk falls in (`none` only when nothing was found). */
export function levelOf(risk: number, found: boolean): Level {
  if (!found) return "none";
  return risk >= HIGH_AT ? "high" : risk >= ELEVATED_AT ? "elevated" : "low";
}

/** Assesses the untrusted texts of one result. */
export function assessContent(parts: readonly AssessedText[]): ContentAssessment {
  const byClass = new Map<string, Signal[]>();
  let invisible = 0;
  // Bits of the folded classes that have their findings (not tried again).
  let fullMask = 0;
  for (const part of parts) {
    const { lineNumbers } = part;
    const { text, lineNumber } = part.numbered ? unnumber(part.text) : {
      text: part.text,
      lineNumber: lineNumbers ? (line: number) => lineNumbers[line] ?? 1 : undefined,
    };
    // Line starts are computed only once something is found (most texts have no signal).
    let rawStarts: number[] | undefined;
    let foldedStarts: number[] | undefined;
    const record = (cls: SignalClass, index: number, starts: number[]) => {
      const found = byClass.get(cls.id) ?? [];
      if (found.length >= MAX_FINDINGS_PER_SIGNAL) return;
      const line = lineAt(starts, index);
      rawStarts ??= lineStarts(text);
      const from = rawStarts[line] ?? text.length;
      const nl = text.indexOf("\n", from);
      found.push({
        id: cls.id,
        description: cls.description,
        line: lineNumber ? lineNumber(line) : line + 1,
        excerpt: excerptOf(text.slice(from, nl < 0 ? text.length : nl), index - starts[line]),
      });
      byClass.set(cls.id, found);
    };
    const recordFolded = (k: number, at: number) => {
      record(FOLDED_CLASSES[k], at, foldedStarts ??= lineStarts(hay));
      if (byClass.get(FOLDED_CLASSES[k].id)!.length >= MAX_FINDINGS_PER_SIGNAL) {
        fullMask |= k === UPLOAD ? (1 << k) | SELF : 1 << k;
      }
    };
    let { bytes, length, ascii } = bytesOf(text, true);
    // A non-ASCII text is folded in one pass that also writes the gate's bytes and says whether
    // SPECIAL occurs, where it can be (fold.ts, `foldInto`); otherwise pass by pass.
    let fast: ReturnType<typeof foldInto>;
    if (!ascii) {
      // bytesOf encoded the whole text when its first 4 KiB are ASCII: not encoded again.
      if (scratch.length <= text.length * 3) scratch = new Uint8Array(text.length * 3 + 1);
      // Dense non-ASCII text is folded from its code units (ADR-090); both give the same answer.
      fast = length === 0 && denseNonAscii(text)
        ? foldUnits(text, scratch)
        : foldInto(text, scratch, length > 0 ? length : -1);
    }
    // The raw classes and the invisible count look for characters of SPECIAL only (ESC is
    // ASCII; every other one is not).
    const escape = ascii && text.includes("\x1b");
    if (fast ? fast.special : ascii ? escape : SPECIAL.test(text)) {
      // A one-pass fold gave up on any ESC or tag character, and says whether a bidi control
      // occurs: the patterns that could find none are not run over the text.
      const tags = !fast && text.includes("\udb40");
      const escapes = (!fast && text.includes("\x1b")) || text.includes("\x9b");
      for (const cls of RAW_CLASSES) {
        if (cls.raw === BIDI && fast && !fast.bidi) continue;
        // Tag characters all start with U+DB40, escape sequences with ESC or CSI.
        if (cls.raw === TAGS ? !tags : cls.id === "ansi_escape" ? !escapes : ascii) continue;
        const re = cls.raw!;
        re.lastIndex = 0;
        let n = 0;
        for (let m = re.exec(text); m && n < MAX_FINDINGS_PER_SIGNAL; m = re.exec(text), n++) {
          record(cls, m.index, rawStarts ??= lineStarts(text));
        }
      }
    }
    let hay: string;
    if (fast) {
      hay = fast.folded;
      invisible += fast.invisible;
      [bytes, length, scratch] = [fast.bytes, fast.length, fast.bytes];
    } else if (ascii) {
      // An ASCII text's fold only removes escape sequences: from the bytes bytesOf wrote.
      const kept = escape ? stripEscapes(bytes, length) : length;
      hay = kept === length ? text : UTF8.decode(bytes.subarray(0, kept));
      length = kept;
    } else {
      // A non-ASCII text the one-pass folds gave up on (an escape, a tag, a lone surrogate).
      const folded = foldCounting(text, false);
      hay = folded.folded;
      invisible += folded.invisible;
      ({ bytes, length } = bytesOf(hay));
    }
    // The folded classes are tried where their gate opens, in order, each candidate start once
    // (the first class that matches there is recorded, as the single alternation before ADR-072
    // did); a class that has its findings is not tried again, so a flood stops costing.
    gateCandidates(bytes, length);
    // An ASCII text's bytes are its code units (the curl/wget reader reads them).
    const unitsAreBytes = length === hay.length;
    resetUploadState();
    // The word candidates and the symbol candidates, merged with the ordered list: a start that
    // several hold is one candidate, with all their classes.
    let live = 0;
    for (let k = 0; k < FOLDED_CLASSES.length; k++) if (confirmCounts[k] > 0) live |= 1 << k;
    // curl and wget confirm themselves (ADR-130): live wherever one was seen.
    live |= seen[0] & SELF;
    const words = wordPairs.list, symbols = symbolPairs.list;
    // Word candidates whose classes have no confirming word in the text are dropped at once.
    const wordCount = (live & ~fullMask) === 0 ? 0 : wordPairs.count;
    const symbolCount = symbolPairs.count;
    const next = new Int32Array(FOLDED_CLASSES.length);
    const glued: number[] = [];
    for (let c = 0, w = 0, y = 0;;) {
      let at = c < candidateCount ? candidates[c] : -1;
      if (w < wordCount && (at < 0 || words[w] < at)) at = words[w];
      if (y < symbolCount && (at < 0 || symbols[y] < at)) at = symbols[y];
      if (at < 0) break;
      let mask = 0;
      if (c < candidateCount && candidates[c] === at) {
        mask = candidates[c + 1] | candidates[c + 2];
        c += 3;
      }
      if (w < wordCount && words[w] === at) {
        // A word candidate's class is tried only if a confirming word of it starts within its
        // reach (at the start itself included); each class's list is read once, front to back.
        let m = words[w + 1] & live & ~fullMask;
        // A curl/wget candidate needs no confirming word: command_upload's reader and
        // witnesses (ADR-124) stand in for one in an ASCII text, below.
        const self = m & SELF;
        m ^= self;
        for (let k = 0, b = m; b !== 0; k++, b >>>= 1) {
          if ((b & 1) === 0) continue;
          const list = confirms[k], n = confirmCounts[k];
          let i = next[k];
          while (i < n && list[i] < at) i++;
          next[k] = i;
          if (i === n || list[i] > at + REACH[k]) m &= ~(1 << k);
        }
        mask |= self !== 0 ? m | (1 << UPLOAD) : m;
        w += 2;
      }
      if (y < symbolCount && symbols[y] === at) {
        mask |= symbols[y + 1];
        y += 2;
      }
      if (mask & GLUED) {
        GLUED_TOKENS.lastIndex = at;
        if (GLUED_TOKENS.test(hay)) glued.push(at);
      }
      mask &= ~fullMask & ~GLUED;
      for (let k = 0; mask !== 0; k++, mask >>>= 1) {
        if ((mask & 1) === 0) continue;
        // At curl or wget in an ASCII text, the witnesses and the reader first (ADR-124): the
        // pattern is tried only if a payload may start within the candidate's words.
        if (k === UPLOAD && unitsAreBytes && !uploadMay(bytes, length, at, w)) continue;
        const re = STICKY[k];
        re.lastIndex = at;
        if (re.test(hay)) {
          recordFolded(k, at);
          break;
        }
      }
    }
    for (const at of glued) recordFolded(CHAT_TEMPLATE, at);
  }
  releaseBuffers();
  releaseWitnesses();
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
