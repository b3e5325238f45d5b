import assert from "node:assert/strict";
import { DEFAULT_DENY_PATTERNS, Denylist } from "../../src/access/denylist.ts";

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
