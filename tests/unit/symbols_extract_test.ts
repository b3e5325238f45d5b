/**
 * Definitions per language from the real grammars, run directly over
 * `(language, text)`: names in comments and strings are not definitions,
 * nested members get qualified names, and each language's own shapes
 * (overloads, decorators, export default, arrow functions, Go receivers,
 * Rust impl blocks, C++ namespaces…) come out right.
 *
 * @module
 */

import assert from "node:assert/strict";
import { extractDefinitions } from "../../src/symbols/extract.ts";
import { fileSymbols } from "../../src/symbols/file_symbols.ts";
import {
  definitionPatterns,
  GRAMMAR_SOURCES,
  GrammarRegistry,
  type GrammarSource,
} from "../../src/symbols/grammars.ts";
import { isParsed, languageOf, PARSED_LANGUAGES } from "../../src/symbols/languages.ts";
import { patternDefinitions } from "../../src/symbols/patterns.ts";

const GRAMMARS = new GrammarRegistry();
const all = () => true;

/** `kind qualifiedName@line` for every definition, as the parser found them. */
async function defs(language: string, text: string, registry = GRAMMARS): Promise<string[]> {
  const found = await fileSymbols(registry, language, text, {
    accept: all,
    limit: 10_000,
    shouldStop: () => false,
  });
  assert.equal(found.method, "parsed", `${language}: ${found.unparseable ?? found.noParser}`);
  return found.definitions.map((d) => `${d.kind} ${d.qualifiedName}@${d.line}`);
}

Deno.test("typescript: comments and strings are not definitions; classes, overloads, decorators, export default, arrow consts", async () => {
  const got = await defs(
    "typescript",
    [
      "// class InComment {}",
      "/* function inBlock() {} */",
      'const s = "function inString() {}";',
      "const t = `class InTemplate {}`;",
      "@Component({})",
      "export default class Engine {",
      "  constructor() {}",
      "  start(): void {}",
      "}",
      "export const run = (x: number) => x;",
      "function over(a: string): void;",
      "function over(a: number): void;",
      "function over(a: unknown) {}",
      "interface Shape { area(): number }",
      "namespace Outer { export class Inner { method() {} } }",
      "enum Color { Red }",
      "type Alias = string;",
    ].join("\n"),
  );
  const names = got.join("\n");
  for (const bad of ["InComment", "inBlock", "inString", "InTemplate"]) {
    assert.ok(!names.includes(bad), `${bad} is not a definition:\n${names}`);
  }
  for (
    const want of [
      "class Engine@6",
      "method Engine.constructor@7",
      "method Engine.start@8",
      "function run@10",
      "function over@11",
      "function over@12",
      "function over@13",
      "interface Shape@14",
      "method Shape.area@14",
      "module Outer@15",
      "class Outer.Inner@15",
      "method Outer.Inner.method@15",
      "enum Color@16",
      "type Alias@17",
    ]
  ) assert.ok(got.includes(want), `missing ${want} in:\n${names}`);
});

Deno.test("javascript and tsx: functions, classes, methods, assigned functions", async () => {
  const js = await defs(
    "javascript",
    "export function a() {}\nconst b = () => 1;\nclass K { m() {} }\nmodule.exports.c = function () {};\n",
  );
  for (
    const want of ["function a@1", "function b@2", "class K@3", "method K.m@3", "function c@4"]
  ) {
    assert.ok(js.includes(want), `missing ${want} in ${js}`);
  }
  const tsx = await defs("tsx", "export const App = () => <div>hi</div>;\nclass View {}\n");
  assert.ok(tsx.includes("function App@1") && tsx.includes("class View@2"), String(tsx));
});

Deno.test("python: nested classes and methods, decorators, a def in a comment or string", async () => {
  const got = await defs(
    "python",
    [
      "class Outer:",
      "    class Inner:",
      "        def method(self):",
      "            pass",
      "    @staticmethod",
      "    def helper():",
      "        '''def not_me(): pass'''",
      "# def commented(): pass",
      "def top(): pass",
    ].join("\n"),
  );
  assert.deepEqual(got, [
    "class Outer@1",
    "class Outer.Inner@2",
    "method Outer.Inner.method@3",
    "method Outer.helper@6",
    "function top@9",
  ]);
});

Deno.test("go: receivers qualify methods; structs and interfaces by their type", async () => {
  const got = await defs(
    "go",
    "package p\ntype Engine struct{}\ntype Runner interface{ Run() }\nfunc (e *Engine) Start() {}\nfunc (e Engine[T]) Stop() {}\nfunc Free() {}\n// func Fake() {}\n",
  );
  for (
    const want of [
      "struct Engine@2",
      "interface Runner@3",
      "method Engine.Start@4",
      "method Engine.Stop@5",
      "function Free@6",
    ]
  ) assert.ok(got.includes(want), `missing ${want} in ${got}`);
  assert.ok(!got.some((d) => d.includes("Fake")));
});

Deno.test("rust: impl blocks qualify methods; traits, modules, enums, macros", async () => {
  const got = await defs(
    "rust",
    "struct S;\nimpl<T> Show for S { fn show(&self) {} }\nimpl S { fn new() -> S { S } }\ntrait T { fn t(&self); }\nmod m { pub fn inner() {} }\nenum E { A }\nmacro_rules! mac { () => {} }\n// fn fake() {}\n",
  );
  for (
    const want of [
      "struct S@1",
      "method S.show@2",
      "method S.new@3",
      "trait T@4",
      "module m@5",
      "method m.inner@5",
      "enum E@6",
      "macro mac@7",
    ]
  ) assert.ok(got.includes(want), `missing ${want} in ${got}`);
  assert.ok(!got.some((d) => d.includes("fake")));
});

Deno.test("c++: namespaces and out-of-class definitions give qualified names", async () => {
  const got = await defs(
    "cpp",
    "namespace outer { namespace inner { class Engine { public: void start(); }; } }\nvoid outer::inner::Engine::start() {}\nint free_fn(int x) { return x; }\n#define MAX 3\n",
  );
  for (
    const want of [
      "module outer@1",
      "module outer.inner@1",
      "class outer.inner.Engine@1",
      "method outer.inner.Engine.start@1",
      "method outer.inner.Engine.start@2",
      "function free_fn@3",
      "macro MAX@4",
    ]
  ) assert.ok(got.includes(want), `missing ${want} in ${got}`);
});

Deno.test("c, java, c#, ruby, bash, php: each grammar's definitions with containers", async () => {
  const cases: [string, string, string[]][] = [
    ["c", "struct s { int a; };\ntypedef int myint;\nint f(void) { return 0; }\n#define M(x) x\n", [
      "struct s@1",
      "type myint@2",
      "function f@3",
      "macro M@4",
    ]],
    [
      "java",
      "class A { class B { void m() {} } A() {} enum E { X } }\ninterface I { void f(); }\n",
      [
        "class A@1",
        "class A.B@1",
        "method A.B.m@1",
        "method A.A@1",
        "enum A.E@1",
        "interface I@2",
        "method I.f@2",
      ],
    ],
    ["csharp", "namespace N.M { class C { void Run() {} } struct S {} }\n", [
      "module N.M@1",
      "class N.M.C@1",
      "method N.M.C.Run@1",
      "struct N.M.S@1",
    ]],
    ["ruby", "module M\n  class C\n    def m; end\n    def self.s; end\n  end\nend\n", [
      "module M@1",
      "class M.C@2",
      "method M.C.m@3",
      "method M.C.s@4",
    ]],
    [
      "bash",
      "# deploy_fake() {}\nNAME=x\ndeploy() {\n  echo 'f() {}'\n}\nfunction clean { :; }\n",
      [
        "variable NAME@2",
        "function deploy@3",
        "function clean@6",
      ],
    ],
    ["php", "<?php\nclass C { function m() {} }\nfunction f() {}\n", [
      "class C@2",
      "method C.m@2",
      "function f@3",
    ]],
  ];
  for (const [language, text, want] of cases) {
    const got = await defs(language, text);
    for (const w of want) assert.ok(got.includes(w), `${language}: missing ${w} in ${got}`);
  }
});

/**
 * Per parsed language: definitions hidden in comments and strings (named fake*), one of them at the
 * start of a line inside a block comment or multi-line string, where patterns take it; and one real.
 */
const HIDDEN: Readonly<Record<string, string>> = {
  typescript:
    '// function fakeLine() {}\n/*\nclass FakeBlock {}\n*/\nlet s = "function fakeString() {}";\nlet t = `\nclass FakeTemplate {}\n`;\nfunction real(): void {}\n',
  tsx:
    '// function fakeLine() {}\n/*\nclass FakeBlock {}\n*/\nlet s = "function fakeString() {}";\nfunction real() { return <a/>; }\n',
  javascript:
    "// function fakeLine() {}\n/*\nclass FakeBlock {}\n*/\nlet t = `\nfunction fakeTemplate() {}\n`;\nfunction real() {}\n",
  python:
    '# def fake_line(): pass\ns = "def fake_string(): pass"\n"""\nclass FakeBlock:\n    pass\n"""\ndef real():\n    pass\n',
  go:
    "package p\n// func fakeLine() {}\n/*\ntype FakeBlock struct{}\n*/\nvar s = `\nfunc fakeRaw() {}\n`\nfunc real() {}\n",
  rust:
    '// fn fake_line() {}\n/*\nstruct FakeBlock;\n*/\nconst S: &str = r#"\nfn fake_raw() {}\n"#;\nfn real() {}\n',
  java:
    '// class FakeLine {}\n/*\nclass FakeBlock {}\n*/\nclass Real { String s = "void fakeString() {}"; void real() {} }\n',
  c: '// void fake_line(void) {}\n/*\nstruct fake_block { int x; };\n*/\nconst char *s = "void fake_string(void) {}";\nvoid real(void) {}\n',
  cpp:
    '// void fake_line() {}\n/*\nnamespace fake_block {}\n*/\nconst char *s = "class fake_string {};";\nvoid real() {}\n',
  csharp:
    '// class FakeLine {}\n/*\nclass FakeBlock {}\n*/\nclass Real { string s = @"\nclass FakeVerbatim {}\n"; void real() {} }\n',
  ruby:
    '# def fake_line; end\n=begin\ndef fake_block; end\n=end\ns = "def fake_string; end"\ndef real\nend\n',
  php:
    '<?php\n// function fake_line() {}\n/*\nfunction fake_block() {}\n*/\n$s = "function fake_string() {}";\nfunction real() {}\n',
  bash:
    "# fake_line() { :; }\ns='fake_string() { :; }'\ncat <<EOF\nfake_heredoc() { :; }\nEOF\nreal() { :; }\n",
};

Deno.test("every parsed language: a definition in a comment or a string is not a definition, the real one is", async () => {
  assert.deepEqual(
    Object.keys(HIDDEN).sort(),
    [...PARSED_LANGUAGES].sort(),
    "a language has no case",
  );
  for (const [language, text] of Object.entries(HIDDEN)) {
    const found = await defs(language, text);
    assert.ok(found.some((d) => /(^|[ .])real@/.test(d)), `${language}: ${found.join(", ")}`);
    const fakes = found.filter((d) => /fake/i.test(d));
    assert.deepEqual(fakes, [], `${language} took a comment or a string for a definition`);
  }
  // The same texts through patterns do find some fakes: the case is one a parser must get right.
  const fooled = Object.entries(HIDDEN).filter(([language, text]) =>
    patternDefinitions(text, language, () => true, 100).some((d) => /fake/i.test(d.name))
  );
  assert.deepEqual(fooled.map(([language]) => language), Object.keys(HIDDEN));
});

Deno.test("languages without a grammar fall back to patterns, marked as such", async () => {
  assert.equal(languageOf("src/App.kt"), "kotlin");
  assert.equal(isParsed("kotlin"), false);
  const found = await fileSymbols(
    GRAMMARS,
    "kotlin",
    "// class Commented\nclass Engine {\n    fun start() {}\n}\n",
    { accept: all, limit: 100, shouldStop: () => false },
  );
  assert.equal(found.method, "pattern");
  assert.equal(found.noParser, "no grammar is bundled");
  assert.deepEqual(found.definitions.map((d) => `${d.kind} ${d.qualifiedName}@${d.line}`), [
    "class Engine@2",
    "method Engine.start@3",
  ]);
  const swift = await fileSymbols(GRAMMARS, "swift", "struct Point {\n  func norm() {}\n}\n", {
    accept: all,
    limit: 100,
    shouldStop: () => false,
  });
  assert.deepEqual(swift.definitions.map((d) => `${d.kind} ${d.qualifiedName}`), [
    "struct Point",
    "method Point.norm",
  ]);
});

Deno.test("a file with syntax errors is unparseable and falls back to patterns", async () => {
  const found = await fileSymbols(GRAMMARS, "typescript", "class Broken {\n  method( {\n", {
    accept: all,
    limit: 100,
    shouldStop: () => false,
  });
  assert.equal(found.method, "pattern");
  assert.equal(found.unparseable, "syntax errors");
  assert.deepEqual(found.definitions.map((d) => d.name), ["Broken"]);
});

Deno.test("attack: a grammar file missing — the language is pattern-matched and the reason named", async () => {
  const broken: GrammarSource = {
    ...GRAMMAR_SOURCES.python,
    wasm: () => Promise.reject(new Error("Module not found: tree-sitter-python.wasm")),
  };
  const registry = new GrammarRegistry({ ...GRAMMAR_SOURCES, python: broken });
  const found = await fileSymbols(registry, "python", "def run():\n    pass\n", {
    accept: all,
    limit: 10,
    shouldStop: () => false,
  });
  assert.equal(found.method, "pattern");
  assert.match(found.noParser ?? "", /python grammar did not load.*Module not found/);
  assert.deepEqual(found.definitions.map((d) => d.name), ["run"]);
});

Deno.test("grammars load lazily: only the languages parsed", async () => {
  const registry = new GrammarRegistry();
  assert.deepEqual(registry.loadedLanguages(), []);
  await defs("go", "package p\nfunc F() {}\n", registry);
  assert.deepEqual(registry.loadedLanguages(), ["go"]);
});

Deno.test("attack: deeply nested code does not blow a recursive visitor's stack", async () => {
  const depth = 5_000;
  const js = "function f0() {\n".repeat(1) +
    Array.from({ length: depth }, (_, i) => `function f${i + 1}() {`).join("\n") +
    "\nfunction deepest() {}\n" + "}\n".repeat(depth + 1);
  const found = await fileSymbols(GRAMMARS, "javascript", js, {
    accept: (name) => name === "deepest",
    limit: 10,
    shouldStop: () => false,
  });
  assert.equal(found.method, "parsed", found.unparseable);
  assert.equal(found.definitions.length, 1);
  assert.equal(found.definitions[0].name, "deepest");
  assert.ok(found.definitions[0].qualifiedName.endsWith(".deepest"));
  const python = Array.from({ length: 200 }, (_, i) => `${"  ".repeat(i)}class C${i}:`).join("\n") +
    `\n${"  ".repeat(200)}def inner(self): pass\n`;
  const py = await fileSymbols(GRAMMARS, "python", python, {
    accept: (name) => name === "inner",
    limit: 10,
    shouldStop: () => false,
  });
  assert.equal(py.definitions[0]?.qualifiedName.split(".").length, 201);
});

Deno.test("a stop request ends a parse: the file is marked stopped, with no pattern pass", async () => {
  const big = "function f() { return 1; }\n".repeat(200_000);
  const found = await fileSymbols(GRAMMARS, "javascript", big, {
    accept: (name) => name === "f",
    limit: 1,
    shouldStop: () => true,
  });
  assert.equal(found.method, "pattern");
  assert.equal(found.unparseable, "the parse was stopped");
  // The call is ending: no pattern pass over the file it was stopped in.
  assert.deepEqual(found.definitions, []);
});

Deno.test("a stop request raised after the parse ends the definition queries: fewer matches, and the file is marked stopped", async () => {
  const count = 20_000;
  const c = Array.from({ length: count }, (_, i) => `int f${i}(void) { return ${i}; }`).join("\n");
  const grammar = await GRAMMARS.get("c");
  const tree = grammar.parser.parse(c)!;
  try {
    assert.equal(extractDefinitions(grammar, tree, c).length, count);
    let asked = 0;
    const stopped = extractDefinitions(grammar, tree, c, { shouldStop: () => ++asked > 0 });
    assert.ok(asked > 0, "the query engine never asked");
    assert.ok(
      stopped.length < count,
      `${stopped.length} of ${count}: the stop did not end the query`,
    );
  } finally {
    tree.delete();
  }
  // Through fileSymbols: a stop that rises part-way through the file's work.
  let calls = 0;
  const late = await fileSymbols(GRAMMARS, "c", c, {
    accept: all,
    limit: count,
    shouldStop: () => ++calls > 1_000,
  });
  assert.equal(late.method, "pattern");
  assert.equal(late.unparseable, "the parse was stopped");
});

Deno.test("tags.scm: reference patterns are dropped, definition patterns kept", () => {
  const kept = definitionPatterns(
    '; comment (x)\n(call_expression function: (identifier) @name) @reference.call\n(class_declaration name: (_) @name) @definition.class\n(#match? @name "(")',
  );
  assert.ok(kept.includes("@definition.class"));
  assert.ok(!kept.includes("@reference.call"));
});
