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
