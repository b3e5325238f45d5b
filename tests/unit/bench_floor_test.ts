import assert from "node:assert/strict";
import { firstPage, floorScan, HandlerScanner } from "../../scripts/lib/floor_scan.ts";

async function fixture(): Promise<
  { root: string; files: string[] } & AsyncDisposable
> {
  const root = await Deno.makeTempDir({ prefix: "floor-root-" });
  const outside = await Deno.makeTempDir({ prefix: "floor-outside-" });
  await Deno.writeTextFile(
    `${root}/a.c`,
    "x Linus Torvalds y Linus Torvalds\nnone\nLinus Torvalds\n",
  );
  await Deno.writeTextFile(`${root}/b.c`, "linus torvalds (lower case is another needle)\n");
  await Deno.writeTextFile(`${root}/c.c`, "Linus Torvalds"); // no final newline
  await Deno.writeTextFile(`${outside}/d.c`, "Linus Torvalds\n");
  const files = [`${root}/a.c`, `${root}/b.c`, `${root}/c.c`, `${root}/gone.c`, `${outside}/d.c`];
  return {
    root,
    files,
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    },
  };
}

Deno.test("bench:floor's scan counts matching lines as ripgrep does: a line with two hits is one, a last line without a newline counts", async () => {
  await using tree = await fixture();
  const { root, files } = tree;
  const run = await floorScan(files.slice(0, 3), {
    root,
    grant: "tool worker",
    mode: "scan",
    needle: "Linus Torvalds",
    threads: 2,
  });
  assert.equal(run.report.files, 3);
  assert.equal(run.report.lines, 3);
  assert.ok(run.report.bytes > 0 && run.cpuMs >= 0 && run.ms >= 0);
});

Deno.test("bench:floor's scoped scan really holds the tool worker's grant: a file outside the root is not read (the floor is measured under containment)", async () => {
  await using tree = await fixture();
  const { root, files } = tree;
  const scoped = await floorScan(files, {
    root,
    grant: "tool worker",
    mode: "scan",
    needle: "Linus Torvalds",
    threads: 1,
  });
  // a.c, b.c, c.c; gone.c does not exist; d.c is outside the grant.
  assert.equal(scoped.report.files, 3);
  assert.equal(scoped.report.lines, 3);
  const every = await floorScan(files, {
    root,
    grant: "every permission",
    mode: "io",
    needle: "Linus Torvalds",
    threads: 1,
  });
  assert.equal(every.report.files, 4);
  assert.equal(every.report.lines, 0, "io mode reads without searching");
});

Deno.test("bench:floor's handler rows run search_code itself, under the grant they name: the same lines under both, and only every permission reads outside the root (ADR-140)", async () => {
  await using tree = await fixture();
  for (const grant of ["tool worker", "every permission"] as const) {
    const scanner = new HandlerScanner(tree.root, grant);
    try {
      const run = await scanner.scan("Linus Torvalds");
      assert.equal(run.report.error, undefined, grant);
      // a.c's two lines and c.c's one, as ripgrep counts them; b.c is lower case (smart case).
      assert.equal(run.report.lines, 3, grant);
      assert.equal(run.report.files, 3, grant);
      assert.equal(run.report.readsAnywhere, grant === "every permission", grant);
      assert.ok(run.ms > 0 && run.cpuMs >= 0);
    } finally {
      scanner.close();
    }
  }
});

Deno.test("bench:floor refuses arguments it cannot honour, with its usage", async () => {
  for (
    const args of [
      ["--threads", "0"],
      ["--rounds", "x"],
      ["--needle", "lower case"],
      ["--first", "0"],
      ["--first-needle", "export_symbol"],
      ["--rows", "some"],
    ]
  ) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-q",
        "-A",
        new URL("../../scripts/bench_floor.ts", import.meta.url).pathname,
        ...args,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 2, args.join(" "));
    assert.match(new TextDecoder().decode(out.stderr), /^bench:floor: /);
  }
});

Deno.test("bench:floor's walk lists every entry below the root once, skipping .git's inside and following no link", async () => {
  const root = await Deno.makeTempDir({ prefix: "floor-walk-" });
  const outside = await Deno.makeTempDir({ prefix: "floor-walk-outside-" });
  try {
    await Deno.mkdir(`${root}/a/b`, { recursive: true });
    await Deno.mkdir(`${root}/.git/objects`, { recursive: true });
    await Deno.writeTextFile(`${root}/a/b/one.c`, "");
    await Deno.writeTextFile(`${root}/.git/objects/x`, "");
    await Deno.writeTextFile(`${outside}/far.c`, "");
    await Deno.symlink(outside, `${root}/link`);
    const run = await floorScan([root], {
      root,
      grant: "tool worker",
      mode: "walk",
      needle: "Linus Torvalds",
      threads: 1,
    });
    // a, a/b, a/b/one.c, .git, link: not .git's contents, not the link's target.
    assert.equal(run.report.files, 5);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("bench:floor's first page reads every file up to the one holding the Nth match, and expects all of that file's lines", () => {
  const sorted = ["a.c", "b.c", "c.c", "d.c", "e.c"];
  // rg --sort path: two lines in a.c, none in b.c, three in c.c, one in e.c.
  const matched = ["a.c", "a.c", "c.c", "c.c", "c.c", "e.c"];
  // The 3rd match is in c.c: a.c, b.c (no match, still read) and c.c, with c.c's every line.
  assert.deepEqual(firstPage(sorted, matched, 3), {
    relative: ["a.c", "b.c", "c.c"],
    lastFile: "c.c",
    expected: 5,
  });
  // The 6th is e.c's: d.c is read too though it holds none.
  assert.deepEqual(firstPage(sorted, matched, 6), {
    relative: sorted,
    lastFile: "e.c",
    expected: 6,
  });
  assert.match(firstPage(sorted, matched, 7) as string, /fewer than 7/);
  assert.match(firstPage(["a.c"], ["z.c"], 1) as string, /not in ripgrep's file list/);
});

Deno.test("bench:floor's warm-up pass is not counted, and a warm prefilter still finds the timed job's needle (a new needle rebuilds it)", async () => {
  await using tree = await fixture();
  const { root, files } = tree;
  // Warmed on c.c alone, timed on a.c, b.c, c.c: only the timed files are reported.
  const run = await floorScan(files.slice(0, 3), {
    root,
    grant: "tool worker",
    mode: "prefilter",
    needle: "Linus Torvalds",
    threads: 2,
    warm: [files[2]],
  });
  assert.equal(run.report.files, 3);
  assert.equal(run.report.lines, 3);
  // The same workers' kept prefilter is per needle: warmed on one, timed on another.
  const other = await floorScan(files.slice(0, 3), {
    root,
    grant: "every permission",
    mode: "prefilter",
    needle: "another",
    threads: 1,
    warm: files.slice(0, 3),
  });
  assert.equal(other.report.files, 3);
  assert.equal(other.report.lines, 1, 'only b.c\'s line holds "another"');
});
