/**
 * Project manifests read with maintained parsers (JSON, JSONC via
 * `jsonc-parser`, TOML via `smol-toml`, XML via `fast-xml-parser`; ADR-034)
 * and summarised: what a project declares — name, version, description,
 * dependencies, scripts, workspace members, entry points. Pure over
 * `(path, text)` once {@linkcode loadManifestParsers} has loaded the parsers
 * (on demand since ADR-108). Every string in a summary is file-derived and untrusted;
 * a manifest that does not parse yields `parseError`, never an exception.
 *
 * @module
 */

import type * as Jsonc from "jsonc-parser";
import type * as Toml from "smol-toml";
import type * as Xml from "fast-xml-parser";

/** The three parsers, once loaded (ADR-108). */
interface Parsers {
  readonly parseJsonc: typeof Jsonc.parse;
  readonly parseToml: typeof Toml.parse;
  readonly XMLParser: typeof Xml.XMLParser;
}
let parsers: Parsers | undefined;

/**
 * Loads the parsers, once per thread (ADR-108): they are imported on the first call that
 * reads manifests, not with the module, so the threads that never summarise one (the main
 * thread, which imports every tool for its schemas, and a tool worker that only searches)
 * do not hold them: about 3.3 MB of heap each, `jsonc-parser` alone 2.2 MB.
 */
export async function loadManifestParsers(): Promise<void> {
  if (parsers !== undefined) return;
  const [jsonc, toml, xml] = await Promise.all([
    import("jsonc-parser"),
    import("smol-toml"),
    import("fast-xml-parser"),
  ]);
  parsers = { parseJsonc: jsonc.parse, parseToml: toml.parse, XMLParser: xml.XMLParser };
}

function loaded(): Parsers {
  if (parsers === undefined) {
    throw new Error("summariseManifest before loadManifestParsers: await it first");
  }
  return parsers;
}

/** The manifest file names recognised (and `*.csproj`). */
export const MANIFEST_NAMES = [
  "package.json",
  "deno.json",
  "deno.jsonc",
  "pyproject.toml",
  "Cargo.toml",
  "go.mod",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "composer.json",
  "Gemfile",
] as const;

/** The longest manifest read; larger ones report a parse error. */
export const MANIFEST_MAX_BYTES = 512 * 1024;
/** Longest string kept from a manifest. */
const MAX_STRING = 200;
/** Most names kept per list. */
const MAX_NAMES = 20;

/** What a manifest declares. */
export interface ManifestSummary {
  readonly path: string;
  readonly type: string;
  readonly parseError?: string;
  readonly name?: string;
  readonly version?: string;
  readonly description?: string;
  /** Runtime dependencies: how many, and the first names. */
  readonly dependencies: number;
  readonly dependencyNames: string[];
  readonly devDependencies: number;
  readonly scripts: string[];
  /** Workspace members as declared (globs or paths). */
  readonly workspaces: string[];
  /** Declared entry points (main, bin, exports, module…). */
  readonly entryPoints: string[];
  /** Every dependency name (runtime and dev), for framework detection; not reported. */
  readonly allDependencyNames: string[];
}

/** Whether `name` (a file's base name) is a manifest. */
export function isManifest(name: string): boolean {
  return (MANIFEST_NAMES as readonly string[]).includes(name) || name.endsWith(".csproj");
}

/**
 * The manifest's summary; parse failures become `parseError`. Throws when
 * {@linkcode loadManifestParsers} has not been awaited on this thread (a bug, never a
 * manifest's fault).
 */
export function summariseManifest(path: string, text: string): ManifestSummary {
  loaded();
  const name = path.slice(path.lastIndexOf("/") + 1);
  const type = name.endsWith(".csproj") ? "csproj" : name;
  const empty: ManifestSummary = {
    path,
    type,
    dependencies: 0,
    dependencyNames: [],
    devDependencies: 0,
    scripts: [],
    workspaces: [],
    entryPoints: [],
    allDependencyNames: [],
  };
  if (text.length > MANIFEST_MAX_BYTES) {
    return { ...empty, parseError: `larger than ${MANIFEST_MAX_BYTES} bytes` };
  }
  try {
    return { ...empty, ...summarise(type, text) };
  } catch (error) {
    const message = error instanceof RangeError
      ? "nested too deeply"
      : str((error as Error)?.message ?? String(error)) ?? "unparseable";
    return { ...empty, parseError: message.split("\n")[0] };
  }
}

type Fields = Partial<Omit<ManifestSummary, "path" | "type">>;

function summarise(type: string, text: string): Fields {
  switch (type) {
    case "package.json":
    case "composer.json":
      return fromJsonManifest(parseJson(text), type);
    case "deno.json":
    case "deno.jsonc":
      return fromDeno(parseJsoncStrict(text));
    case "pyproject.toml":
      return fromPyproject(loaded().parseToml(text));
    case "Cargo.toml":
      return fromCargo(loaded().parseToml(text));
    case "go.mod":
      return fromGoMod(text);
    case "pom.xml":
      return fromPom(parseXml(text));
    case "csproj":
      return fromCsproj(parseXml(text));
    case "build.gradle":
    case "build.gradle.kts":
      return fromGradle(text);
    case "Gemfile":
      return fromGemfile(text);
  }
  return {};
}

function parseJson(text: string): unknown {
  return JSON.parse(text);
}

function parseJsoncStrict(text: string): unknown {
  const errors: Jsonc.ParseError[] = [];
  const value = loaded().parseJsonc(text, errors, { allowTrailingComma: true });
  if (errors.length) throw new Error(`JSONC syntax error at offset ${errors[0].offset}`);
  return value;
}

function parseXml(text: string): Record<string, unknown> {
  const parser = new (loaded().XMLParser)({
    ignoreAttributes: false,
    processEntities: false,
    htmlEntities: false,
    parseTagValue: false,
  });
  return parser.parse(text, true) as Record<string, unknown>;
}

type Obj = Record<string, unknown>;

function obj(value: unknown): Obj {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value as Obj : {};
}

function str(value: unknown): string | undefined {
  if (typeof value === "number" || typeof value === "boolean") value = String(value);
  if (typeof value !== "string") return undefined;
  return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING - 1)}…` : value;
}

function names(values: Iterable<unknown>): string[] {
  const out: string[] = [];
  for (const v of values) {
    const s = str(v);
    if (s !== undefined) out.push(s);
    if (out.length >= MAX_NAMES) break;
  }
  return out;
}

function keysOf(value: unknown): string[] {
  return Object.keys(obj(value));
}

function deps(runtime: string[], dev: string[]): Fields {
  return {
    dependencies: runtime.length,
    dependencyNames: names(runtime),
    devDependencies: dev.length,
    allDependencyNames: [...runtime, ...dev].slice(0, 2_000),
  };
}

/** A manifest's top level, which must be a table/object. */
function topLevel(value: unknown): Obj {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error("the top level is not an object");
  }
  return value as Obj;
}

function fromJsonManifest(value: unknown, type: string): Fields {
  const m = topLevel(value);
  const runtime = keysOf(type === "composer.json" ? m.require : m.dependencies);
  const dev = keysOf(type === "composer.json" ? m["require-dev"] : m.devDependencies);
  const workspaces = Array.isArray(m.workspaces)
    ? m.workspaces
    : Array.isArray(obj(m.workspaces).packages)
    ? obj(m.workspaces).packages as unknown[]
    : [];
  const entry: unknown[] = [m.main, m.module, m.types];
  if (typeof m.bin === "string") entry.push(m.bin);
  else entry.push(...Object.values(obj(m.bin)));
  if (typeof m.exports === "string") entry.push(m.exports);
  else {
    const dot = obj(m.exports)["."];
    entry.push(typeof dot === "string" ? dot : obj(dot).default ?? obj(dot).import);
  }
  return {
    name: str(m.name),
    version: str(m.version),
    description: str(m.description),
    ...deps(runtime, dev),
    scripts: names(keysOf(m.scripts)),
    workspaces: names(workspaces),
    entryPoints: names(entry.filter((e) => e !== undefined)),
  };
}

function fromDeno(value: unknown): Fields {
  const m = topLevel(value);
  const imports = keysOf(m.imports);
  const entry: unknown[] = typeof m.exports === "string"
    ? [m.exports]
    : Object.values(obj(m.exports));
  return {
    name: str(m.name),
    version: str(m.version),
    ...deps(imports, []),
    scripts: names(keysOf(m.tasks)),
    workspaces: names(Array.isArray(m.workspace) ? m.workspace : []),
    entryPoints: names(entry),
  };
}

function fromPyproject(value: unknown): Fields {
  const m = obj(value);
  const project = obj(m.project);
  const poetry = obj(obj(m.tool).poetry);
  const runtime = Array.isArray(project.dependencies)
    ? project.dependencies.map((d) => String(d).split(/[\s<>=!~;[(]/)[0])
    : keysOf(poetry.dependencies).filter((d) => d !== "python");
  const optional = Object.values(obj(project["optional-dependencies"])).flatMap((v) =>
    Array.isArray(v) ? v.map((d) => String(d).split(/[\s<>=!~;[(]/)[0]) : []
  );
  const dev = [
    ...optional,
    ...keysOf(obj(obj(poetry.group).dev).dependencies),
    ...Object.values(obj(m["dependency-groups"])).flatMap((v) =>
      Array.isArray(v) ? v.map((d) => String(d).split(/[\s<>=!~;[(]/)[0]) : []
    ),
  ];
  const scripts = { ...obj(project.scripts), ...obj(poetry.scripts) };
  return {
    name: str(project.name ?? poetry.name),
    version: str(project.version ?? poetry.version),
    description: str(project.description ?? poetry.description),
    ...deps(runtime, dev),
    scripts: names(Object.keys(scripts)),
    workspaces: names(
      Array.isArray(obj(obj(obj(m.tool).uv).workspace).members)
        ? obj(obj(obj(m.tool).uv).workspace).members as unknown[]
        : [],
    ),
    entryPoints: names(Object.values(scripts)),
  };
}

function fromCargo(value: unknown): Fields {
  const m = obj(value);
  const pkg = obj(m.package);
  const bins = Array.isArray(m.bin) ? m.bin.map((b) => obj(b).path ?? obj(b).name) : [];
  return {
    name: str(pkg.name),
    version: str(pkg.version),
    description: str(pkg.description),
    ...deps(keysOf(m.dependencies), keysOf(m["dev-dependencies"])),
    workspaces: names(
      Array.isArray(obj(m.workspace).members) ? obj(m.workspace).members as unknown[] : [],
    ),
    entryPoints: names([...bins, obj(m.lib).path].filter((e) => e !== undefined)),
  };
}

function fromGoMod(text: string): Fields {
  // go.mod is line-oriented (the Go toolchain's own format, no library needed):
  // `module path`, `go 1.x`, `require x v` lines and `require ( … )` blocks.
  let name: string | undefined;
  let version: string | undefined;
  const required: string[] = [];
  let inRequire = false;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\/\/.*$/, "").trim();
    if (!line) continue;
    if (inRequire) {
      if (line === ")") inRequire = false;
      else required.push(line.split(/\s+/)[0]);
      continue;
    }
    const [word, ...rest] = line.split(/\s+/);
    if (word === "module") name = rest[0];
    else if (word === "go") version = `go ${rest[0]}`;
    else if (word === "require") {
      if (rest[0] === "(") inRequire = true;
      else if (rest[0]) required.push(rest[0]);
    }
  }
  if (name === undefined) throw new Error("no module line");
  return { name: str(name), version: str(version), ...deps(required, []) };
}

function xmlList(value: unknown): unknown[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function fromPom(doc: Obj): Fields {
  const project = obj(doc.project);
  if (!doc.project) throw new Error("no <project> element");
  const all = xmlList(obj(project.dependencies).dependency).map(obj);
  const isTest = (d: Obj) => d.scope === "test";
  const id = (d: Obj) => `${d.groupId ?? ""}:${d.artifactId ?? ""}`;
  return {
    name: str(project.artifactId),
    version: str(project.version),
    description: str(project.description),
    ...deps(all.filter((d) => !isTest(d)).map(id), all.filter(isTest).map(id)),
    workspaces: names(xmlList(obj(project.modules).module)),
  };
}

function fromCsproj(doc: Obj): Fields {
  const project = obj(doc.Project);
  if (!doc.Project) throw new Error("no <Project> element");
  const groups = xmlList(project.ItemGroup).map(obj);
  const refs = groups.flatMap((g) => xmlList(g.PackageReference).map(obj)).map((r) =>
    String(r["@_Include"] ?? "")
  );
  const props = xmlList(project.PropertyGroup).map(obj);
  const prop = (key: string) => props.map((p) => p[key]).find((v) => v !== undefined);
  return {
    name: str(prop("AssemblyName") ?? prop("RootNamespace")),
    version: str(prop("Version") ?? prop("TargetFramework")),
    description: str(prop("Description")),
    ...deps(refs, []),
  };
}

function fromGradle(text: string): Fields {
  // Gradle build scripts are programs (Groovy or Kotlin), not data: only the
  // dependency declarations are counted, by pattern.
  const runtime: string[] = [];
  const dev: string[] = [];
  const dep =
    /^\s*(implementation|api|compileOnly|runtimeOnly|testImplementation|testRuntimeOnly|androidTestImplementation)\s*\(?\s*["']([^"']+)["']/gm;
  for (const m of text.matchAll(dep)) {
    (m[1].startsWith("test") || m[1].startsWith("android") ? dev : runtime).push(m[2]);
  }
  return deps(runtime, dev);
}

function fromGemfile(text: string): Fields {
  const runtime: string[] = [];
  const dev: string[] = [];
  let group = 0;
  for (const line of text.split("\n")) {
    if (/^\s*group\b.*\b(test|development)\b/.test(line)) group++;
    else if (/^\s*end\b/.test(line) && group > 0) group--;
    const m = /^\s*gem\s+["']([^"']+)["']/.exec(line);
    if (m) (group > 0 ? dev : runtime).push(m[1]);
  }
  return deps(runtime, dev);
}

/** Test frameworks recognised by dependency name. */
const FRAMEWORKS: Readonly<Record<string, string>> = {
  jest: "jest",
  vitest: "vitest",
  mocha: "mocha",
  ava: "ava",
  jasmine: "jasmine",
  "@playwright/test": "playwright",
  cypress: "cypress",
  pytest: "pytest",
  nose2: "nose2",
  hypothesis: "hypothesis",
  rspec: "rspec",
  minitest: "minitest",
  "phpunit/phpunit": "phpunit",
  "junit:junit": "junit",
  "org.junit.jupiter:junit-jupiter": "junit5",
  "org.junit.jupiter:junit-jupiter-api": "junit5",
  "org.testng:testng": "testng",
  xunit: "xunit",
  nunit: "nunit",
  "github.com/stretchr/testify": "testify",
  proptest: "proptest",
};

/** Test frameworks a manifest's dependencies name. */
export function testFrameworks(summary: ManifestSummary): string[] {
  const found = new Set<string>();
  for (const dep of summary.allDependencyNames) {
    const base = dep.replace(/^npm:/, "").replace(/@[^@/]*$/, "");
    const hit = FRAMEWORKS[dep] ?? FRAMEWORKS[base] ??
      (dep.startsWith("org.junit") ? "junit5" : undefined);
    if (hit) found.add(hit);
  }
  return [...found];
}
