import assert from "node:assert/strict";
import { type CallToolResult, ProtocolError } from "@modelcontextprotocol/server";
import { ListDirectoryOutput } from "../../src/tools/list_directory.ts";
import { makeWorkspace, startServer, textOf } from "../helpers/fixtures.ts";
import { readRefusal } from "../helpers/results.ts";
import type { RefusalCode } from "../../src/contract/refusal.ts";

type Entry = {
  name: string;
  type: "directory" | "file" | "symlink" | "other";
  size?: number;
  link_target_inside?: boolean;
  walkable?: boolean;
};
type Listing = {
  path: string;
  entries: Entry[];
  total_entries: number;
  denied_count: number;
  hidden_count: number;
  next_cursor?: string;
  untrusted_content: true;
  redaction: unknown;
};

/** The structured half of a successful listing, checked against the published output schema. */
function ok(result: CallToolResult): Listing {
  assert.equal(result.isError, undefined, textOf(result));
  const parsed = ListDirectoryOutput.safeParse(result.structuredContent);
  assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
  return result.structuredContent as Listing;
}

function refused(result: CallToolResult, code: string): string {
  return readRefusal(result, code as RefusalCode).message;
}

async function assertInvalidParams(call: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(() => call, (error: unknown) => {
    assert.ok(error instanceof ProtocolError, `expected ProtocolError, got ${error}`);
    assert.equal(error.code, -32602);
    assert.match(error.message, message);
    return true;
  });
}

const ROOT_NAMES = [
  "adir",
  "node_modules",
  "odd",
  "stale",
  "sub",
  "zdir",
  "B.txt",
  "a.txt",
  "b.txt",
  "dangling",
  "link-in",
  "link-out",
];

Deno.test("list_directory through the in-process server", async (t) => {
  await using ws = await makeWorkspace({
    "b.txt": "bb",
    "a.txt": "a",
    "B.txt": "BBB",
    "zdir/x.txt": "x",
    "adir/y.txt": "y",
    "node_modules/m.js": "",
    ".hidden": "h",
    ".hiddendir": { dir: true },
    ".env": "SECRET=1\n",
    "id_rsa": "key",
    "server.pem": "pem",
    ".git/HEAD": "ref: refs/heads/main\n",
    "link-in": { symlink: "a.txt" },
    "dangling": { symlink: "does-not-exist" },
    "sub/1.txt": "1",
    "sub/2.txt": "2",
    "sub/3.txt": "3",
    "stale/1.txt": "1",
    "stale/2.txt": "2",
    "stale/3.txt": "3",
    "odd/new\nline.txt": "",
    "odd/bidi\u202Etxt.md": "",
    "odd/esc\x1b[31m.txt": "",
    "adir/empty": { dir: true },
  });
  await Deno.symlink(ws.outside + "/secret.txt", ws.path("link-out"));
  // Both servers start together: each costs a worker start-up, run in parallel.
  using server = startServer(ws.root);
  using paged = startServer(ws.root, { MCP_SANDBOX__LIST_PAGE_SIZE: "2" });
  const list = (args: unknown) => server.dispatcher.call("list_directory", args);
  const listPaged = (args: unknown) => paged.dispatcher.call("list_directory", args);

  await t.step("lists directories first, then everything else, each sorted", async () => {
    const s = ok(await list({}));
    assert.equal(s.path, "");
    assert.deepEqual(s.entries.map((e) => e.name), ROOT_NAMES);
    assert.equal(s.total_entries, ROOT_NAMES.length);
    assert.equal(s.next_cursor, undefined);
    assert.equal(s.untrusted_content, true);
    assert.deepEqual(ok(await list({ path: "." })).entries, s.entries);
    assert.deepEqual(ok(await list({ path: "" })).entries, s.entries);
  });

  await t.step("files carry their size; directories say whether a search walks them", async () => {
    const s = ok(await list({}));
    const byName = new Map(s.entries.map((e) => [e.name, e]));
    assert.deepEqual(byName.get("a.txt"), { name: "a.txt", type: "file", size: 1 });
    assert.deepEqual(byName.get("b.txt"), { name: "b.txt", type: "file", size: 2 });
    assert.deepEqual(byName.get("B.txt"), { name: "B.txt", type: "file", size: 3 });
    assert.deepEqual(byName.get("adir"), { name: "adir", type: "directory", walkable: true });
    assert.deepEqual(byName.get("node_modules"), {
      name: "node_modules",
      type: "directory",
      walkable: false,
    });
    assert.match(textOf(await list({})), /\na\.txt {2}1 bytes\n/);
  });

  await t.step("symlinks are typed symlink, never followed, with link_target_inside", async () => {
    const byName = new Map(ok(await list({})).entries.map((e) => [e.name, e]));
    assert.deepEqual(byName.get("link-in"), {
      name: "link-in",
      type: "symlink",
      link_target_inside: true,
    });
    assert.deepEqual(byName.get("link-out"), {
      name: "link-out",
      type: "symlink",
      link_target_inside: false,
    });
    assert.deepEqual(byName.get("dangling"), {
      name: "dangling",
      type: "symlink",
      link_target_inside: false,
    });
    const text = textOf(await list({}));
    assert.match(text, /link-in@ {2}-> inside the workspace/);
    assert.match(text, /link-out@ {2}-> outside or broken/);
  });

  await t.step("hidden names are left out and counted unless include_hidden", async () => {
    const hidden = ok(await list({}));
    assert.equal(hidden.hidden_count, 2);
    assert.ok(!hidden.entries.some((e) => e.name.startsWith(".")));
    assert.match(textOf(await list({})), /2 hidden \(include_hidden to show\)/);
    const shown = ok(await list({ include_hidden: true }));
    assert.equal(shown.hidden_count, 0);
    assert.deepEqual(shown.entries.map((e) => e.name), [
      ".hiddendir",
      ...ROOT_NAMES.slice(0, 6),
      ".hidden",
      ...ROOT_NAMES.slice(6),
    ]);
  });

  await t.step("denied entries are counted, never named, even with include_hidden", async () => {
    for (const args of [{}, { include_hidden: true }]) {
      const result = await list(args);
      const s = ok(result);
      assert.equal(s.denied_count, 4);
      const everything = textOf(result) + JSON.stringify(s);
      for (const name of [".env", "id_rsa", "server.pem", ".git"]) {
        assert.ok(!everything.includes(`"${name}"`) && !everything.includes(`\n${name}`), name);
      }
      assert.ok(!everything.includes("SECRET=1"));
    }
    assert.match(textOf(await list({})), /4 denied \(not shown\)/);
  });

  await t.step("listing a denied directory is refused denied_path", async () => {
    refused(await list({ path: ".git" }), "denied_path");
  });

  await t.step("names are escaped in the text and exact in structured content", async () => {
    const result = await list({ path: "odd" });
    const names = ok(result).entries.map((e) => e.name).sort();
    assert.deepEqual(names, ["bidi\u202Etxt.md", "esc\x1b[31m.txt", "new\nline.txt"].sort());
    const text = textOf(result);
    assert.match(text, /new\\nline\.txt {2}0 bytes/);
    assert.match(text, /bidi\\u202etxt\.md/);
    assert.match(text, /esc\\x1b\[31m\.txt/);
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(text, /[\x1b\u202e]/);
  });

  await t.step("an empty directory lists no entries", async () => {
    const s = ok(await list({ path: "adir/empty" }));
    assert.deepEqual(s.entries, []);
    assert.equal(s.total_entries, 0);
    assert.equal(s.path, "adir/empty");
  });

  await t.step("pagination visits every entry exactly once, in order", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const result = await listPaged(cursor ? { cursor } : {});
      const s = ok(result);
      pages++;
      assert.ok(s.entries.length <= 2 && s.entries.length > 0);
      assert.equal(s.total_entries, ROOT_NAMES.length);
      assert.equal(s.denied_count, 4);
      assert.match(
        textOf(result),
        new RegExp(`showing ${seen.length + 1}-${seen.length + s.entries.length}`),
      );
      seen.push(...s.entries.map((e) => e.name));
      cursor = s.next_cursor;
      if (cursor) assert.match(textOf(result), /more with next_cursor/);
    } while (cursor !== undefined);
    assert.equal(pages, Math.ceil(ROOT_NAMES.length / 2));
    assert.deepEqual(seen, ROOT_NAMES);
  });

  await t.step("a forged cursor is a -32602 protocol error", async () => {
    await assertInvalidParams(listPaged({ cursor: "abc.def" }), /^Invalid cursor/);
    await assertInvalidParams(listPaged({ cursor: "not a cursor" }), /^Invalid cursor/);
    const first = ok(await listPaged({}));
    const [body, mac] = first.next_cursor!.split(".");
    const forged = btoa(
      atob(body.replaceAll("-", "+").replaceAll("_", "/")).replace(/"o":2/, '"o":0'),
    )
      .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    assert.notEqual(forged, body);
    await assertInvalidParams(listPaged({ cursor: `${forged}.${mac}` }), /signature/);
  });

  await t.step(
    "a cursor from another server (another key) is a -32602 protocol error",
    async () => {
      const cursor = ok(await listPaged({})).next_cursor!;
      await assertInvalidParams(list({ cursor }), /^Invalid cursor/);
    },
  );

  await t.step(
    "a cursor for another path or include_hidden is a -32602 protocol error",
    async () => {
      const subCursor = ok(await listPaged({ path: "sub" })).next_cursor!;
      assert.ok(subCursor);
      await assertInvalidParams(listPaged({ cursor: subCursor }), /different path/);
      await assertInvalidParams(
        listPaged({ path: "sub", cursor: subCursor, include_hidden: true }),
        /include_hidden/,
      );
      // The same cursor with its own path works.
      assert.deepEqual(
        ok(await listPaged({ path: "sub", cursor: subCursor })).entries.map((e) => e.name),
        ["3.txt"],
      );
    },
  );

  await t.step("a cursor goes stale when the directory changes between pages", async () => {
    const cursor = ok(await listPaged({ path: "stale" })).next_cursor!;
    assert.ok(cursor);
    await Deno.writeTextFile(ws.path("stale", "0-new.txt"), "new");
    await assertInvalidParams(
      listPaged({ path: "stale", cursor }),
      /the directory changed since it was issued/,
    );
    // Listing again from the start works and includes the new file.
    const fresh = ok(await listPaged({ path: "stale" }));
    assert.equal(fresh.total_entries, 4);
    assert.equal(fresh.entries[0].name, "0-new.txt");
  });

  await t.step("a file path is refused not_a_directory", async () => {
    refused(await list({ path: "a.txt" }), "not_a_directory");
  });

  await t.step("a missing path is refused not_found", async () => {
    refused(await list({ path: "nowhere" }), "not_found");
  });

  await t.step("a symlink named as the path is not followed", async () => {
    refused(await list({ path: "link-in" }), "symlink_not_followed");
  });

  await t.step("schema violations are refused invalid_arguments naming the field", async () => {
    assert.match(refused(await list({ cursor: 5 }), "invalid_arguments"), /cursor: /);
    assert.match(
      refused(await list({ include_hidden: "yes" }), "invalid_arguments"),
      /include_hidden: /,
    );
    assert.match(refused(await list({ recursive: true }), "invalid_arguments"), /"recursive"/);
    assert.match(
      refused(await list({ cursor: "x".repeat(2049) }), "invalid_arguments"),
      /cursor: /,
    );
  });
});
