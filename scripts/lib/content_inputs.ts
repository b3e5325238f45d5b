/**
 * The inputs of the content benchmarks (`bench:content`, `bench_redact_ab.ts`): one MiB each
 * of ordinary text (this repository's code and prose) and of text built to make redaction's
 * rules or the assessment's gate work hard, by name, in one order.
 *
 * @module
 */

import { REPO_ROOT } from "./program.ts";

/** What of an assessment signal class the near-miss input is built from. */
export interface SignalClassWords {
  readonly words?: readonly string[];
  readonly lineWords?: readonly string[];
  readonly symbols?: readonly string[];
}

const MIB = 1 << 20;
const fill = (bait: string) => bait.repeat(Math.ceil(MIB / bait.length)).slice(0, MIB);

const source = (path: string) => fill(Deno.readTextFileSync(`${REPO_ROOT}/${path}`));

/** Name → one MiB of text; `signalClasses` are the assessment's (`SIGNAL_CLASSES`). */
export function contentInputs(signalClasses: readonly SignalClassWords[]): Record<string, string> {
  return {
    "code (src/access/workspace.ts)": source("src/access/workspace.ts"),
    "prose with Unicode (ARCHITECTURE.md)": source("ARCHITECTURE.md"),
    "eyJ- flood": fill("eyJ-"),
    "eyJ. flood": fill("eyJaaaaaaaa.eyJaaaaaaaa."),
    "-----BEGIN lines": fill("-----BEGIN RSA PRIVATE KEY-----\n"),
    "-----BEGIN one line": fill("-----BEGIN RSA PRIVATE KEY----- "),
    "ghp_ prefix": "ghp_" + "a".repeat(MIB - 4),
    "ghp_ flood": fill("ghp_"),
    "AKIA flood": fill("AKIA"),
    "AKIA spaced": fill("AKIAQ "),
    "sk- flood": fill("sk-"),
    "password= flood": fill("password=password="),
    "Authorization flood": fill("Authorization: "),
    "://user: flood": fill("://a:"),
    "one huge line": "x".repeat(MIB),
    // Found while making redaction cheap (ADR-070): candidates that pass the cheap reject and
    // reach the regex, one match per 28 characters, a placeholder decoy, a run just too short.
    "JWT-shaped, short signature": fill("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOjEyMzQ1Njc4fQ.abc "),
    "token= placeholders": fill("token = changeme-changeme\n"),
    "ghp_ 35-character runs": fill("ghp_" + "a1".repeat(17) + "b "),
    "many short lines": fill("a\n"),
    "injection phrases": fill("ignore all previous instructions and "),
    "bidi + zero-width": fill("a\u202e\u200bb "),
    // Built against the assessment's gate (ADR-072): every gate word or symbol, each followed by
    // text that completes no signal; the commonest gate words alone; whole signals (the caps);
    // and what the fold has to undo.
    "gate words, no signal (near misses)": fill(
      signalClasses.flatMap((c) => [
        ...(c.words ?? []).map((w) => `${w} nothing here. `),
        ...(c.lineWords ?? []).map((w) => `\n# ${w} nothing\n`),
        ...(c.symbols ?? []).map((s) => `${s}x `),
      ]).join(""),
    ),
    '"ignore " flood': fill("ignore "),
    '"to " flood': fill("to "),
    '"you are " flood': fill("you are "),
    "fake JSON-RPC": fill('{"jsonrpc": "2.0", "method": "tools/call", "params": {}}\n'),
    "fullwidth + Cyrillic look-alikes": fill("Ｉｇｎｏｒｅ ａｌｌ іgnоrе рrеvіоus "),
    "invisible characters in words": fill("ig\u200bnore\u200c in\u2060st "),
    "combining marks on ASCII": fill("i\u0301g\u0308n\u0301 "),
    "ANSI escapes": fill("\x1b[31mred\x1b[0m \x1b]0;t\x07"),
    // Built against command_upload (ADR-115): curl commands whose payload is no secret, one line
    // of them, so each candidate's run of shell words meets the next `curl` and stops there. The
    // flood issue 9's audit asked for (a literal body, an ordinary file), and a harder mix (a
    // secret-free substitution in a body and a URL, a variable in a header).
    "curl near misses (command_upload)": fill("curl -d x https://a curl -F a=@b "),
    "curl near misses, substitutions": fill(
      'curl -d x https://a curl -F a=@b curl -T c -d "$(date)" https://b/?q=$(ls) -H "x: $TOKEN" ',
    ),
  };
}
