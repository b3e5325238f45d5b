/**
 * The platform path rules, run with each platform's semantics on any OS:
 * what a requested path says, which spellings are refused and why, and
 * which names the denylist treats as the same name.
 */

import assert from "node:assert/strict";
import {
  DARWIN,
  denyKeys,
  foldName,
  hostSemantics,
  type PathHazard,
  type PathSemantics,
  POSIX,
  REQUEST_RULES,
  SEMANTICS,
  WINDOWS,
} from "../../src/access/path_semantics.ts";
import { Denylist, patternProblem } from "../../src/access/denylist.ts";

function hazardOf(semantics: PathSemantics, path: string): PathHazard | undefined {
  const verdict = semantics.checkRequestedPath(path);
  return verdict.ok ? undefined : verdict.hazard;
}

function componentsOf(semantics: PathSemantics, path: string) {
  const verdict = semantics.checkRequestedPath(path);
  assert.ok(verdict.ok, `${JSON.stringify(path)} should pass, got ${JSON.stringify(verdict)}`);
  return { volume: verdict.volume, components: verdict.components };
}

Deno.test("attack: backslash-separated denied paths (.git\\config, x\\..\\.ssh\\id_rsa) split into components under Windows semantics", () => {
  assert.deepEqual(componentsOf(WINDOWS, ".git\\config").components, [".git", "config"]);
  assert.deepEqual(componentsOf(WINDOWS, "x\\..\\.ssh\\id_rsa").components, [
    "x",
    "..",
    ".ssh",
    "id_rsa",
  ]);
  assert.deepEqual(componentsOf(WINDOWS, "src/a\\b.ts").components, ["src", "a", "b.ts"]);
  // On posix the same string is one name, and the denylist sees its parts anyway.
  assert.deepEqual(componentsOf(POSIX, ".git\\config").components, [".git\\config"]);
  assert.ok(new Denylist().deniesName(".git\\config"), "a posix name holding .git\\ is denied");
  assert.ok(new Denylist().deniesPath("x\\..\\.ssh\\id_rsa"));
});

Deno.test("attack: Windows namespace and volume spellings are refused before the filesystem is asked", () => {
  const cases: [string, PathHazard][] = [
    ["\\\\.\\PhysicalDrive0", "device_namespace"],
    ["//./PhysicalDrive0", "device_namespace"],
    ["\\\\?\\C:\\x", "device_namespace"],
    ["\\\\?\\UNC\\server\\share", "device_namespace"],
    ["\\??\\C:\\x", "device_namespace"],
    ["\\\\", "device_namespace"],
    ["C:x", "drive_relative"],
    ["c:..\\x", "drive_relative"],
    ["C:", "drive_relative"],
    ["\\Windows\\System32", "rooted_without_drive"],
    ["/etc/passwd", "rooted_without_drive"],
  ];
  for (const [path, hazard] of cases) {
    assert.equal(hazardOf(WINDOWS, path), hazard, path);
  }
});

Deno.test("attack: Windows absolute drive and UNC paths parse with their volume, for the root-prefix check", () => {
  assert.deepEqual(componentsOf(WINDOWS, "C:\\Windows"), { volume: "C:", components: ["Windows"] });
  assert.deepEqual(componentsOf(WINDOWS, "c:/Users/me"), {
    volume: "C:",
    components: ["Users", "me"],
  });
  assert.deepEqual(componentsOf(WINDOWS, "\\\\server\\share\\x"), {
    volume: "//server/share",
    components: ["x"],
  });
  assert.equal(componentsOf(WINDOWS, "a\\b").volume, undefined);
});

Deno.test("attack: device names, streams, forbidden characters, trailing dots and spaces, short names in a component are refused under Windows semantics", () => {
  const cases: [string, PathHazard][] = [
    ["CON", "reserved_name"],
    ["con", "reserved_name"],
    ["nul.txt", "reserved_name"],
    ["src/NUL", "reserved_name"],
    ["aux.tar.gz", "reserved_name"],
    ["COM1", "reserved_name"],
    ["lpt9.log", "reserved_name"],
    ["COM\u00b9", "reserved_name"],
    ["CONOUT$", "reserved_name"],
    ["NUL .txt", "reserved_name"],
    ["file::$DATA", "stream"],
    [".env::$DATA", "stream"],
    [".env:secret", "stream"],
    ["dir\\x:y", "stream"],
    ["a?b", "illegal_character"],
    ["a*", "illegal_character"],
    ['a"b', "illegal_character"],
    ["a\x01b", "illegal_character"],
    [".env ", "trailing_dot_or_space"],
    ["server.pem.", "trailing_dot_or_space"],
    [".ssh. \\id_rsa", "trailing_dot_or_space"],
    ["...", "trailing_dot_or_space"],
  ];
  for (const [path, hazard] of cases) {
    assert.equal(hazardOf(WINDOWS, path), hazard, path);
  }
  // The same strings are ordinary names on posix (the denylist then decides).
  for (const [path] of cases) {
    if (path.includes("\x01")) continue;
    assert.equal(hazardOf(POSIX, path), undefined, `posix: ${path}`);
  }
});

Deno.test("attack: 8.3 short names (GIT~1, PROGRA~1, SERVER~1.PEM) are flagged as possible aliases under Windows semantics only", () => {
  for (const name of ["GIT~1", "git~1", "PROGRA~1", "SERVER~1.PEM", "GI3F2A~1.TXT", "~1"]) {
    assert.ok(WINDOWS.mayAlias(name), name);
    assert.equal(POSIX.mayAlias(name) || DARWIN.mayAlias(name), false, name);
  }
  for (const name of ["longername~1.txt", "a~b.txt", "backup~.txt", "x~1.long", "GIT~1.TXT.BAK"]) {
    assert.equal(WINDOWS.mayAlias(name), false, name);
  }
  assert.deepEqual(componentsOf(WINDOWS, "GIT~1\\config").components, ["GIT~1", "config"]);
});

Deno.test("attack: every refused Windows spelling answers invalid_path with a message that does not echo the path", () => {
  for (
    const path of [
      "Q:secret",
      "\\\\.\\secret-device",
      ".env::$DATA",
      "secret-name.",
      "aux.secret",
    ]
  ) {
    const verdict = WINDOWS.checkRequestedPath(path);
    assert.ok(!verdict.ok, path);
    assert.equal(verdict.code, "invalid_path");
    assert.ok(!verdict.message.includes(path), `${path}: ${verdict.message}`);
  }
});

Deno.test("windows: ordinary names that look close to a hazard are accepted", () => {
  for (
    const path of [
      "console.log.ts",
      "CONTRIBUTING.md",
      "nullable.ts",
      "com10.txt",
      "lpt.md",
      "auxiliary/x",
      "a~b.txt",
      "~/x", // `~` is only a name here
      "backup~.txt",
      "longername~1.txt", // base longer than 8: not a short name
      "v1.2.3/x",
      ".gitignore",
      "..\\x", // `..` passes here; containment refuses the climb
    ]
  ) {
    assert.equal(hazardOf(WINDOWS, path), undefined, path);
  }
});

Deno.test("attack: a resource fork component (..namedfork) is refused under macOS semantics only", () => {
  assert.equal(hazardOf(DARWIN, "notes.txt/..namedfork/rsrc"), "named_fork");
  assert.equal(hazardOf(DARWIN, "x/..NamedFork/data"), "named_fork");
  assert.equal(hazardOf(POSIX, "notes.txt/..namedfork/rsrc"), undefined);
});

Deno.test("posix: normal paths keep working (regression), `..` and `.` pass to containment", () => {
  for (const semantics of [POSIX, DARWIN]) {
    assert.deepEqual(componentsOf(semantics, "src/app.ts"), {
      volume: undefined,
      components: ["src", "app.ts"],
    });
    assert.deepEqual(componentsOf(semantics, "./a//b/./c").components, ["a", "b", "c"]);
    assert.deepEqual(componentsOf(semantics, "a/../b").components, ["a", "..", "b"]);
    assert.deepEqual(componentsOf(semantics, "/srv/ws/x"), {
      volume: "",
      components: ["srv", "ws", "x"],
    });
    assert.deepEqual(componentsOf(semantics, "").components, []);
    assert.deepEqual(componentsOf(semantics, "weird name with spaces .txt").components, [
      "weird name with spaces .txt",
    ]);
  }
});

Deno.test("attack: NUL bytes, over-long paths and components are refused under every semantics", () => {
  for (const semantics of Object.values(SEMANTICS)) {
    assert.equal(hazardOf(semantics, "a\0b"), "nul_byte");
    assert.equal(hazardOf(semantics, "a/".repeat(2049)), "too_long");
    assert.equal(hazardOf(semantics, "x".repeat(256)), "long_component");
    assert.equal(hazardOf(semantics, "\u00e9".repeat(128)), "long_component", "bytes, not chars");
  }
});

Deno.test("rules: every hazard the semantics can answer has one rule, in one order", () => {
  const hazards = REQUEST_RULES.map((r) => r.hazard);
  assert.equal(new Set(hazards).size, hazards.length);
  assert.ok(REQUEST_RULES.every((r) => r.message.endsWith(".")));
  // A NUL byte decides before the namespace rule does, whatever else the path holds.
  assert.equal(hazardOf(WINDOWS, "\\\\.\\x\0"), "nul_byte");
  // The namespace rule decides before the component rules.
  assert.equal(hazardOf(WINDOWS, "\\\\?\\C:\\.env "), "device_namespace");
  assert.equal(
    hostSemantics().flavor,
    Deno.build.os === "windows" ? "windows" : Deno.build.os === "darwin" ? "darwin" : "posix",
  );
});

Deno.test("attack: case, Unicode and trailing-dot spellings of a denied name fold onto it", () => {
  const list = new Denylist();
  const spellings = [
    ".GIT",
    ".Env",
    "server.\u212Aey", // KELVIN SIGN: APFS and NFC both make it K
    "server.\uFF4Bey", // FULLWIDTH k (NFKC)
    ".\u017Fsh", // LATIN SMALL LONG S upper-cases to S: NTFS's upcase table joins it to .SSH
    ".g\u0131t", // dotless i upper-cases to I
    ".g\u200Cit", // ZERO WIDTH NON-JOINER, ignored by HFS+ (git's CVE-2014-9390)
    ".e\uFEFFnv",
    ".env ",
    ".env.",
    "server.pem.",
    "server.pem . ",
    "id_rsa.",
  ];
  for (const name of spellings) {
    assert.ok(list.deniesName(name), `${JSON.stringify(name)} should be denied`);
  }
  for (const name of ["README.md", "server.keynote", ".github", "a.pem.txt", "k\u00e9y.md"]) {
    assert.equal(list.deniesName(name), false, `${JSON.stringify(name)} should be served`);
  }
});

Deno.test("attack: NFD and NFC spellings of a denied user pattern deny each other", () => {
  const nfc = "caf\u00e9-secrets";
  const nfd = "cafe\u0301-secrets";
  assert.notEqual(nfc, nfd);
  assert.ok(new Denylist([nfc]).deniesName(nfd), "NFC pattern, NFD name (HFS+ stores NFD)");
  assert.ok(new Denylist([nfd]).deniesName(nfc), "NFD pattern, NFC name");
  assert.ok(new Denylist([`${nfd}/*.txt`]).deniesPath(`x/${nfc}/a.txt`), "path pattern too");
  assert.ok(new Denylist(["CAF\u00c9-*"]).deniesName(nfd), "and in any case");
  assert.equal(new Denylist([nfc]).patterns.length, new Denylist([nfc, nfd]).patterns.length);
});

Deno.test("attack: a name holding backslashes is denied when a part between them is (archive unpacked from Windows)", () => {
  const list = new Denylist();
  assert.ok(list.deniesName("config\\.env"));
  assert.ok(list.deniesEntry("", "x\\.ssh\\id_ed25519"));
  assert.ok(list.deniesEntry(".config", "gh\\hosts.yml"), "path pattern across a backslash");
  assert.ok(list.deniesEntry("home\\.m2", "settings.xml"), "backslash in the folder");
  assert.equal(list.deniesName("docs\\readme.md"), false);
  assert.equal(list.deniedPlaceOf("C:\\Users\\me\\repo\\.git"), "/C:/Users/me/repo/.git");
  assert.equal(new Denylist([], "C:\\Users\\me\\.m2").deniesEntry("", "settings.xml"), true);
});

Deno.test("fold: idempotent, and ASCII names only change case", () => {
  for (const name of ["ABC.txt", "server.\u212Aey", "cafe\u0301", ".g\u0131t", "\uFB01le"]) {
    assert.equal(foldName(foldName(name)), foldName(name), name);
  }
  assert.equal(foldName("Makefile"), "makefile");
  assert.deepEqual(denyKeys("Notes"), ["notes"]);
  assert.deepEqual(denyKeys("a.pem."), ["a.pem.", "a.pem"]);
  assert.deepEqual(denyKeys("..."), ["..."], "nothing left after stripping: the name itself");
});

Deno.test("attack: a backslash in a configured pattern is refused at start", () => {
  assert.throws(() => new Denylist(["ci\\token"]), /backslash/);
  assert.match(patternProblem("ci\\token") ?? "", /backslash/);
});

Deno.test("docs: docs/security.md's path rules table lists REQUEST_RULES, in order, with their platforms", async () => {
  const markdown = await Deno.readTextFile(new URL("../../docs/security.md", import.meta.url));
  const section = markdown.split("## Path rules per platform")[1]?.split("\n## ")[0];
  assert.ok(section, "docs/security.md has a 'Path rules per platform' section");
  const rows = section.split("\n").filter((line) => /^\| `[a-z_]+`/.test(line));
  const documented = rows.map((row) => {
    const cells = row.split("|").map((c) => c.trim());
    return { hazard: cells[1].replaceAll("`", ""), flavors: cells[2] };
  });
  const names: Record<string, string> = { posix: "posix", windows: "windows", darwin: "macOS" };
  assert.deepEqual(
    documented,
    REQUEST_RULES.map((r) => ({
      hazard: r.hazard,
      flavors: r.flavors.map((f) => names[f]).join(", "),
    })),
  );
});
