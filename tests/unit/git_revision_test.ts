import assert from "node:assert/strict";
import {
  checkDate,
  checkGrep,
  parseRevisionSpec,
  REVISION_PATTERN,
} from "../../src/access/git_revision.ts";
import { ToolRefusal } from "../../src/contract/refusal.ts";

const LEGITIMATE = [
  "HEAD",
  "HEAD~1",
  "HEAD^2",
  "main",
  "origin/main",
  "v1.0.0",
  "@{0}",
  "main@{1}",
  "HEAD@{-1}",
  "HEAD~3..HEAD",
  "main...feature/x",
  "0123456789abcdef0123456789abcdef01234567",
  "HEAD~3..",
  "..main",
];

Deno.test("git revision: legitimate revisions and ranges pass the schema pattern and the handler", () => {
  for (const rev of LEGITIMATE) {
    assert.ok(REVISION_PATTERN.test(rev), rev);
    parseRevisionSpec(rev);
  }
});

Deno.test("git revision: ranges split into their ends, empty ends meaning HEAD", () => {
  assert.deepEqual(parseRevisionSpec("HEAD~3..HEAD"), {
    kind: "range",
    from: "HEAD~3",
    to: "HEAD",
    dots: 2,
  });
  assert.deepEqual(parseRevisionSpec("a...b"), { kind: "range", from: "a", to: "b", dots: 3 });
  assert.deepEqual(parseRevisionSpec("HEAD~3.."), {
    kind: "range",
    from: "HEAD~3",
    to: "HEAD",
    dots: 2,
  });
  assert.deepEqual(parseRevisionSpec("main"), { kind: "single", rev: "main" });
});

Deno.test("attack: option-like, shell and pathspec revisions fail the pattern and the handler", () => {
  const hostile = [
    "-p",
    "--output=/tmp/x",
    "--upload-pack=sh",
    "HEAD..-p",
    "HEAD...--output=x",
    "$(id)",
    "`id`",
    "a b",
    "a;b",
    "a|b",
    "HEAD:path",
    ":/msg",
    "a\nb",
    "a\u0000b",
    "*",
    "x".repeat(201),
    "",
    "a..b..c",
    "....",
  ];
  for (const rev of hostile) {
    assert.equal(REVISION_PATTERN.test(rev) && !/\.\..*\.\./.test(rev), false, rev);
    assert.throws(
      () => parseRevisionSpec(rev),
      (e) => e instanceof ToolRefusal && e.code === "bad_revision",
      JSON.stringify(rev),
    );
  }
});

Deno.test("git revision: dates and grep are checked again by the handler", () => {
  for (const ok of ["2026-01-31", "2026-01-31T12:00", "2026-01-31T12:00:00Z", "3 weeks ago"]) {
    assert.equal(checkDate("since", ok), ok);
  }
  for (const bad of ["--all", "yesterday", "2026-01-31; id", "1 fortnight ago"]) {
    assert.throws(
      () => checkDate("since", bad),
      (e) => (e as ToolRefusal).code === "invalid_arguments",
    );
  }
  assert.equal(checkGrep("fix: --output"), "fix: --output");
  assert.throws(() => checkGrep("a\nb"), (e) => (e as ToolRefusal).code === "invalid_arguments");
  assert.throws(() => checkGrep(""), (e) => (e as ToolRefusal).code === "invalid_arguments");
});
