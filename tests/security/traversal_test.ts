/**
 * Attacks on path strings: `..` in every spelling, absolute paths, the
 * physical-versus-lexical `..` trick, NUL bytes, encoded and look-alike
 * dots, over-long paths and components — through both tools.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { makeWorkspace, startServer } from "../helpers/fixtures.ts";
import { call, expectRefusal, okStructured } from "./helpers.ts";

const TOOLS = ["read_file", "list_directory"] as const;

function traversalWorkspace() {
  return makeWorkspace({
    "a.txt": "alpha\n",
    "a/b/c.txt": "inside c\n",
    "answer.txt": "LEXICAL\n",
    "deep/answer.txt": "DEEP\n",
    "deep/a/b/answer.txt": "PHYSICAL\n",
    "deep/a/b/target/inner.txt": "INNER\n",
    // Lexically `dirlink/..` is the root; physically it is deep/a/b.
    "dirlink": { symlink: "deep/a/b/target" },
    // Lexically `outlink/..` is the root; physically it is outside.
    "outlink": { symlink: "../outside" },
  });
}

Deno.test("attack: ../ traversal in every spelling via read_file.path and list_directory.path is refused outside_workspace", async () => {
  await using ws = await traversalWorkspace();
  using server = startServer(ws.root);
  const attacks = [
    "..",
    "../",
    "../..",
    "../../..",
    "a/../../x",
    "a/../..",
    "./../",
    "./..",
    "a/b/../../../outside/secret.txt",
    "a/b/../../../outside",
    "../outside/secret.txt",
    "../ws/a.txt", // climbs out and back in: still a climb above the root
    "a/./../.././../etc/passwd",
  ];
  for (const tool of TOOLS) {
    for (const path of attacks) {
      await expectRefusal(server, ws, tool, { path }, "outside_workspace");
    }
  }
});

Deno.test("attack: look-alike traversal strings (....//, ..\\..\\ ) are literal names on posix and refused not_found", async () => {
  await using ws = await traversalWorkspace();
  using server = startServer(ws.root);
  const attacks = [
    "....//",
    "....//....//etc/passwd",
    "..\\..\\",
    "..\\..\\outside\\secret.txt",
    "a\\..\\..\\outside\\secret.txt",
    ".../...",
    "... /secret.txt",
  ];
  for (const tool of TOOLS) {
    for (const path of attacks) {
      await expectRefusal(server, ws, tool, { path }, "not_found");
    }
  }
});

Deno.test("attack: absolute paths outside the workspace (/etc/passwd, /, the outside dir, a sibling with the root as string prefix) are refused outside_workspace", async () => {
  await using ws = await traversalWorkspace();
  // A sibling whose path has the workspace root as a string prefix: "<tmp>/ws" vs "<tmp>/ws2".
  const sibling = ws.root + "2";
  await Deno.mkdir(sibling);
  await Deno.writeTextFile(join(sibling, "secret.txt"), "OUTSIDE-SECRET\n");
  using server = startServer(ws.root);
  const attacks = [
    "/",
    "/etc",
    "/etc/passwd",
    "/etc/hostname",
    "/proc/self/environ",
    "/proc/self/root/etc/passwd",
    "//etc/passwd",
    dirname(ws.root),
    ws.outside,
    join(ws.outside, "secret.txt"),
    sibling,
    join(sibling, "secret.txt"),
    ws.root + "/../outside/secret.txt",
    ws.root + "/a/../../outside/secret.txt",
    ws.root + "/a/b/../../../outside",
    ws.root + "/..",
    // Textually leaves the workspace before coming back.
    ws.root + "/../ws/a.txt",
    ws.root + "/../ws",
  ];
  for (const tool of TOOLS) {
    for (const path of attacks) {
      await expectRefusal(server, ws, tool, { path }, "outside_workspace");
    }
  }
});

Deno.test("attack: an absolute path inside the workspace is accepted and reported relative (no root in the answer)", async () => {
  await using ws = await traversalWorkspace();
  using server = startServer(ws.root);
  const file = okStructured(await call(server, "read_file", { path: ws.path("a.txt") }));
  assert.equal(file.content, "alpha\n");
  assert.equal(file.path, "a.txt");
  assert.ok(!JSON.stringify(file).includes(ws.root));
  const nested = okStructured(await call(server, "read_file", { path: ws.root + "/./a/b/c.txt" }));
  assert.equal(nested.path, "a/b/c.txt");
  for (const path of [ws.root, ws.root + "/", ws.root + "/.", ws.root + "//./a/.."]) {
    const root = okStructured(await call(server, "list_directory", { path }));
    assert.equal(root.path, "", path);
  }
  const sub = okStructured(await call(server, "list_directory", { path: ws.root + "/a/" }));
  assert.equal(sub.path, "a");
  assert.deepEqual((sub.entries as { name: string }[]).map((e) => e.name), ["b"]);
});

Deno.test("attack: an absolute path through the configured (symlinked) workspace path is accepted inside and refused when it climbs out", async () => {
  await using ws = await traversalWorkspace();
  const configured = join(dirname(ws.root), "wslink");
  await Deno.symlink(ws.root, configured);
  using server = startServer(configured);
  const file = okStructured(await call(server, "read_file", { path: configured + "/a.txt" }));
  assert.equal(file.content, "alpha\n");
  assert.equal(file.path, "a.txt");
  for (const tool of TOOLS) {
    for (
      const path of [
        configured + "/../outside/secret.txt",
        configured + "/../outside",
        configured + "/..",
        configured + "/a/../../outside/secret.txt",
      ]
    ) {
      await expectRefusal(server, ws, tool, { path }, "outside_workspace");
    }
  }
});

Deno.test("attack: physical `..` after a symlinked dir (dirlink/../answer.txt) serves the physical parent, never the lexical one", async () => {
  await using ws = await traversalWorkspace();
  using server = startServer(ws.root);
  // Relative form.
  const relative = okStructured(await call(server, "read_file", { path: "dirlink/../answer.txt" }));
  assert.equal(relative.content, "PHYSICAL\n");
  assert.equal(relative.path, "deep/a/b/answer.txt");
  // Absolute form: the same physical answer, not a lexical normalisation to <root>/answer.txt.
  const absolute = okStructured(
    await call(server, "read_file", { path: ws.root + "/dirlink/../answer.txt" }),
  );
  assert.equal(absolute.content, "PHYSICAL\n");
  assert.equal(absolute.path, "deep/a/b/answer.txt");
  // Lexically this climbs out (../../answer.txt); physically it is deep/answer.txt.
  const climbing = okStructured(
    await call(server, "read_file", { path: "dirlink/../../../answer.txt" }),
  );
  assert.equal(climbing.content, "DEEP\n");
  assert.equal(climbing.path, "deep/answer.txt");
  // list_directory takes `..` the same way.
  const listing = okStructured(await call(server, "list_directory", { path: "dirlink/.." }));
  assert.equal(listing.path, "deep/a/b");
  assert.deepEqual(
    (listing.entries as { name: string }[]).map((e) => e.name),
    ["target", "answer.txt"],
  );
  const absListing = okStructured(
    await call(server, "list_directory", { path: ws.root + "/dirlink/.." }),
  );
  assert.equal(absListing.path, "deep/a/b");
});

Deno.test("attack: physical `..` climbing past the root through a symlinked dir (dirlink/../../../../..) is refused outside_workspace", async () => {
  await using ws = await traversalWorkspace();
  using server = startServer(ws.root);
  for (const tool of TOOLS) {
    for (
      const path of [
        "dirlink/../../../../..",
        "dirlink/../../../../../outside/secret.txt",
        "dirlink/../../../../../ws/a.txt",
      ]
    ) {
      await expectRefusal(server, ws, tool, { path }, "outside_workspace");
    }
  }
});

Deno.test("attack: outlink/.. (lexically the root, physically outside) is refused outside_workspace, never served", async () => {
  await using ws = await traversalWorkspace();
  using server = startServer(ws.root);
  for (const tool of TOOLS) {
    for (
      const path of [
        "outlink/..",
        "outlink/../answer.txt",
        "outlink/../ws/answer.txt",
        "outlink/../ws",
        "outlink/secret.txt",
        ws.root + "/outlink/../answer.txt",
        ws.root + "/outlink/../ws/answer.txt",
      ]
    ) {
      await expectRefusal(server, ws, tool, { path }, "outside_workspace");
    }
  }
});

Deno.test("attack: a NUL byte in read_file.path or list_directory.path is refused invalid_path", async () => {
  await using ws = await traversalWorkspace();
  using server = startServer(ws.root);
  for (const tool of TOOLS) {
    for (const path of ["a.txt\0", "\0", "a\0/../../etc/passwd", "a.txt\0.png", "/etc/passwd\0"]) {
      await expectRefusal(server, ws, tool, { path }, "invalid_path");
    }
  }
});

Deno.test("attack: percent-encoded dots (%2e%2e/%2e%2e/etc/passwd) are never decoded: literal names, not_found", async () => {
  await using ws = await makeWorkspace({ "%2e%2e/literal.txt": "LITERAL\n" });
  using server = startServer(ws.root);
  for (const tool of TOOLS) {
    for (
      const path of [
        "%2e%2e/%2e%2e/etc/passwd",
        "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "%2E%2E/outside/secret.txt",
        "..%2f..%2fetc%2fpasswd",
        "%252e%252e/%252e%252e/etc/passwd",
      ]
    ) {
      await expectRefusal(server, ws, tool, { path }, "not_found");
    }
  }
  // The literal directory "%2e%2e" is an ordinary name inside the workspace.
  const literal = okStructured(await call(server, "read_file", { path: "%2e%2e/literal.txt" }));
  assert.equal(literal.content, "LITERAL\n");
  assert.equal(literal.path, "%2e%2e/literal.txt");
});

Deno.test("attack: Unicode look-alike dots (U+2024, U+2025, U+FF0E) are kept literal, not_found, never folded to `..`", async () => {
  const oneDotLeader = "\u2024";
  const twoDotLeader = "\u2025";
  const fullwidthStop = "\uFF0E";
  await using ws = await makeWorkspace({ [`${twoDotLeader}/literal.txt`]: "LITERAL\n" });
  using server = startServer(ws.root);
  for (const tool of TOOLS) {
    for (
      const path of [
        `${oneDotLeader}${oneDotLeader}/${oneDotLeader}${oneDotLeader}/etc/passwd`,
        `${oneDotLeader}${oneDotLeader}/outside/secret.txt`,
        `${fullwidthStop}${fullwidthStop}/${fullwidthStop}${fullwidthStop}/etc/passwd`,
        `${fullwidthStop}${fullwidthStop}/outside/secret.txt`,
        `${twoDotLeader}/${twoDotLeader}/etc/passwd`,
        `${twoDotLeader}/../../outside/secret.txt`.replace("../../", `${twoDotLeader}/`),
        `.${fullwidthStop}/outside/secret.txt`,
      ]
    ) {
      await expectRefusal(server, ws, tool, { path }, "not_found");
    }
  }
  const literal = okStructured(
    await call(server, "read_file", { path: `${twoDotLeader}/literal.txt` }),
  );
  assert.equal(literal.content, "LITERAL\n");
  assert.equal(literal.path, `${twoDotLeader}/literal.txt`);
});

Deno.test("attack: over-long paths (4097 chars) and components (>255 bytes) are refused without a crash", async () => {
  await using ws = await makeWorkspace({ "a.txt": "alpha\n" });
  using server = startServer(ws.root);
  for (const tool of TOOLS) {
    // Over the schema's bound: refused before the sandbox sees it.
    await expectRefusal(server, ws, tool, { path: "a/".repeat(2048) + "b" }, "invalid_arguments");
    await expectRefusal(server, ws, tool, { path: "../".repeat(1400) }, "invalid_arguments");
    await expectRefusal(server, ws, tool, { path: "x".repeat(100_000) }, "invalid_arguments");
    // Exactly at the bound: a valid path that does not exist.
    await expectRefusal(server, ws, tool, { path: "a/".repeat(2048) }, [
      "not_found",
      "invalid_path",
    ]);
    // Components: 256 ASCII bytes, 256 bytes of two-byte characters (128 chars), 4 KiB.
    await expectRefusal(server, ws, tool, { path: "x".repeat(256) }, "invalid_path");
    await expectRefusal(server, ws, tool, { path: "\u00e9".repeat(128) }, "invalid_path");
    await expectRefusal(server, ws, tool, { path: `a/${"y".repeat(4000)}/z` }, "invalid_path");
    await expectRefusal(server, ws, tool, { path: ws.root + "/" + "x".repeat(300) }, [
      "invalid_path",
    ]);
    // 255 bytes is a legal name: it simply does not exist.
    await expectRefusal(server, ws, tool, { path: "x".repeat(255) }, "not_found");
  }
  // The server is still serving.
  const after = okStructured(await call(server, "read_file", { path: "a.txt" }));
  assert.equal(after.content, "alpha\n");
});

Deno.test("attack: wrong-typed or extra path arguments are refused invalid_arguments (no coercion to a path)", async () => {
  await using ws = await makeWorkspace({ "a.txt": "alpha\n" });
  using server = startServer(ws.root);
  for (const tool of TOOLS) {
    for (
      const args of [
        { path: ["..", "etc", "passwd"] },
        { path: { toString: "../../etc/passwd" } },
        { path: 42 },
        { path: null },
        { path: "a.txt", root: "/" },
        { path: "a.txt", workspace: "/etc" },
      ]
    ) {
      await expectRefusal(server, ws, tool, args, "invalid_arguments");
    }
  }
  await expectRefusal(server, ws, "read_file", {}, "invalid_arguments");
  await expectRefusal(server, ws, "read_file", { path: "" }, "invalid_arguments");
});

Deno.test("attack: a forged or replayed list_directory cursor cannot redirect a listing to another path", async () => {
  await using ws = await makeWorkspace({ "sub/a.txt": "a\n", "sub/b.txt": "b\n", "c.txt": "c\n" });
  using server = startServer(ws.root, { MCP_SANDBOX__LIST_PAGE_SIZE: "1" });
  const first = okStructured(await call(server, "list_directory", { path: "sub" }));
  const cursor = first.next_cursor as string;
  assert.equal(typeof cursor, "string");
  const rejectsWithoutLeak = async (args: Record<string, unknown>) => {
    await assert.rejects(server.dispatcher.call("list_directory", args), (error: Error) => {
      assert.ok(!error.message.includes(ws.root), error.message);
      return /cursor/i.test(error.message);
    });
  };
  // The cursor of "sub" replayed on the root, or with include_hidden flipped.
  await rejectsWithoutLeak({ cursor });
  await rejectsWithoutLeak({ path: "sub", include_hidden: true, cursor });
  // A hand-made cursor naming the parent directory, signed with nothing.
  const body = btoa(JSON.stringify({ p: "..", h: false, o: 0, f: "0:0" }))
    .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  await rejectsWithoutLeak({ cursor: `${body}.${cursor.split(".")[1]}` });
  await rejectsWithoutLeak({ path: "sub", cursor: `${body}.AAAA` });
  await rejectsWithoutLeak({ path: "sub", cursor: "not-a-cursor" });
  // The path argument still goes through containment first.
  await expectRefusal(server, ws, "list_directory", { path: "..", cursor }, "outside_workspace");
  // The genuine cursor still works for the path it was issued for.
  const second = okStructured(await call(server, "list_directory", { path: "sub", cursor }));
  assert.deepEqual((second.entries as { name: string }[]).map((e) => e.name), ["b.txt"]);
});
