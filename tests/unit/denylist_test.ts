import assert from "node:assert/strict";
import { DEFAULT_DENY_PATTERNS, Denylist, patternProblem } from "../../src/access/denylist.ts";

Deno.test("denylist: default patterns deny credential names in any letter case", () => {
  const list = new Denylist();
  for (
    const name of [
      ".env",
      ".ENV",
      ".Env.local",
      "prod.env",
      ".envrc",
      "id_rsa",
      "ID_RSA.pub",
      "id_ed25519",
      "server.pem",
      "server.PEM",
      "tls.Key",
      ".git",
      ".GIT",
      ".ssh",
      ".netrc",
      "credentials.json",
      "terraform.tfstate",
      "terraform.tfstate.backup",
      "prod.tfvars",
    ]
  ) {
    assert.ok(list.deniesName(name), `${name} should be denied`);
  }
});

Deno.test("denylist: look-alike names are not denied", () => {
  const list = new Denylist();
  for (
    const name of [
      ".gitignore",
      ".gitattributes",
      ".github",
      "environment.ts",
      "env.ts",
      "keys.md",
      "keyboard.ts",
      "pem.txt",
      "my_id_rsa",
    ]
  ) {
    assert.equal(list.deniesName(name), false, `${name} should not be denied`);
  }
  assert.ok(list.deniesName("id_rsa_backup"), "id_rsa* is a prefix glob");
});

Deno.test("denylist: glob characters only mean * and ?; other regex syntax is literal", () => {
  const list = new Denylist(["a+b", "[x]", "file?.txt"]);
  assert.ok(list.deniesName("a+b"));
  assert.equal(list.deniesName("aab"), false);
  assert.ok(list.deniesName("[x]"));
  assert.equal(list.deniesName("x"), false);
  assert.ok(list.deniesName("file1.txt"));
  assert.ok(list.deniesName("FILEZ.TXT"));
  assert.equal(list.deniesName("file12.txt"), false);
});

Deno.test("denylist: a newline inside a name does not escape a * pattern", () => {
  const list = new Denylist();
  assert.ok(list.deniesName("evil\nname.pem"));
  assert.ok(list.deniesName(".env.\nx"));
});

Deno.test("denylist: every component of a path is checked", () => {
  const list = new Denylist();
  assert.ok(list.deniesPath(".git/config"));
  assert.ok(list.deniesPath("deploy/.ssh/known_hosts"));
  assert.ok(list.deniesPath("config/prod/.env"));
  assert.equal(list.deniesPath("src/env/settings.ts"), false);
  assert.equal(list.deniesPath(""), false);
  assert.equal(list.deniesPath("a//b"), false);
});

Deno.test("denylist: extra patterns extend the defaults", () => {
  const list = new Denylist(["*.log", "internal"]);
  assert.ok(list.deniesName("app.LOG"));
  assert.ok(list.deniesName("Internal"));
  assert.ok(list.deniesPath("docs/internal/plan.md"));
  assert.ok(list.deniesName(".env"), "defaults still apply");
  assert.equal(list.patterns.length, DEFAULT_DENY_PATTERNS.length + 2);
  assert.equal(new Denylist().deniesName("app.log"), false);
});

Deno.test("denylist: configuration cannot shrink the list", () => {
  const list = new Denylist([".ENV", "!.env", "*.pem", ""]);
  for (const pattern of DEFAULT_DENY_PATTERNS) {
    assert.ok(list.patterns.includes(pattern), pattern);
  }
  // A duplicate in another case is not added twice; a negation is just another literal name.
  assert.equal(list.patterns.filter((p) => p.toLowerCase() === ".env").length, 1);
  assert.ok(list.deniesName(".env"));
  assert.ok(list.deniesName("key.pem"));
  assert.ok(Object.isFrozen(list.patterns));
});

Deno.test("denylist: a path pattern denies the place its components end at, and what is beneath", () => {
  const list = new Denylist();
  for (
    const path of [
      ".config/gh/hosts.yml",
      "home/.config/GH/Hosts.YML",
      ".m2/settings.xml",
      ".config/gcloud",
      ".config/gcloud/credentials.db",
      ".config/gcloud/legacy_credentials/me/adc.json",
      ".gradle/gradle.properties",
      ".composer/auth.json",
      "composer/auth.json",
      "filezilla/sitemanager.xml",
    ]
  ) {
    assert.ok(list.deniesPath(path), `${path} should be denied`);
  }
  for (
    const path of [
      "settings.xml",
      "pom/settings.xml",
      "hosts.yml",
      "ansible/hosts.yml",
      "gh/hosts.yml.example",
      ".config/gcloud-notes.md",
      ".config/nvim/init.lua",
      "gradle.properties",
      "auth.json",
      "filezilla/readme.md",
    ]
  ) {
    assert.equal(list.deniesPath(path), false, `${path} should be served`);
  }
  // A path pattern needs every component: one name alone never matches it.
  assert.equal(list.deniesName("hosts.yml"), false);
  assert.equal(list.deniesName("gcloud"), false);
});

Deno.test("denylist: deniesEntry decides from the folder and the name, as the walk meets them", () => {
  const list = new Denylist();
  assert.ok(list.deniesEntry(".config/gh", "hosts.yml"));
  assert.ok(list.deniesEntry(".config", "gcloud"));
  assert.ok(list.deniesEntry("", ".m2") === false);
  assert.ok(list.deniesEntry(".m2", "settings.xml"));
  assert.equal(list.deniesEntry("ansible", "hosts.yml"), false);
  assert.ok(list.deniesEntry("src", ".env"), "name patterns still apply");
  assert.equal(list.deniesEntry("", "readme.md"), false);
});

Deno.test("denylist: path patterns see the workspace root's own last components", () => {
  // A workspace that is ~/.m2 or ~/.config/gh: the credential file sits at its root.
  assert.ok(new Denylist([], "/home/u/.m2").deniesEntry("", "settings.xml"));
  assert.ok(new Denylist([], "/home/u/.m2").deniesPath("settings.xml"));
  assert.ok(new Denylist([], "/home/u/.config/gh").deniesPath("hosts.yml"));
  assert.ok(new Denylist([], "/home/u/.config").deniesEntry("", "gcloud"));
  assert.equal(new Denylist([], "/home/u/project").deniesPath("settings.xml"), false);
  assert.equal(new Denylist([], "/home/u/.m2").deniesPath("src/settings.xml"), false);
  assert.equal(new Denylist().deniesPath("settings.xml"), false, "without a root, no context");
});

Deno.test("denylist: deniedPlaceOf names the first denied place on an absolute path", () => {
  const list = new Denylist();
  assert.equal(list.deniedPlaceOf("/work/repo/.git"), "/work/repo/.git");
  assert.equal(list.deniedPlaceOf("/work/repo/.git/refs"), "/work/repo/.git");
  assert.equal(list.deniedPlaceOf("/home/u/.ssh"), "/home/u/.ssh");
  assert.equal(list.deniedPlaceOf("/home/u/.AWS/sub"), "/home/u/.AWS");
  assert.equal(list.deniedPlaceOf("/home/u/.config/gcloud"), "/home/u/.config/gcloud");
  assert.equal(list.deniedPlaceOf("/home/u/.config"), undefined);
  assert.equal(list.deniedPlaceOf("/work/repo"), undefined);
  assert.equal(list.deniedPlaceOf("/"), undefined);
  assert.equal(new Denylist(["vault"]).deniedPlaceOf("/srv/vault/x"), "/srv/vault");
});

Deno.test("denylist: extra path patterns work like the built-in ones; malformed ones are refused", () => {
  const list = new Denylist(["ci/*.token", "deploy/keys"]);
  assert.ok(list.deniesPath("ci/release.TOKEN"));
  assert.ok(list.deniesPath("sub/ci/a.token"));
  assert.ok(list.deniesPath("deploy/keys/readme.md"));
  assert.equal(list.deniesPath("ci/readme.md"), false);
  assert.equal(list.deniesPath("keys/deploy"), false);
  for (const bad of ["/abs", "trailing/", "a//b", "a/../b", "./a"]) {
    assert.ok(patternProblem(bad), bad);
    assert.throws(() => new Denylist([bad]), /denylist pattern/);
  }
  assert.equal(patternProblem("a/b"), undefined);
  assert.equal(patternProblem("*.pem"), undefined);
});

Deno.test("denylist: * and ? never cross a path component", () => {
  const list = new Denylist(["a*z"]);
  assert.equal(list.deniesPath("a/z"), false);
  assert.equal(list.deniesPath("ab/cz"), false);
  assert.ok(list.deniesPath("abz/c"));
  assert.equal(new Denylist(["x?y"]).deniesPath("x/y"), false);
});

Deno.test("denylist: docs/security.md's table gives every built-in pattern a reason", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/security.md", import.meta.url));
  const start = doc.indexOf("## Denylist");
  const end = doc.indexOf("\n## ", start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  const table = section.split("\n").filter((line) => line.startsWith("| `"));
  const documented = new Set(
    table.flatMap((row) => [...row.split("|")[1].matchAll(/`([^`]+)`/g)].map((m) => m[1])),
  );
  for (const pattern of DEFAULT_DENY_PATTERNS) {
    assert.ok(documented.has(pattern), `docs/security.md does not list ${pattern}`);
  }
  for (const pattern of documented) {
    assert.ok(DEFAULT_DENY_PATTERNS.includes(pattern), `docs/security.md lists unknown ${pattern}`);
  }
});

Deno.test("denylist: the name expression with its *… forms under one .* denies exactly what one alternative per pattern does", async () => {
  // ADR-069 rewrote the expression for speed; a plain alternation of every folded pattern, each
  // tried on every form of the name, is the reference it must agree with.
  const { denyKeys, foldName, stripTrailing } = await import("../../src/access/path_semantics.ts");
  const extra = ["*.vault", "secret?.txt", "x*y*z"];
  const sources = new Set<string>();
  for (const glob of [...DEFAULT_DENY_PATTERNS, ...extra].filter((p) => !p.includes("/"))) {
    const folded = foldName(glob);
    for (const form of [folded, stripTrailing(folded)]) {
      sources.add(
        [...form].map((ch) =>
          ch === "*" ? ".*" : ch === "?" ? "." : ch.replace(/[.+^${}()|[\]\\]/g, "\\$&")
        ).join(""),
      );
    }
  }
  const plain = new RegExp(`^(?:${[...sources].join("|")})$`, "is");
  const list = new Denylist(extra);
  const names = new Set<string>(["", "a", "Makefile", "main.c", "x.y.z", "keep.pem.txt", "yxz"]);
  for (const glob of [...DEFAULT_DENY_PATTERNS, ...extra].filter((p) => !p.includes("/"))) {
    for (const fill of ["", "a", "A.B", "tfstate", ".", "\u017f"]) {
      const name = glob.replaceAll("*", fill).replaceAll("?", "q");
      for (
        const variant of [name, name.toUpperCase(), name + ".", name + " ", "x" + name, name + "x"]
      ) {
        names.add(variant);
        names.add("dir\\" + variant);
      }
    }
  }
  for (const name of names) {
    const expected = denyKeys(name).some((key) => plain.test(key));
    assert.equal(list.deniesName(name), expected, JSON.stringify(name));
    // A walk asks deniesEntry, whose common-case keys skip the fold's expressions.
    assert.equal(list.deniesEntry("src", name), expected, `entry ${JSON.stringify(name)}`);
  }
});

Deno.test("denylist: deniesEntry's shortcut for plain names answers as the whole path's check does, for random names (ADR-120)", () => {
  // The walk asks deniesEntry of every entry, and plain ASCII names skip the fold's slots. A
  // shortcut that lower-cased wrongly, missed a path pattern's end (`gh/hosts.yml`) or took a
  // name with a trailing dot, a space, a backslash or a non-ASCII letter as plain would let a
  // denied name through the walk while resolution still refused it.
  const list = new Denylist(["build/*.secret", "deploy/keys"]);
  const pieces = [
    ".env",
    "ENV",
    ".Env",
    "id_rsa",
    "ID_ED25519",
    "hosts.yml",
    "HOSTS.YML",
    "credentials",
    ".json",
    ".pem",
    ".Key",
    "keys",
    "KEYS",
    ".secret",
    "notes",
    "a",
    "_",
    "-",
    ".",
    "..",
    " ",
    "\\",
    "\u0130",
    "\u212a",
    "\u00e9",
    "\u0000",
    "~1",
    "*",
    "?",
  ];
  let seed = 12345;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) >>> 0) % n;
  let denied = 0;
  for (let k = 0; k < 6_000; k++) {
    let name = "";
    for (let j = 1 + random(3); j > 0; j--) name += pieces[random(pieces.length)];
    if (name === "" || name === "." || name === "..") continue;
    for (const parent of ["", "gh", "GH", "build", "deploy", "src/gh"]) {
      const expected = list.deniesPath(parent === "" ? name : `${parent}/${name}`);
      assert.equal(list.deniesEntry(parent, name), expected, `${parent} / ${JSON.stringify(name)}`);
      if (expected) denied++;
    }
  }
  assert.ok(denied > 1_000, `the names reach the denied ones (${denied})`);
});
