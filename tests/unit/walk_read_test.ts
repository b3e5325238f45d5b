/**
 * The walker's two ways of reading (ADR-054): in a directory whose chain had
 * not changed lately, files are opened and read without `fstat`; when the
 * directory changes while they are read, the walker says so
 * (`directory_done` with `again`) and reads its files again the careful way.
 * The trees here are left alone for longer than the quiet window first, so
 * the fast way is the one taken.
 *
 * @module
 */

import assert from "node:assert/strict";
import { QUIET_MS } from "../../src/access/workspace.ts";
import {
  BATCH_DIRECTORIES,
  BATCH_FILES,
  READ_FAILURES,
  Walker,
  type WalkEvent,
} from "../../src/access/walk.ts";
import { directContext, makeWorkspace, saveLikeAnEditor } from "../helpers/fixtures.ts";

/** Long enough for every directory of a fresh tree to count as quiet (ctime has 1 s slack). */
const SETTLE_MS = QUIET_MS + 1_200;

interface Seen {
  events: (WalkEvent & { text?: string })[];
  walker: Walker;
}

/** Walks `root`, reading every file; `onFirst` runs once, after the first file is read. */
function walkReading(root: string, onFirst: () => void): Seen {
  let first = true;
  return walkReadingEach(root, () => {
    if (!first) return;
    first = false;
    onFirst();
  });
}

/** Walks `root`, reading every file; `after(path)` runs after each file is read. */
function walkReadingEach(root: string, after: (path: string) => void): Seen {
  const ctx = directContext(root, {});
  const walker = new Walker(
    ctx.workspace.walkPolicy,
    ctx.workspace.policy.root,
    ctx.workspace.resolve(""),
  );
  const events: Seen["events"] = [];
  for (const event of walker.walk()) {
    if (event.kind === "directory_done") {
      events.push(event);
      continue;
    }
    const read = walker.read(event);
    events.push({ ...event, text: read.ok ? new TextDecoder().decode(read.bytes) : undefined });
    after(event.path);
  }
  return { events, walker };
}

function summary(events: Seen["events"]): string[] {
  return events.map((e) =>
    e.kind === "file"
      ? `${e.path}=${e.text ?? "-"}`
      : `done ${e.path || "."} confirmed=${e.confirmed} again=${e.again}`
  );
}

/** No batch that `directory_done` confirmed read a file whose text holds `secret`. */
function assertNoConfirmedPassShows(events: Seen["events"], secret: string): void {
  let pass: string[] = [];
  for (const event of events) {
    if (event.kind === "file") {
      pass.push(event.text ?? "");
      continue;
    }
    if (event.confirmed) {
      assert.ok(!pass.some((t) => t.includes(secret)), JSON.stringify(summary(events)));
    }
    pass = [];
  }
}

Deno.test("walker: a quiet tree is read in one pass, its directories confirmed together (ADR-139)", async () => {
  await using ws = await makeWorkspace({ "a.txt": "A\n", "d/b.txt": "B\n" });
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const { events, walker } = walkReading(ws.root, () => {});
  assert.deepEqual(summary(events), [
    "a.txt=A\n",
    "d/b.txt=B\n",
    "done d confirmed=true again=false",
  ]);
  assert.equal(walker.stats.files, 2);
  assert.equal(walker.stats.changed, 0);
});

Deno.test("walker: a directory changed while read the fast way is read again, carefully, and counted once", async () => {
  await using ws = await makeWorkspace({ "a.txt": "A\n", "b.txt": "old\n", "c.txt": "C\n" });
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const { events, walker } = walkReading(ws.root, () => {
    // An editor's save: a new file renamed over the old one (the directory's ctime moves).
    saveLikeAnEditor(ws.path("b.txt"), "new\n");
  });
  assert.deepEqual(summary(events), [
    "a.txt=A\n",
    "b.txt=new\n",
    "c.txt=C\n",
    "done . confirmed=false again=true",
    "a.txt=A\n",
    "b.txt=new\n",
    "c.txt=C\n",
    "done . confirmed=true again=false",
  ]);
  assert.equal(walker.stats.files, 3, "the files read twice count once");
  assert.equal(walker.stats.changed, 0);
});

Deno.test("attack: a file swapped for a symlink to an outside secret during a fast read is never confirmed", async () => {
  await using ws = await makeWorkspace({ "a.txt": "A\n", "b.txt": "B\n" });
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const { events } = walkReading(ws.root, () => {
    Deno.removeSync(`${ws.root}/b.txt`);
    Deno.symlinkSync(`${ws.outside}/secret.txt`, `${ws.root}/b.txt`);
  });
  // Under a read grant Deno 2.9.6 opens through a final link even with O_NOFOLLOW, so the
  // fast pass may see the secret; what matters is that no confirmed pass does.
  assertNoConfirmedPassShows(events, "OUTSIDE-SECRET");
  // The careful pass no longer lists b.txt as a file: the listing says it is a link.
  assert.deepEqual(summary(events).slice(-2), ["a.txt=A\n", "done . confirmed=true again=false"]);
});

Deno.test("attack: a file swapped for a FIFO during a fast read neither hangs the walk nor is searched as a file", async () => {
  await using ws = await makeWorkspace({ "a.txt": "A\n", "b.txt": "B\n" });
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const { events, walker } = walkReading(ws.root, () => {
    Deno.removeSync(`${ws.root}/b.txt`);
    const made = new Deno.Command("mkfifo", { args: [`${ws.root}/b.txt`] }).outputSync();
    assert.ok(made.success, "mkfifo");
  });
  assert.deepEqual(summary(events).slice(-2), ["a.txt=A\n", "done . confirmed=true again=false"]);
  assert.ok(walker.stats.special >= 1, JSON.stringify(walker.stats));
});

Deno.test("attack: a file swapped for a directory during a fast read is not counted as an error on top of its re-read", async () => {
  await using ws = await makeWorkspace({ "a.txt": "A\n", "b.txt": "B\n" });
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const { events, walker } = walkReading(ws.root, () => {
    Deno.removeSync(`${ws.root}/b.txt`);
    Deno.mkdirSync(`${ws.root}/b.txt`);
  });
  // The failed read is reported by its outcome; the directory is read again and the new
  // directory walked. Counting it in stats.errors as well made search_code's skipped.unreadable
  // count a file that no longer exists (and count it twice with the outcome).
  assert.ok(summary(events).includes("a.txt=A\n"), JSON.stringify(summary(events)));
  assert.equal(walker.stats.errors, 0, JSON.stringify(walker.stats));
});

/** Walks `root` with `maxFileBytes`, reading every file: path → bytes, or the reason it was not read. */
function readAll(root: string, maxFileBytes: number): Map<string, Uint8Array | string> {
  const ctx = directContext(root, {});
  const walker = new Walker(
    ctx.workspace.walkPolicy,
    ctx.workspace.policy.root,
    ctx.workspace.resolve(""),
    { maxFileBytes },
  );
  const out = new Map<string, Uint8Array | string>();
  for (const event of walker.walk()) {
    if (event.kind !== "file") continue;
    const read = walker.read(event);
    // A copy: the bytes are a view of the walker's reused buffer.
    out.set(event.path, read.ok ? new Uint8Array(read.bytes) : read.reason);
  }
  return out;
}

Deno.test("walker: a read stops at the first short read, and sizes at the buffer's and the cap's edges are whole or too_large", async () => {
  // The reused buffer starts at 64 KiB and doubles; one read that comes back short is the end
  // of a regular file (ADR-068). Off-by-ones at these edges would cut a file or pass the cap.
  const cap = 200_000;
  const sizes = [0, 1, 65_535, 65_536, 65_537, 131_072, 131_073, cap - 1, cap, cap + 1];
  const entries: Record<string, Uint8Array> = {};
  for (const size of sizes) {
    entries[`s${size}.bin`] = Uint8Array.from(
      { length: size },
      (_, i) => 0x61 + (i * 7 + size) % 26,
    );
  }
  await using ws = await makeWorkspace(entries);
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const got = readAll(ws.root, cap);
  for (const size of sizes) {
    const read = got.get(`s${size}.bin`);
    if (size > cap) assert.equal(read, "too_large", `${size} bytes`);
    else assert.deepEqual(read, entries[`s${size}.bin`], `${size} bytes read whole`);
  }
});

Deno.test("walker: readLength leaves each file's bytes at the start of the buffer it names, the given one until a file needs more (ADR-120)", async () => {
  // search_code asks its prefilter in place only when the walker's buffer is still the
  // prefilter's memory: a walker that kept naming the given buffer after replacing it, or a
  // length off by one, would have the prefilter judge stale or cut bytes.
  const cap = 100_000;
  const given = new Uint8Array(4_096);
  const sizes = [0, 1, 4_095, 4_096, 4_097, 9_000, cap, cap + 1];
  const entries: Record<string, Uint8Array> = {};
  for (const size of sizes) {
    entries[`s${String(size).padStart(6, "0")}.bin`] = Uint8Array.from(
      { length: size },
      (_, i) => 0x41 + (i * 11 + size) % 26,
    );
  }
  await using ws = await makeWorkspace(entries);
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const ctx = directContext(ws.root, {});
  const walker = new Walker(
    ctx.workspace.walkPolicy,
    ctx.workspace.policy.root,
    ctx.workspace.resolve(""),
    { maxFileBytes: cap, buffer: given },
  );
  const seen: string[] = [];
  let replaced = false;
  for (const event of walker.walk()) {
    if (event.kind !== "file") continue;
    const size = entries[event.path].length;
    const n = walker.readLength(event);
    seen.push(event.path);
    if (size > cap) {
      assert.ok(n < 0, `${size} bytes: not read`);
      assert.equal(READ_FAILURES[~n], "too_large");
      continue;
    }
    assert.equal(n, size, `${size} bytes: the length read`);
    // Files come in name order, smallest first: the given buffer serves until one needs more.
    if (size + 1 > given.length) replaced = true;
    assert.equal(walker.buffer === given, !replaced, `${size} bytes: which buffer holds them`);
    assert.deepEqual(walker.buffer.subarray(0, n), entries[event.path], `${size} bytes whole`);
    assert.deepEqual(new Uint8Array(walker.bytes(n)), entries[event.path], `${size} bytes viewed`);
  }
  assert.equal(seen.length, sizes.length);
});

Deno.test("attack: a file that grows while the walker reads it gives a prefix of it, never more than the cap", async () => {
  // A short read ends a read without a second one: a writer appending meanwhile must never get
  // bytes past the cap through, nor anything but what the file held at some moment.
  const cap = 100_000;
  await using ws = await makeWorkspace({ "grow.txt": "start\n" });
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const writer = new Deno.Command("sh", {
    args: ["-c", 'i=0; while [ $i -lt 40000 ]; do printf "line %07d\\n" $i; i=$((i+1)); done'],
    stdout: "piped",
  }).spawn();
  const file = await Deno.open(ws.path("grow.txt"), { append: true });
  const pump = writer.stdout.pipeTo(file.writable);
  const reads: (Uint8Array | string)[] = [];
  const deadline = Date.now() + 3_000;
  while (Date.now() < deadline) {
    reads.push(readAll(ws.root, cap).get("grow.txt")!);
    await new Promise((r) => setTimeout(r, 5));
  }
  await pump;
  await writer.status;
  const final = await Deno.readFile(ws.path("grow.txt"));
  assert.ok(reads.length > 0);
  for (const read of reads) {
    if (typeof read === "string") {
      assert.equal(read, "too_large");
      continue;
    }
    assert.ok(read.length <= cap, `${read.length} bytes`);
    assert.deepEqual(read, final.slice(0, read.length), "a prefix of the file");
  }
});

Deno.test("walker: batches end at BATCH_DIRECTORIES directories or BATCH_FILES files, and each chain directory is looked at once a batch (ADR-139)", async () => {
  // 20 directories with a file each, three levels down, then one with more files than a batch.
  const entries: Record<string, string> = {};
  for (let i = 0; i < 20; i++) entries[`r/s/t/d${String(i).padStart(2, "0")}/f.txt`] = `${i}\n`;
  for (let i = 0; i < BATCH_FILES + 3; i++) {
    entries[`r/s/w/f${String(i).padStart(4, "0")}.txt`] = "x";
  }
  await using ws = await makeWorkspace(entries);
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const lstat = Deno.lstatSync;
  let lstats = 0;
  Deno.lstatSync = (path: string | URL) => {
    lstats++;
    return lstat(path);
  };
  let seen: Seen;
  try {
    seen = walkReadingEach(ws.root, () => {});
  } finally {
    Deno.lstatSync = lstat;
  }
  const done = seen.events.filter((e) => e.kind === "directory_done");
  // d00–d07, d08–d15, then d16–d19 and w together (w's files fill that batch past the count).
  assert.deepEqual(
    done.map((e) => `${e.path} ${e.confirmed}`),
    [
      `r/s/t/d0${BATCH_DIRECTORIES - 1} true`,
      `r/s/t/d${2 * BATCH_DIRECTORIES - 1} true`,
      "r/s/w true",
    ],
  );
  assert.equal(seen.walker.stats.files, 20 + BATCH_FILES + 3);
  // One lstat as each of the 26 directories is entered, then per batch its directories and
  // their chain up to the root once (8 + 4, 8 + 4, 5 + 4): 59. A check per directory of its
  // whole chain (5 for each d, 4 for w) would be 26 + 105 = 131.
  assert.equal(lstats, 26 + 12 + 12 + 9, `${lstats} lstats`);
});

Deno.test("walker: a change in a batch's first directory while a later one is read brings the whole batch again, carefully, counted once", async () => {
  await using ws = await makeWorkspace({ "a/x.txt": "X\n", "b/y.txt": "Y\n", "c/z.txt": "Z\n" });
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  let saved = false;
  const { events, walker } = walkReadingEach(ws.root, (path) => {
    if (path !== "b/y.txt" || saved) return;
    saved = true;
    // An editor's save in a/, whose files were read before: a's ctime moves, so the batch's
    // one check cannot vouch for what was read there.
    saveLikeAnEditor(ws.path("a/x.txt"), "X2\n");
  });
  assert.deepEqual(summary(events), [
    "a/x.txt=X\n",
    "b/y.txt=Y\n",
    "c/z.txt=Z\n",
    "done c confirmed=false again=true",
    // Read again the careful way, each directory checked alone.
    "a/x.txt=X2\n",
    "done a confirmed=true again=false",
    "b/y.txt=Y\n",
    "done b confirmed=true again=false",
    "c/z.txt=Z\n",
    "done c confirmed=true again=false",
  ]);
  assert.equal(walker.stats.files, 3, "the files read twice count once");
  assert.equal(walker.stats.directories, 4, "the directories entered twice count once");
  assert.equal(walker.stats.changed, 0);
});

Deno.test("attack: a shared parent swapped for a symlink to an outside tree while the second batch reads, and swapped back before its check, is never confirmed", async () => {
  // p/d00–d07 fill the first batch, whose check looks at p; p/d08 is the second batch. After
  // d08's first file is read, p becomes a link to an outside copy holding d08/b2.txt with a
  // secret, so the second read goes outside; swapped back before the check, every path
  // resolves as recorded again, and only p's ctime shows the swap. A check that took p as
  // seen by the first batch's (the shared parents marked once for the whole walk) misses it.
  const entries: Record<string, string> = { "p/d08/b1.txt": "B1\n", "p/d08/b2.txt": "B2\n" };
  for (let i = 0; i < BATCH_DIRECTORIES; i++) entries[`p/d0${i}/a.txt`] = "A\n";
  await using ws = await makeWorkspace(entries);
  Deno.mkdirSync(`${ws.outside}/p/d08`, { recursive: true });
  Deno.writeTextFileSync(`${ws.outside}/p/d08/b2.txt`, "OUTSIDE-SECRET\n");
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  let swapped = false, back = false;
  const { events } = walkReadingEach(ws.root, (path) => {
    if (path === "p/d08/b1.txt" && !swapped) {
      swapped = true;
      Deno.renameSync(ws.path("p"), ws.path("p.orig"));
      Deno.symlinkSync(`${ws.outside}/p`, ws.path("p"));
    } else if (path === "p/d08/b2.txt" && swapped && !back) {
      back = true;
      Deno.removeSync(ws.path("p"));
      Deno.renameSync(ws.path("p.orig"), ws.path("p"));
    }
  });
  assert.ok(back, `the swap happened: ${JSON.stringify(summary(events))}`);
  assert.ok(
    events.some((e) => e.kind === "file" && e.text?.includes("OUTSIDE-SECRET")),
    "the fast pass did read the outside copy (else this test proves nothing)",
  );
  assertNoConfirmedPassShows(events, "OUTSIDE-SECRET");
  assert.deepEqual(summary(events).slice(-3), [
    "p/d08/b1.txt=B1\n",
    "p/d08/b2.txt=B2\n",
    "done p/d08 confirmed=true again=false",
  ]);
});
