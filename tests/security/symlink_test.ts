/**
 * Attacks through symbolic links and special files: links to files and
 * directories outside, to /proc/self/root, to /dev/zero and FIFOs, dangling
 * and looping links, with and without MCP_SANDBOX__FOLLOW_SYMLINKS.
 */

import assert from "node:assert/strict";
import { constants as fsConstants, openSync } from "node:fs";
import { makeWorkspace, startServer } from "../helpers/fixtures.ts";
import { call, expectRefusal, FAST_DEADLINE_MS, okStructured, warmUp } from "./helpers.ts";

const FOLLOW = { MCP_SANDBOX__FOLLOW_SYMLINKS: "true" };

async function linkWorkspace() {
  const ws = await makeWorkspace({
    "inside.txt": "INSIDE\n",
    "sub/inner.txt": "INNER\n",
    "fifo": { fifo: true },
    "flink": { symlink: "../outside/secret.txt" },
    "dlink": { symlink: "../outside" },
    "proc": { symlink: "/proc/self/root" },
    "etclink": { symlink: "/etc" },
    "passwdlink": { symlink: "/etc/passwd" },
    "rootlink": { symlink: "/" },
    "up": { symlink: ".." },
    "zero": { symlink: "/dev/zero" },
    "stdin": { symlink: "/dev/stdin" },
    "fifolink": { symlink: "fifo" },
    "dangling": { symlink: "nowhere" },
    "dangling_out": { symlink: "../outside/nope.txt" },
    "self": { symlink: "self" },
    "ping": { symlink: "pong" },
    "pong": { symlink: "ping" },
    "inlink": { symlink: "inside.txt" },
    "subl": { symlink: "sub" },
    "chain1": { symlink: "chain2" },
    "chain2": { symlink: "../outside/secret.txt" },
    "chainin1": { symlink: "chainin2" },
    "chainin2": { symlink: "sub/../inside.txt" },
  });
  await Deno.symlink(ws.outside, ws.path("abslink"));
  await Deno.symlink(ws.outside + "/secret.txt", ws.path("absfile"));
  return ws;
}

Deno.test("attack: a final-component symlink (inside or outside) is refused symlink_not_followed by default", async () => {
  await using ws = await linkWorkspace();
  using server = startServer(ws.root);
  for (
    const path of [
      "flink",
      "absfile",
      "passwdlink",
      "zero",
      "stdin",
      "fifolink",
      "dangling",
      "dangling_out",
      "self",
      "ping",
      "inlink",
      "chain1",
      "chainin1",
    ]
  ) {
    await expectRefusal(server, ws, "read_file", { path }, "symlink_not_followed");
  }
  for (
    const path of ["dlink", "abslink", "proc", "etclink", "rootlink", "up", "subl", "subl/", "up/."]
  ) {
    await expectRefusal(server, ws, "list_directory", { path }, "symlink_not_followed");
    await expectRefusal(server, ws, "read_file", { path }, "symlink_not_followed");
  }
});

Deno.test("attack: reading through a symlinked directory that points outside (dlink/secret.txt, abslink/..., up/...) is refused outside_workspace", async () => {
  for (const env of [{}, FOLLOW]) {
    await using ws = await linkWorkspace();
    using server = startServer(ws.root, env);
    for (
      const path of [
        "dlink/secret.txt",
        "dlink/nope.txt",
        "abslink/secret.txt",
        "up/outside/secret.txt",
        "up/ws/inside.txt", // leaves through the link, even if it comes back
        "etclink/passwd",
        "etclink/hostname",
        "rootlink/etc/passwd",
        "zero/x",
      ]
    ) {
      await expectRefusal(server, ws, "read_file", { path }, "outside_workspace");
    }
    for (const path of ["dlink/..", "abslink/..", "etclink/ssh", "up/ws", "up/outside"]) {
      await expectRefusal(server, ws, "list_directory", { path }, "outside_workspace");
    }
  }
});

Deno.test("attack: a symlink to /proc/self/root (proc/etc/passwd, proc/proc/self/environ) is refused outside_workspace", async () => {
  for (const env of [{}, FOLLOW]) {
    await using ws = await linkWorkspace();
    using server = startServer(ws.root, env);
    for (
      const path of [
        "proc/etc/passwd",
        "proc/etc/hostname",
        "proc/proc/self/environ",
        "proc/proc/self/cwd/secret.txt",
        ws.root + "/proc/etc/passwd",
      ]
    ) {
      await expectRefusal(server, ws, "read_file", { path }, "outside_workspace");
    }
    for (const path of ["proc/etc", "proc/proc/self/fd", "proc/proc/1/root"]) {
      await expectRefusal(server, ws, "list_directory", { path }, "outside_workspace");
    }
    // The link itself, as the last component: not followed, or followed to outside.
    await expectRefusal(
      server,
      ws,
      "list_directory",
      { path: "proc/" },
      env === FOLLOW ? "outside_workspace" : "symlink_not_followed",
    );
  }
});

Deno.test("attack: with MCP_SANDBOX__FOLLOW_SYMLINKS=true an outside target is still refused outside_workspace", async () => {
  await using ws = await linkWorkspace();
  using server = startServer(ws.root, FOLLOW);
  for (
    const path of ["flink", "absfile", "passwdlink", "chain1", "zero", "stdin", "dlink", "proc"]
  ) {
    await expectRefusal(server, ws, "read_file", { path }, "outside_workspace");
  }
  for (const path of ["dlink", "abslink", "proc", "etclink", "rootlink", "up"]) {
    await expectRefusal(server, ws, "list_directory", { path }, "outside_workspace");
  }
});

Deno.test("attack: with MCP_SANDBOX__FOLLOW_SYMLINKS=true an inside target is read and reported by its real path", async () => {
  await using ws = await linkWorkspace();
  using server = startServer(ws.root, FOLLOW);
  const direct = okStructured(await call(server, "read_file", { path: "inlink" }));
  assert.equal(direct.content, "INSIDE\n");
  assert.equal(direct.path, "inside.txt");
  const chained = okStructured(await call(server, "read_file", { path: "chainin1" }));
  assert.equal(chained.content, "INSIDE\n");
  assert.equal(chained.path, "inside.txt");
  const listing = okStructured(await call(server, "list_directory", { path: "subl" }));
  assert.equal(listing.path, "sub");
  assert.deepEqual((listing.entries as { name: string }[]).map((e) => e.name), ["inner.txt"]);
});

Deno.test("attack: an intermediate symlinked dir pointing inside (subl/inner.txt) is fine even without follow", async () => {
  await using ws = await linkWorkspace();
  using server = startServer(ws.root);
  const read = okStructured(await call(server, "read_file", { path: "subl/inner.txt" }));
  assert.equal(read.content, "INNER\n");
  assert.equal(read.path, "sub/inner.txt");
  const abs = okStructured(await call(server, "read_file", { path: ws.root + "/subl/inner.txt" }));
  assert.equal(abs.path, "sub/inner.txt");
  const back = okStructured(await call(server, "list_directory", { path: "subl/.." }));
  assert.equal(back.path, "");
});

Deno.test("attack: dangling links are refused not_found, never a hang", async () => {
  for (const env of [{}, FOLLOW]) {
    await using ws = await linkWorkspace();
    using server = startServer(ws.root, env);
    await warmUp(server);
    for (const path of ["dangling/x", "dangling/..", "dangling_out/x"]) {
      await expectRefusal(server, ws, "read_file", { path }, "not_found", FAST_DEADLINE_MS);
      await expectRefusal(server, ws, "list_directory", { path }, "not_found", FAST_DEADLINE_MS);
    }
    if (env === FOLLOW) {
      await expectRefusal(server, ws, "read_file", { path: "dangling" }, "not_found");
      // A dangling link to outside is refused either way; it never reads anything.
      await expectRefusal(server, ws, "read_file", { path: "dangling_out" }, [
        "not_found",
        "outside_workspace",
      ]);
    }
  }
});

Deno.test("attack: self-looping and mutually looping links are refused symlink_loop, never a hang", async () => {
  for (const env of [{}, FOLLOW]) {
    await using ws = await linkWorkspace();
    using server = startServer(ws.root, env);
    await warmUp(server);
    const paths = ["self/x", "ping/x", "pong/secret.txt", "self/../inside.txt", "ping/.."];
    if (env === FOLLOW) paths.push("self", "ping", "pong");
    for (const path of paths) {
      for (const tool of ["read_file", "list_directory"] as const) {
        await expectRefusal(
          server,
          ws,
          tool,
          { path },
          ["symlink_loop", "not_found"],
          FAST_DEADLINE_MS,
        );
      }
    }
  }
});

Deno.test("attack: a FIFO in the workspace is refused special_file without blocking (and is never left open)", async () => {
  await using ws = await linkWorkspace();
  using server = startServer(ws.root);
  await warmUp(server);
  await expectRefusal(server, ws, "read_file", { path: "fifo" }, "special_file", FAST_DEADLINE_MS);
  await expectRefusal(
    server,
    ws,
    "read_file",
    { path: ws.path("fifo") },
    "special_file",
    FAST_DEADLINE_MS,
  );
  await expectRefusal(
    server,
    ws,
    "list_directory",
    { path: "fifo" },
    "not_a_directory",
    FAST_DEADLINE_MS,
  );
  await expectRefusal(
    server,
    ws,
    "read_file",
    { path: "fifo/x" },
    "not_a_directory",
    FAST_DEADLINE_MS,
  );
  // Listing the directory that holds it describes it without opening it.
  const listing = okStructured(await call(server, "list_directory", {}, FAST_DEADLINE_MS));
  const entry = (listing.entries as { name: string; type: string }[]).find((e) =>
    e.name === "fifo"
  );
  assert.deepEqual(entry, { name: "fifo", type: "other" });
  // No reader holds the FIFO open: a non-blocking open for writing fails with ENXIO.
  assert.throws(
    () => openSync(ws.path("fifo"), fsConstants.O_WRONLY | fsConstants.O_NONBLOCK),
    (error: Error & { code?: string }) => error.code === "ENXIO",
  );
});

Deno.test("attack: a symlink to a FIFO is refused without blocking (special_file when followed)", async () => {
  for (const [env, code] of [[{}, "symlink_not_followed"], [FOLLOW, "special_file"]] as const) {
    await using ws = await linkWorkspace();
    using server = startServer(ws.root, env);
    await warmUp(server);
    await expectRefusal(server, ws, "read_file", { path: "fifolink" }, code, FAST_DEADLINE_MS);
  }
});

Deno.test("attack: a symlink to /dev/zero (and /dev/stdin) is refused without reading or hanging", async () => {
  for (
    const [env, code] of [[{}, "symlink_not_followed"], [FOLLOW, "outside_workspace"]] as const
  ) {
    await using ws = await linkWorkspace();
    using server = startServer(ws.root, env);
    await warmUp(server);
    for (const path of ["zero", "stdin", ws.root + "/zero"]) {
      await expectRefusal(server, ws, "read_file", { path }, code, FAST_DEADLINE_MS);
    }
    for (const path of ["/dev/zero", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/dev/random"]) {
      await expectRefusal(server, ws, "read_file", { path }, "outside_workspace", FAST_DEADLINE_MS);
    }
  }
});

Deno.test("attack: list_directory describes links without following them and names no target", async () => {
  await using ws = await linkWorkspace();
  using server = startServer(ws.root);
  const result = await call(server, "list_directory", {});
  const listing = okStructured(result);
  const entries = listing.entries as { name: string; type: string; link_target_inside?: boolean }[];
  const byName = new Map(entries.map((e) => [e.name, e]));
  for (
    const name of ["flink", "dlink", "abslink", "proc", "etclink", "zero", "up", "dangling", "self"]
  ) {
    assert.deepEqual(byName.get(name), { name, type: "symlink", link_target_inside: false }, name);
  }
  for (const name of ["inlink", "subl", "chainin1", "fifolink"]) {
    assert.deepEqual(byName.get(name), { name, type: "symlink", link_target_inside: true }, name);
  }
  const everything = JSON.stringify(result);
  for (const needle of [ws.outside, "/etc", "/proc", "/dev", "OUTSIDE-SECRET", ws.root]) {
    assert.ok(!everything.includes(needle), `listing leaks ${needle}`);
  }
});
