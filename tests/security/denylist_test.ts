/**
 * Attacks on the denylist (credential files and repository internals) and
 * on hard links: every spelling and route to a denied file, listings that
 * must count without naming, operator extensions, and files reachable by
 * more than one name.
 */

import assert from "node:assert/strict";
import { makeWorkspace, startServer } from "../helpers/fixtures.ts";
import { allText, call, expectRefusal, okStructured } from "./helpers.ts";

const DENIED_CONTENT = "DENIED-CONTENT";

/** Every file here is on the built-in denylist. */
const DENIED_FILES = [
  ".env",
  ".ENV",
  ".Env.Local",
  "config/.env.production",
  ".git/config",
  ".git/HEAD",
  ".GIT/HEAD",
  "id_rsa",
  "ID_RSA.PUB",
  "server.pem",
  "x.tfstate",
  ".npmrc",
  ".netrc",
  ".ssh/id_ed25519",
  ".aws/credentials",
  "deploy/prod.tfvars",
  "keys/signing.key",
  ".git-credentials",
];

/** The denied names directly in the root (files and directories). */
const DENIED_AT_ROOT = [
  ".env",
  ".ENV",
  ".Env.Local",
  ".git",
  ".GIT",
  "id_rsa",
  "ID_RSA.PUB",
  "server.pem",
  "x.tfstate",
  ".npmrc",
  ".netrc",
  ".ssh",
  ".aws",
  ".git-credentials",
];

function deniedWorkspace() {
  const entries: Record<string, string | { symlink: string }> = {
    "readme.md": "hello\n",
    "config/app.json": "{}\n",
    "deploy/readme.md": "deploy\n",
    "keys/public.txt": "not a key\n",
    // Innocent names that lead to denied places.
    "innocent.txt": { symlink: ".env" },
    "notes": { symlink: ".ssh" },
    "gitdir": { symlink: ".git" },
    "settings": { symlink: "config/.env.production" },
  };
  for (const file of DENIED_FILES) entries[file] = `${DENIED_CONTENT} ${file}\n`;
  return makeWorkspace(entries);
}

Deno.test("attack: reading every spelling of a denied file (.env, .ENV, .Env.Local, .git/config, .GIT/HEAD, id_rsa, ID_RSA.PUB, *.pem, *.tfstate, .npmrc, .netrc, .ssh/..., .aws/...) is refused denied_path", async () => {
  await using ws = await deniedWorkspace();
  using server = startServer(ws.root);
  for (const file of DENIED_FILES) {
    for (const path of [file, `./${file}`, `config/../${file}`, ws.path(file)]) {
      await expectRefusal(server, ws, "read_file", { path }, "denied_path");
    }
  }
  for (const dir of [".git", ".GIT", ".ssh", ".aws", ".git/", "./.ssh", ws.path(".aws")]) {
    await expectRefusal(server, ws, "list_directory", { path: dir }, "denied_path");
  }
});

Deno.test("attack: reaching a denied file through an innocently named symlink (follow on) is refused denied_path", async () => {
  await using ws = await deniedWorkspace();
  using server = startServer(ws.root, { MCP_SANDBOX__FOLLOW_SYMLINKS: "true" });
  for (const path of ["innocent.txt", "settings", "notes/id_ed25519", "gitdir/config"]) {
    await expectRefusal(server, ws, "read_file", { path }, "denied_path");
  }
  for (const path of ["notes", "gitdir", "notes/", "gitdir/."]) {
    await expectRefusal(server, ws, "list_directory", { path }, "denied_path");
  }
});

Deno.test("attack: reaching a denied directory through an intermediate symlink (follow off) is refused denied_path", async () => {
  await using ws = await deniedWorkspace();
  using server = startServer(ws.root);
  for (const path of ["notes/id_ed25519", "gitdir/config", "gitdir/HEAD"]) {
    await expectRefusal(server, ws, "read_file", { path }, "denied_path");
  }
});

Deno.test("attack: probing inside a denied directory cannot tell an existing file from a missing one", async () => {
  await using ws = await deniedWorkspace();
  const envs: Record<string, string>[] = [{}, { MCP_SANDBOX__FOLLOW_SYMLINKS: "true" }];
  for (const env of envs) {
    using server = startServer(ws.root, env);
    for (
      const [present, missing] of [
        [".git/config", ".git/no-such-file"],
        [".git/HEAD", ".git/refs/heads/secret-branch"],
        [".ssh/id_ed25519", ".ssh/id_rsa"],
        [".aws/credentials", ".aws/config"],
        ["gitdir/config", "gitdir/no-such-file"],
        ["notes/id_ed25519", "notes/id_ecdsa"],
        [".env", ".env.missing"],
      ]
    ) {
      await expectRefusal(server, ws, "read_file", { path: present }, "denied_path");
      await expectRefusal(server, ws, "read_file", { path: missing }, "denied_path");
    }
    await expectRefusal(server, ws, "list_directory", { path: ".git/refs" }, "denied_path");
    await expectRefusal(server, ws, "list_directory", { path: ".git/nope" }, "denied_path");
  }
});

Deno.test("attack: list_directory counts denied entries (denied_count) and never names them, in text or structured output", async () => {
  await using ws = await deniedWorkspace();
  using server = startServer(ws.root);
  for (const include_hidden of [false, true]) {
    const result = await call(server, "list_directory", { include_hidden });
    const listing = okStructured(result);
    assert.equal(listing.denied_count, DENIED_AT_ROOT.length);
    const names = (listing.entries as { name: string }[]).map((e) => e.name);
    for (const denied of DENIED_AT_ROOT) assert.ok(!names.includes(denied), denied);
    const text = allText(result);
    const json = JSON.stringify(result.structuredContent);
    for (const denied of [...DENIED_AT_ROOT, DENIED_CONTENT]) {
      assert.ok(!text.includes(denied), `text names ${denied}`);
      assert.ok(!json.includes(JSON.stringify(denied)), `structured names ${denied}`);
    }
    assert.match(text, new RegExp(`${DENIED_AT_ROOT.length} denied \\(not shown\\)`));
    // What is listed is the innocent part, whatever include_hidden says.
    assert.ok(names.includes("readme.md") && names.includes("config"), names.join(","));
  }
  const config = await call(server, "list_directory", { path: "config", include_hidden: true });
  const configListing = okStructured(config);
  assert.equal(configListing.denied_count, 1);
  assert.deepEqual((configListing.entries as { name: string }[]).map((e) => e.name), [
    "app.json",
  ]);
  assert.ok(!allText(config).includes(".env.production"));
  const deploy = okStructured(await call(server, "list_directory", { path: "deploy" }));
  assert.equal(deploy.denied_count, 1);
});

Deno.test("attack: MCP_SANDBOX__DENY_EXTRA adds patterns (files and directories, any case) and removes none", async () => {
  await using ws = await makeWorkspace({
    "notes.secret": "EXTRA\n",
    "NOTES.SECRET": "EXTRA\n",
    "private/x.txt": "EXTRA\n",
    "sub/PRIVATE/y.txt": "EXTRA\n",
    ".env": "DEFAULT\n",
    "ok.txt": "fine\n",
  });
  using server = startServer(ws.root, { MCP_SANDBOX__DENY_EXTRA: "*.secret,private,!.env" });
  for (
    const path of ["notes.secret", "NOTES.SECRET", "private/x.txt", "sub/PRIVATE/y.txt", ".env"]
  ) {
    await expectRefusal(server, ws, "read_file", { path }, "denied_path");
  }
  await expectRefusal(server, ws, "list_directory", { path: "private" }, "denied_path");
  await expectRefusal(server, ws, "list_directory", { path: "sub/private" }, "denied_path");
  const result = await call(server, "list_directory", { include_hidden: true });
  const listing = okStructured(result);
  assert.equal(listing.denied_count, 4); // notes.secret, NOTES.SECRET, private, .env
  assert.deepEqual((listing.entries as { name: string }[]).map((e) => e.name), [
    "sub",
    "ok.txt",
  ]);
  for (const name of ["notes.secret", "NOTES.SECRET", "private", ".env"]) {
    assert.ok(!allText(result).includes(name), name);
  }
  const ok = okStructured(await call(server, "read_file", { path: "ok.txt" }));
  assert.equal(ok.content, "fine\n");
});

Deno.test("attack: a hard link to a file is read but flagged (hard_links ≥ 2 and a note in the text)", async () => {
  await using ws = await makeWorkspace({ "original.txt": "SHARED\n", "single.txt": "ONE\n" });
  await Deno.link(ws.path("original.txt"), ws.path("alias.txt"));
  using server = startServer(ws.root);
  for (const path of ["alias.txt", "original.txt"]) {
    const result = await call(server, "read_file", { path });
    const file = okStructured(result);
    assert.equal(file.content, "SHARED\n");
    assert.equal(file.hard_links, 2);
    assert.match(allText(result), /This file has 2 hard links\./);
  }
  await Deno.link(ws.path("original.txt"), ws.path("third.txt"));
  const three = okStructured(await call(server, "read_file", { path: "third.txt" }));
  assert.equal(three.hard_links, 3);
  const single = await call(server, "read_file", { path: "single.txt" });
  assert.equal(okStructured(single).hard_links, undefined);
  assert.ok(!allText(single).includes("hard link"));
});

Deno.test("attack: a hard link that gives a denied or outside file an innocent name is flagged, never silent", async () => {
  await using ws = await makeWorkspace({ ".env": "TOKEN=hunter2\n" });
  // Same filesystem (one temp dir), so both links can be made.
  await Deno.link(ws.path(".env"), ws.path("env-copy.txt"));
  await Deno.link(ws.outside + "/secret.txt", ws.path("outside-alias.txt"));
  using server = startServer(ws.root);
  await expectRefusal(server, ws, "read_file", { path: ".env" }, "denied_path");
  for (const path of ["env-copy.txt", "outside-alias.txt"]) {
    const result = await call(server, "read_file", { path });
    assert.equal(okStructured(result).hard_links, 2, path);
    assert.match(allText(result), /This file has 2 hard links\./);
  }
});

/**
 * Credential places the denylist missed until issue 5 (each was served):
 * `[folder to list, denied entry in it, what lies beneath it when a folder]`.
 * The folder is served; the entry must be neither read nor named.
 */
const FORMER_GAPS: readonly (readonly [string, string, string?])[] = [
  [".cargo", "credentials.toml"],
  [".cargo", "credentials"],
  ["", ".gitconfig"],
  ["", ".vault-token"],
  ["", ".terraformrc"],
  ["", "terraform.rc"],
  [".terraform.d", "credentials.tfrc.json"],
  ["", ".my.cnf"],
  ["", ".mylogin.cnf"],
  ["", ".s3cfg"],
  ["", ".boto"],
  ["", ".passwd-s3fs"],
  ["deploy", "kubeconfig"],
  [".m2", "settings.xml"],
  [".m2", "settings-security.xml"],
  ["", ".ftpconfig"],
  ["", "sftp-config.json"],
  ["", ".remote-sync.json"],
  ["", ".tugboat"],
  [".config/gh", "hosts.yml"],
  [".config", "hub"],
  [".config", "gcloud", "credentials.db"],
  [".gradle", "gradle.properties"],
  [".composer", "auth.json"],
  [".config/composer", "auth.json"],
  [".config/filezilla", "sitemanager.xml"],
  [".vscode", "sftp.json"],
  [".idea", "WebServers.xml"],
  ["", ".bash_history"],
  ["", ".zsh_history"],
  ["", ".python_history"],
  ["", ".psql_history"],
  ["", ".mysql_history"],
  ["", ".node_repl_history"],
  [".local/share/fish", "fish_history"],
  ["", ".history"],
  ["", ".Rhistory"],
  ["", ".lesshst"],
  ["", ".viminfo"],
  ["keys", "AuthKey_ABC123.p8"],
  ["", "vault.kdbx"],
  ["", ".oci", "config"],
  ["", ".password-store", "README"],
  ["", ".mozilla", "firefox/logins.json"],
  [".local/share", "keyrings", "login.keyring"],
];

/** Names next to those places that are harmless and must still be served. */
const LOOK_ALIKES = [
  "settings.xml",
  "hosts.yml",
  "gradle.properties",
  "auth.json",
  "history.md",
  "src/history/index.ts",
  ".config/nvim/init.lua",
  ".config/gh/config.yml",
  ".config/gcloud-notes.md",
  ".m2/repository/readme.txt",
  ".vscode/settings.json",
  ".idea/workspace.xml",
  "deploy/kube.md",
  "boto.py",
  ".github/workflows/ci.yml",
];

const pathOf = (folder: string, name: string, below?: string) =>
  [folder, name, below].filter((part) => part !== undefined && part !== "").join("/");

Deno.test("attack: reading a formerly served credential place (.config/gh/hosts.yml, .cargo/credentials.toml, .vault-token, .config/gcloud/, .gitconfig, shell and REPL histories, .terraformrc, .my.cnf, .m2/settings.xml, .s3cfg, .boto, …) is refused denied_path", async () => {
  const entries: Record<string, string> = {};
  for (const [folder, name, below] of FORMER_GAPS) {
    entries[pathOf(folder, name, below)] = `${DENIED_CONTENT} ${name}\n`;
  }
  for (const path of LOOK_ALIKES) entries[path] = "harmless\n";
  await using ws = await makeWorkspace(entries);
  using server = startServer(ws.root);
  for (const [folder, name, below] of FORMER_GAPS) {
    const path = pathOf(folder, name, below);
    const shouted = pathOf(folder, name.toUpperCase(), below);
    for (const spelling of [path, `./${path}`, shouted, ws.path(path)]) {
      await expectRefusal(server, ws, "read_file", { path: spelling }, "denied_path");
    }
    if (below !== undefined) {
      await expectRefusal(server, ws, "list_directory", { path: pathOf(folder, name) }, [
        "denied_path",
      ]);
    }
  }
  for (const path of LOOK_ALIKES) {
    const file = okStructured(await call(server, "read_file", { path }));
    assert.equal(file.content, "harmless\n", path);
  }
});

Deno.test("attack: listing the folder of a formerly served credential place counts it (denied_count) and never names it", async () => {
  const entries: Record<string, string> = {};
  for (const [folder, name, below] of FORMER_GAPS) {
    entries[pathOf(folder, name, below)] = `${DENIED_CONTENT}\n`;
  }
  await using ws = await makeWorkspace(entries);
  using server = startServer(ws.root);
  const folders = [...new Set(FORMER_GAPS.map(([folder]) => folder))];
  for (const folder of folders) {
    const denied = FORMER_GAPS.filter(([f]) => f === folder).map(([, name]) => name);
    const result = await call(server, "list_directory", { path: folder, include_hidden: true });
    const listing = okStructured(result);
    const names = (listing.entries as { name: string }[]).map((e) => e.name);
    assert.equal(listing.denied_count, new Set(denied).size, `${folder}: ${names.join(",")}`);
    for (const name of denied) {
      assert.ok(!names.includes(name), `${folder} lists ${name}`);
      assert.ok(!allText(result).split("\n").some((line) => line.endsWith(name)), name);
    }
  }
});

Deno.test("attack: a path pattern is denied through a symlinked folder too (given path or resolved path)", async () => {
  await using ws = await makeWorkspace({
    "real/hosts.yml": `${DENIED_CONTENT}\n`,
    ".config/gh/hosts.yml": `${DENIED_CONTENT}\n`,
    "alias": { symlink: ".config/gh" },
  });
  // `x/gh` → `real`: the given path ends in gh/hosts.yml only by the link's name.
  await Deno.mkdir(ws.path("x"));
  await Deno.symlink(ws.path("real"), ws.path("x/gh"));
  using server = startServer(ws.root);
  // Given path matches (the link is named gh), resolved path does not.
  await expectRefusal(server, ws, "read_file", { path: "x/gh/hosts.yml" }, "denied_path");
  // Resolved path matches (.config/gh), given path does not.
  await expectRefusal(server, ws, "read_file", { path: "alias/hosts.yml" }, "denied_path");
  // The real folder under another name is just a folder with a hosts.yml.
  const plain = okStructured(await call(server, "read_file", { path: "real/hosts.yml" }));
  assert.equal(plain.content, `${DENIED_CONTENT}\n`);
});

Deno.test("attack: a workspace that is itself ~/.m2 or ~/.config/gh still denies the file at its root", async () => {
  await using base = await makeWorkspace({
    ".m2/settings.xml": `${DENIED_CONTENT}\n`,
    ".m2/repository/ok.txt": "ok\n",
    ".config/gh/hosts.yml": `${DENIED_CONTENT}\n`,
  });
  for (const [root, file] of [[".m2", "settings.xml"], [".config/gh", "hosts.yml"]]) {
    const ws = { ...base, root: base.path(root), path: (...p: string[]) => base.path(root, ...p) };
    using server = startServer(ws.root);
    await expectRefusal(server, ws, "read_file", { path: file }, "denied_path");
    const listing = okStructured(await call(server, "list_directory", { include_hidden: true }));
    assert.equal(listing.denied_count, 1, root);
  }
});

Deno.test("attack: MCP_SANDBOX__DENY_EXTRA path patterns deny on whole components, any case", async () => {
  await using ws = await makeWorkspace({
    "ci/release.token": "EXTRA\n",
    "sub/CI/other.TOKEN": "EXTRA\n",
    "ci/readme.md": "fine\n",
    "xci/a.token": "fine\n",
  });
  using server = startServer(ws.root, { MCP_SANDBOX__DENY_EXTRA: "ci/*.token" });
  for (const path of ["ci/release.token", "sub/CI/other.TOKEN", "sub/CI/../CI/other.token"]) {
    await expectRefusal(server, ws, "read_file", { path }, "denied_path");
  }
  for (const path of ["ci/readme.md", "xci/a.token"]) {
    assert.equal(okStructured(await call(server, "read_file", { path })).content, "fine\n");
  }
  const listing = okStructured(await call(server, "list_directory", { path: "ci" }));
  assert.equal(listing.denied_count, 1);
});
