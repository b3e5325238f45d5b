/**
 * Red team of ADR-094 (a search thread passes over the files of a directory
 * the other side owns before their policy), through the real server and its
 * pool, on a tree where every shallow directory's first file in walk order is
 * a denied one (`.env` sorts before ordinary names). Attacks: a denied file's
 * name reaching the client in a pagination cursor (a cursor's payload is
 * signed, not encrypted: base64 JSON any client can read), a denied file
 * searched, a file searched twice or missed across the two threads, and
 * results that differ from ripgrep's reading of the tree's ignore files
 * (`.gitignore`, `.ignore` with a negation), also while another process
 * renames, makes and removes folders during the walks.
 */

import assert from "node:assert/strict";
import { callDirect, directContext, makeWorkspace, startServer } from "../helpers/fixtures.ts";
import { ASSIST_AFTER_FILES } from "../../src/tools/search_code.ts";
import { HANG_DEADLINE_MS, within } from "./helpers.ts";

const ENV = {
  MCP_SERVER__MAX_RESULT_CHARS: "1000000",
  MCP_SEARCH__MAX_RESULTS: "10000",
  MCP_SANDBOX__TOOL_TIMEOUT_MS: "120000",
};

const DENIED_MARK = "DENIEDNEEDLE";

/** Shallow directories each led by a denied `.env` (holding the needle), over 2 * ASSIST_AFTER_FILES files. */
function makeTree(root: string): void {
  let n = 0;
  const write = (path: string) => {
    const k = n++;
    Deno.writeTextFileSync(
      `${root}/${path}`,
      Array.from(
        { length: 12 },
        (_, l) => (k * 7 + l) % 5 === 0 ? `call needle(${k}, ${l});` : `plain ${l}`,
      ).join("\n") + "\n",
    );
  };
  const env = (dir: string) =>
    Deno.writeTextFileSync(`${root}/${dir}.env`, `needle ${DENIED_MARK}\n`);
  assert.ok(new Deno.Command("git", { args: ["init", "-q"], cwd: root }).outputSync().success);
  // Ignore rules at several levels, a negation among them, so the two threads' results are
  // checked against ripgrep's reading of them too.
  Deno.writeTextFileSync(`${root}/.gitignore`, "*.skip\nignored/\n");
  env("");
  for (let f = 0; f < 4; f++) write(`top${f}.c`);
  for (let a = 0; a < 6; a++) {
    Deno.mkdirSync(`${root}/d${a}`);
    env(`d${a}/`);
    for (let f = 0; f < 6; f++) write(`d${a}/s${f}.c`);
    write(`d${a}/x.skip`);
    write(`d${a}/keep.skip`);
    Deno.writeTextFileSync(`${root}/d${a}/.ignore`, a % 2 === 0 ? "!keep.skip\ns1.c\n" : "e1/\n");
    Deno.mkdirSync(`${root}/d${a}/ignored`);
    write(`d${a}/ignored/h.c`);
    for (let b = 0; b < 10; b++) {
      Deno.mkdirSync(`${root}/d${a}/e${b}`);
      env(`d${a}/e${b}/`);
      for (let f = 0; f < 5; f++) write(`d${a}/e${b}/m${f}.h`);
      for (let c = 0; c < 5; c++) {
        Deno.mkdirSync(`${root}/d${a}/e${b}/g${c}`);
        env(`d${a}/e${b}/g${c}/`);
        for (let f = 0; f < 12; f++) write(`d${a}/e${b}/g${c}/f${f}.c`);
      }
    }
  }
  assert.ok(n > 2 * ASSIST_AFTER_FILES, `${n} files`);
}

/** ripgrep's hits, `path:line:column`, sorted, of the tree as it is now. */
async function ripgrep(root: string): Promise<string[]> {
  const rg = await new Deno.Command("rg", {
    args: ["-n", "--column", "--no-config", "-F", "needle"],
    cwd: root,
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(rg.stdout).split("\n").filter((l) => l)
    .map((l) => l.split(":", 3).join(":")).sort();
}

type Structured = {
  files: { path: string; count?: number; matches?: { line: number; column: number }[] }[];
  next_cursor?: string;
};

/** A cursor's payload as any client can read it: the part before the dot, base64url JSON. */
function payloadOf(cursor: string): string {
  const body = cursor.split(".")[0].replaceAll("-", "+").replaceAll("_", "/");
  return new TextDecoder().decode(Uint8Array.from(atob(body), (c) => c.charCodeAt(0)));
}

async function pages(
  call: (args: Record<string, unknown>) => Promise<unknown>,
  args: Record<string, unknown>,
): Promise<{ hits: string[]; cursors: string[]; texts: string[] }> {
  const hits: string[] = [];
  const cursors: string[] = [];
  const texts: string[] = [];
  let cursor: string | undefined;
  do {
    const result = await call({ ...args, ...(cursor ? { cursor } : {}) }) as {
      isError?: boolean;
      structuredContent?: Structured;
    };
    assert.ok(!result.isError && result.structuredContent, JSON.stringify(result).slice(0, 400));
    texts.push(JSON.stringify(result));
    for (const f of result.structuredContent.files) {
      if (f.matches) { for (const m of f.matches) hits.push(`${f.path}:${m.line}:${m.column}`); }
      else hits.push(f.count !== undefined ? `${f.path}:${f.count}` : f.path);
    }
    cursor = result.structuredContent.next_cursor;
    if (cursor) cursors.push(payloadOf(cursor));
    assert.ok(cursors.length < 5000, "the cursor never ended");
  } while (cursor);
  return { hits, cursors, texts };
}

Deno.test("search_code on two threads, attack: a denied file leading every shallow directory is never named in a cursor, never searched, and no file is searched twice or missed", async () => {
  await using ws = await makeWorkspace();
  makeTree(ws.root);
  using server = startServer(ws.root, ENV);
  await within(server.sandbox.ready, HANG_DEADLINE_MS, "the pool warming up");
  const ctx = directContext(ws.root, ENV);
  const alone = await pages((a) => callDirect(ctx, "search_code", a), {
    pattern: "needle",
    max_results: 10_000,
  });
  assert.ok(alone.hits.length > 30, `${alone.hits.length} hits`);
  assert.deepEqual([...alone.hits].sort(), await ripgrep(ws.root), "not what ripgrep finds");
  const lentBefore = server.sandbox.lentWorkers;
  for (const max_results of [1_500, 2_500, 3_500, 5_000]) {
    const two = await pages((a) => server.dispatcher.call("search_code", a), {
      pattern: "needle",
      max_results,
    });
    for (const payload of two.cursors) {
      assert.ok(!payload.includes(".env"), `a denied name in a cursor: ${payload}`);
    }
    for (const text of two.texts) assert.ok(!text.includes(DENIED_MARK), "a denied file searched");
    assert.deepEqual(two.hits, alone.hits, `max_results ${max_results}: missed or repeated`);
  }
  // The other modes count files, not matches, toward a page: their fronts and ends too.
  for (const output_mode of ["files_with_matches", "count"]) {
    const one = await pages((a) => callDirect(ctx, "search_code", a), {
      pattern: "needle",
      output_mode,
      max_results: 10_000,
    });
    for (const max_results of [700, 1_300]) {
      const two = await pages((a) => server.dispatcher.call("search_code", a), {
        pattern: "needle",
        output_mode,
        max_results,
      });
      for (const payload of two.cursors) assert.ok(!payload.includes(".env"), payload);
      for (const text of two.texts) assert.ok(!text.includes(DENIED_MARK), output_mode);
      assert.deepEqual(two.hits, one.hits, `${output_mode} ${max_results}: missed or repeated`);
    }
  }
  assert.ok(server.sandbox.lentWorkers > lentBefore, "the search never ran on two threads");
});

Deno.test("search_code on two threads, attack: directories renamed, made and removed during the walk never make a file searched twice, a denied file searched, or a file of the untouched part missed", async () => {
  await using ws = await makeWorkspace();
  makeTree(ws.root);
  // A churning part the attacker changes all through the searches: folders of matching files
  // (each led by a denied .env) renamed back and forth, made and removed, at every depth the
  // two threads split differently (listed by both, claimed per folder, claimed whole).
  const churn = ["d0/zz", "d2/e3/zz", "d4/e5/g2/zz"];
  for (const dir of churn) {
    Deno.mkdirSync(`${ws.root}/${dir}`, { recursive: true });
    Deno.writeTextFileSync(`${ws.root}/${dir}/.env`, `needle ${DENIED_MARK}\n`);
    for (let f = 0; f < 20; f++) Deno.writeTextFileSync(`${ws.root}/${dir}/c${f}.c`, "needle\n");
    // An ignore file that moves with its folder (no assertion on the moving part's hits: an
    // ignore file renamed away between a listing and its read leaves that listing without
    // its rules, as it does ripgrep; ignore rules are not a security boundary, the denylist is).
    Deno.writeTextFileSync(`${ws.root}/${dir}/.ignore`, "c1*.c\n");
  }
  using server = startServer(ws.root, ENV);
  await within(server.sandbox.ready, HANG_DEADLINE_MS, "the pool warming up");
  const ctx = directContext(ws.root, ENV);
  const stable = (hit: string) => !hit.includes("/zz") && !hit.includes("/yy");
  const before = (await pages((a) => callDirect(ctx, "search_code", a), {
    pattern: "needle",
    max_results: 10_000,
  })).hits.filter(stable);
  assert.deepEqual(
    [...before].sort(),
    (await ripgrep(ws.root)).filter(stable),
    "not what ripgrep finds",
  );
  // The attacker: another process, so it runs while the workers walk.
  const script = `
    const dirs = ${JSON.stringify(churn.map((d) => `${ws.root}/${d}`))};
    for (let n = 0; ; n++) {
      for (const d of dirs) {
        const other = d.replace(/zz$/, "yy");
        try {
          if (n % 2 === 0) Deno.renameSync(d, other); else Deno.renameSync(other, d);
          const extra = (n % 2 === 0 ? other : d) + "/new" + (n % 7) + ".c";
          if (n % 3 === 0) Deno.writeTextFileSync(extra, "needle\\n"); else Deno.removeSync(extra);
        } catch { /* raced with itself: the next turn */ }
      }
    }`;
  const attacker = new Deno.Command(Deno.execPath(), {
    args: ["eval", script],
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    const lentBefore = server.sandbox.lentWorkers;
    for (const max_results of [2_500, 10_000]) {
      const two = await pages((a) => server.dispatcher.call("search_code", a), {
        pattern: "needle",
        max_results,
      });
      for (const payload of two.cursors) assert.ok(!payload.includes(".env"), payload);
      for (const text of two.texts) {
        assert.ok(!text.includes(DENIED_MARK), "a denied file searched");
      }
      // Within one page a file is searched once: its hits never repeat there.
      assert.equal(new Set(two.hits).size, two.hits.length, "a hit repeated");
      assert.deepEqual(two.hits.filter(stable), before, "the untouched part: missed or repeated");
    }
    assert.ok(server.sandbox.lentWorkers > lentBefore, "the search never ran on two threads");
  } finally {
    attacker.kill();
    await attacker.status;
  }
});
