/**
 * `devserver conform` as users run it: the real program, against this
 * server in-process and as a child over real pipes, against servers that
 * crash, hang, write garbage or flood stderr, and with usage errors.
 */

import assert from "node:assert/strict";
import { formatTable } from "../../src/conform/report.ts";
import { runConformance } from "../../src/conform/runner.ts";
import { spawnTarget } from "../../src/conform/target.ts";
import { makeWorkspace } from "../helpers/fixtures.ts";
import { REPO_ROOT, runProgram } from "../helpers/program.ts";
import { serveArgs } from "./support.ts";

const FAULTY = `${REPO_ROOT}/tests/conform/fixtures/faulty_server.ts`;
const faulty = (mode: string) => [Deno.execPath(), "run", "--quiet", FAULTY, mode];
const QUICK = { requestTimeoutMs: 1_500, stalledTimeoutMs: 300 };

Deno.test("conform: this server in-process is conformant, SHOULDs included", async () => {
  await using ws = await makeWorkspace({ "a.txt": "one\n" });
  const { code, stdout } = await runProgram(["--workspace", ws.root, "conform"]);
  assert.equal(code, 0, stdout);
  assert.match(stdout, /^target: devserver \(in-process/);
  assert.match(stdout, /^ok {4}C001 MUST {3}server\/discover answers a result$/m);
  assert.match(stdout, /^ok {4}C027 SHOULD a bogus cursor is -32602$/m);
  assert.doesNotMatch(stdout, /^FAIL /m);
});

Deno.test("conform --strict: with every SHOULD met this server stays conformant (exit 0)", async () => {
  await using ws = await makeWorkspace({ "a.txt": "one\n" });
  const { code, stdout } = await runProgram([
    "--workspace",
    ws.root,
    "conform",
    "--strict",
    "--only",
    "C001,C027",
  ]);
  assert.equal(code, 0, stdout);
  assert.match(stdout, /^ok {4}C027 SHOULD a bogus cursor is -32602$/m);
  assert.doesNotMatch(stdout, /^FAIL /m);
});

Deno.test("conform --stdio -- : the real server as a child, --json, --only, --junit", async () => {
  await using ws = await makeWorkspace({ "a.txt": "one\n" });
  const { code, stdout, stderr } = await runProgram([
    "conform",
    "--only",
    "C001,c013,C039,C043",
    "--junit",
    "-",
    "--stdio",
    "--",
    Deno.execPath(),
    ...serveArgs(ws.root),
  ]);
  assert.equal(code, 0, stdout + stderr);
  assert.match(stdout, /^<\?xml version="1.0" encoding="UTF-8"\?>\n/);
  assert.match(stdout, /<testsuite name="devserver conform" tests="4" failures="0" skipped="0">/);
  assert.match(
    stdout,
    /<testcase classname="conform" name="C043 the server exits when stdin closes \(SHOULD\)"/,
  );
  const json = await runProgram([
    "conform",
    "--json",
    "--only",
    "C001,C010",
    "--stdio",
    "--",
    Deno.execPath(),
    ...serveArgs(ws.root),
  ]);
  assert.equal(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout);
  assert.deepEqual(report.results.map((r: { id: string }) => r.id), ["C001", "C010"]);
  assert.equal(report.era, "modern");
  assert.equal(report.conformant, true);
  assert.match(report.verdict, /^conformant/);
});

Deno.test("conform --junit FILE: written under the devserver set (it grants write, ADR-045); an unwritable FILE is exit 2", async () => {
  await using ws = await makeWorkspace({ "a.txt": "one\n" });
  const file = `${ws.outside}/report.xml`;
  const args = ["--workspace", ws.root, "conform", "--only", "C001,C038", "--junit", file];
  const unwritable = await runProgram([...args.slice(0, -1), `${ws.outside}/no-such-dir/r.xml`]);
  assert.equal(unwritable.code, 2);
  assert.match(unwritable.stderr, /^devserver: cannot write .*r\.xml/);
  const out = await runProgram(args);
  assert.equal(out.code, 0, out.stderr);
  const xml = await Deno.readTextFile(file);
  assert.match(xml, /tests="2" failures="0" skipped="1"/);
  assert.match(xml, /<skipped message="no -32021 in this run"\/>/);
});

Deno.test("conform --stdio STRING: a server that crashes after one answer is not conformant", async () => {
  const { code, stdout } = await runProgram([
    "conform",
    "--stdio",
    `'${Deno.execPath()}' run --quiet "${FAULTY}" crash`,
  ]);
  assert.equal(code, 1, stdout);
  assert.match(stdout, /the target closed its output \(it exited or crashed\)/);
  assert.match(stdout, /\nnot conformant: /);
});

Deno.test("conform: a server writing garbage fails C039 with the line quoted", async () => {
  const report = await runConformance(spawnTarget(faulty("garbage")), { timings: QUICK });
  assert.equal(report.conformant, false);
  const c039 = report.results.find((r) => r.id === "C039")!;
  assert.equal(c039.status, "fail");
  assert.match(c039.detail, /^stdout line \d+ is not a JSON-RPC message: <html>oops<\/html>$/);
  assert.match(
    formatTable(report),
    /^FAIL {2}C039 MUST {3}stdout carries only JSON-RPC messages$/m,
  );
});

Deno.test("conform: a program that cannot be started, and one that answers nothing, exit 2", async () => {
  const missing = await runProgram(["conform", "--stdio", "no-such-program-4f1c --x"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^devserver: cannot start "no-such-program-4f1c"/);

  const started = Date.now();
  const report = await runConformance(spawnTarget(faulty("silent")), { timings: QUICK });
  assert.ok(Date.now() - started < 10_000, "bounded");
  assert.match(report.connectionError ?? "", /answered nothing/);
  assert.equal(report.conformant, false);
  assert.deepEqual(report.results, []);
});

Deno.test("conform: a server that hangs mid-run gets failed checks within a bounded time", async () => {
  const started = Date.now();
  const report = await runConformance(spawnTarget(faulty("hang")), { timings: QUICK });
  const elapsed = Date.now() - started;
  assert.ok(elapsed < 40_000, `took ${elapsed} ms`);
  assert.equal(report.connectionError, undefined);
  assert.equal(report.conformant, false);
  const c001 = report.results.find((r) => r.id === "C001")!;
  assert.equal(c001.status, "ok");
  const c007 = report.results.find((r) => r.id === "C007")!;
  assert.equal(c007.status, "fail");
  assert.match(c007.detail, /no answer within \d+ ms/);
  assert.equal(report.results.find((r) => r.id === "C043")!.status, "ok", "exits on stdin close");
});

Deno.test("conform: a server flooding stderr does not stall the checker", async () => {
  const target = spawnTarget(faulty("chatty"));
  const report = await runConformance(target, { only: ["C001", "C015"], timings: QUICK });
  assert.equal(report.connectionError, undefined);
  assert.deepEqual(report.results.map((r) => [r.id, r.status]), [["C001", "ok"], ["C015", "ok"]]);
});

Deno.test("conform: usage errors exit 2 with one line", async () => {
  const cases: Array<[string[], RegExp]> = [
    [["conform", "extra"], /conform takes no arguments/],
    [["conform", "--only", "C999"], /--only: no check C999/],
    [["conform", "--json", "--junit", "x.xml"], /--json or --junit/],
    [["conform", "--stdio", "a", "--stdio", "--", "b"], /--stdio is given twice/],
    [["conform", "--stdio", "--"], /needs a command after --/],
    [["conform", "--stdio", "'unterminated"], /--stdio: unterminated single quote/],
    [["serve", "--strict"], /--strict does not apply to serve/],
  ];
  for (const [args, message] of cases) {
    const { code, stderr } = await runProgram(args);
    assert.equal(code, 2, args.join(" "));
    assert.match(stderr, message, args.join(" "));
  }
});
