/**
 * The per-tool case table: for every registered tool, a call that succeeds,
 * a call a client sends to be refused, and how to produce each refusal code
 * the tool can answer (its own `refusals` plus `UNIVERSAL_REFUSALS`), all on
 * one fixture workspace ({@linkcode CASE_FILES}).
 *
 * The result-contract test (tests/contract/) and the client end-to-end tests
 * (tests/e2e/clients_test.ts) are driven by this table and by the registry:
 * a tool added to `TOOLS` without an entry here, or a refusal code declared
 * without a way to produce it, fails `tableProblems()` — so a new tool cannot
 * skip the checks.
 *
 * @module
 */

import type { CallToolResult } from "@modelcontextprotocol/server";
import { shapeToolResult } from "../../src/content/pipeline.ts";
import { refusal, type RefusalCode, UNIVERSAL_REFUSALS } from "../../src/contract/refusal.ts";
import type { Sandbox } from "../../src/isolation/sandbox.ts";
import { ToolDispatcher } from "../../src/protocol/dispatch.ts";
import { TOOLS } from "../../src/tools/registry.ts";
import type { ToolDefinition } from "../../src/tools/types.ts";
import { type FixtureEntry, makeWorkspace, type TempWorkspace } from "./fixtures.ts";

/** The workspace every case runs on (besides `<tmp>/outside/secret.txt`, next to it). */
export const CASE_FILES: Record<string, FixtureEntry> = {
  "notes.md": "alpha\nbeta\n",
  "src/main.ts": "console.log(1);\n",
  ".env": "TOKEN=do-not-serve\n",
  ".git/config": "[core]\n",
  "blob.bin": new Uint8Array([0x61, 0x00, 0x62, 0x0a]),
  "big.txt": "x".repeat(2047) + "\n",
  "fifo": { fifo: true },
  "link-to-notes": { symlink: "notes.md" },
  "link-to-src": { symlink: "src" },
  "loop": { symlink: "loop" },
  "locked/inner.txt": "locked\n",
};

/** The directory of {@linkcode CASE_FILES} made unreadable (mode 000) where that is possible. */
export const LOCKED_DIR = "locked";

/**
 * A fresh workspace of {@linkcode CASE_FILES}, with {@linkcode LOCKED_DIR}
 * made unreadable when permissions bind this process.
 */
export async function makeCaseWorkspace(): Promise<TempWorkspace> {
  const ws = await makeWorkspace(CASE_FILES);
  await commitCaseFiles(ws.root);
  if (PERMISSIONS_BIND) await Deno.chmod(ws.path(LOCKED_DIR), 0o000);
  return {
    ...ws,
    async [Symbol.asyncDispose]() {
      await Deno.chmod(ws.path(LOCKED_DIR), 0o755).catch(() => {});
      await ws[Symbol.asyncDispose]();
    },
  };
}

/**
 * Makes the case workspace a git repository with one commit of its plain
 * files, so the git tools have history to answer from. `.git/config` of
 * {@linkcode CASE_FILES} is kept (git init leaves an existing config alone).
 */
async function commitCaseFiles(root: string): Promise<void> {
  const git = (...args: string[]) =>
    new Deno.Command("git", {
      args: ["-c", "user.name=case", "-c", "user.email=case@example.invalid", ...args],
      cwd: root,
      env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
      stdout: "null",
      stderr: "piped",
    }).output();
  for (
    const args of [
      ["init", "-q", "-b", "main"],
      ["add", "notes.md", "src/main.ts", "big.txt"],
      ["commit", "-q", "-m", "case files"],
    ]
  ) {
    const out = await git(...args);
    if (!out.success) throw new Error(`git ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
  }
  await Deno.writeTextFile(`${root}/notes.md`, "alpha\nbeta\ngamma\n");
}

/** Arguments as a client sends them. */
export type Args = Record<string, unknown>;

/** One way to produce a refusal code. */
export type RefusalCase =
  /** A real call on the case workspace, with these settings (`MCP_*` only). */
  | { readonly args: Args; readonly env?: Record<string, string> }
  /**
   * A refusal that no argument on a fixture can cause (the time budget, the
   * queue, a crash): the result is built the way the program builds it, and
   * `how` says which path of the program produces it.
   */
  | { readonly how: string; readonly produce: () => CallToolResult | Promise<CallToolResult> };

/** Everything the contract and client tests need about one tool. */
export interface ToolCases {
  /** A call that succeeds on the case workspace. */
  readonly benign: Args;
  /** The refused call each real client makes: its arguments and the code expected. */
  readonly refused: { readonly args: Args; readonly code: RefusalCode };
  /** For every code the tool can answer, one or more ways to produce it. */
  readonly refusals: Readonly<Partial<Record<RefusalCode, RefusalCase | readonly RefusalCase[]>>>;
}

/** A refusal built as the program builds it (the pipeline over the one constructor). */
function shaped(code: RefusalCode, message: string): () => CallToolResult {
  return () => shapeToolResult(refusal(code, message), { redactSecrets: true });
}

/**
 * The universal codes no argument can cause, shared by every tool. (The
 * fourth universal code, `invalid_arguments`, is produced for real per tool.)
 */
const BEYOND_ARGUMENTS: Readonly<Partial<Record<RefusalCode, RefusalCase>>> = {
  timed_out: {
    how: "the supervisor, when a job's budget timer fires (tests/security/budget_test.ts)",
    produce: shaped("timed_out", "The call ran past its 15000 ms budget and was stopped."),
  },
  busy: {
    how: "the supervisor, when 32 jobs are already queued (tests/security/budget_test.ts)",
    produce: shaped("busy", "32 calls are already waiting for a tool worker."),
  },
  cancelled: {
    how: "the supervisor, on notifications/cancelled for a running call",
    produce: shaped("cancelled", "The client cancelled this call."),
  },
  internal_error: {
    how: "the dispatcher, when a tool's result is outside its own output schema",
    produce: malformedResult,
  },
};

/**
 * `internal_error` for real: the program's dispatcher, given a raw result
 * its tool's output schema does not admit, answers `internal_error` rather
 * than pass it on (src/protocol/dispatch.ts).
 */
async function malformedResult(): Promise<CallToolResult> {
  const [tool] = TOOLS;
  const malformed = { kind: "ok", parts: [], structured: { not_a_field: true } } as const;
  const sandbox = { run: () => Promise.resolve(malformed) } as Pick<Sandbox, "run"> as Sandbox;
  const benign = TOOL_CASES[tool.name]?.benign ?? {};
  const originalError = console.error;
  console.error = () => {}; // the dispatcher logs the malformed result; expected here
  try {
    return await new ToolDispatcher(sandbox, { redactSecrets: true }).call(tool.name, benign);
  } finally {
    console.error = originalError;
  }
}

/** Whether file modes bind this process (they do not for root, which reads a mode-000 file). */
const PERMISSIONS_BIND = (() => {
  const probe = Deno.makeTempFileSync({ prefix: "devserver-perm-probe-" });
  try {
    Deno.chmodSync(probe, 0o000);
    try {
      Deno.readFileSync(probe);
      return false;
    } catch {
      return true;
    }
  } finally {
    Deno.removeSync(probe);
  }
})();

/**
 * `unreadable` for real (a mode-000 directory) when permissions bind this
 * process; as root they do not, and the refusal is built the way
 * `refusalFor` words an EACCES.
 */
function unreadable(args: Args): RefusalCase {
  return PERMISSIONS_BIND ? { args } : {
    how: "refusalFor in src/access/resolve.ts on EACCES (this test runs as root, " +
      "so a mode-000 directory is still readable)",
    produce: shaped("unreadable", 'The operating system refused access in the workspace "ws".'),
  };
}

/**
 * The git refusals the case workspace (a healthy repository) cannot cause,
 * each produced for real in the git suites named in `how`.
 */
const GIT_BEYOND_WORKSPACE: Readonly<Partial<Record<RefusalCode, RefusalCase>>> = {
  not_a_repository: {
    how: "a workspace with no repository at its root (tests/security/git_repository_test.ts)",
    produce: shaped(
      "not_a_repository",
      'There is no git repository at the root of the workspace "ws".',
    ),
  },
  unsafe_repository: {
    how:
      "a .git file, commondir or alternates leading outside (tests/security/git_repository_test.ts)",
    produce: shaped("unsafe_repository", 'The repository of the workspace "ws" points outside it.'),
  },
  git_unavailable: {
    how: "no git program found at start (tests/unit/git_runner_test.ts)",
    produce: shaped("git_unavailable", "git was not found when the server started."),
  },
  git_failed: {
    how: "git exiting with an error the runner does not map (tests/unit/git_runner_test.ts)",
    produce: shaped("git_failed", 'git failed in the workspace "ws": log.'),
  },
};

/** The path refusals every path-taking git tool answers, on the case workspace. */
const GIT_PATH_CASES: Readonly<Partial<Record<RefusalCode, RefusalCase>>> = {
  invalid_path: { args: { path: "src\0" } },
  outside_workspace: { args: { path: "../outside" } },
  denied_path: { args: { path: ".env" } },
  not_found: { args: { path: "missing.md" } },
  not_a_directory: { args: { path: "notes.md/inner" } },
  symlink_not_followed: { args: { path: "link-to-notes" } },
  symlink_loop: { args: { path: "loop/inner" } },
  unreadable: unreadable({ path: `${LOCKED_DIR}/inner.txt` }),
};

/** The case table, keyed by tool name. Add an entry with every new tool. */
export const TOOL_CASES: Readonly<Record<string, ToolCases>> = {
  read_file: {
    benign: { path: "notes.md" },
    refused: { args: { path: "../outside/secret.txt" }, code: "outside_workspace" },
    refusals: {
      invalid_arguments: [
        { args: { path: "notes.md", not_an_argument: true } },
        { args: { path: "notes.md", start_line: 2, end_line: 1 } },
      ],
      invalid_path: { args: { path: "notes\0.md" } },
      outside_workspace: { args: { path: "../outside/secret.txt" } },
      denied_path: [{ args: { path: ".env" } }, { args: { path: ".git/config" } }],
      not_found: { args: { path: "missing.md" } },
      not_a_directory: { args: { path: "notes.md/inner" } },
      not_a_file: { args: { path: "src" } },
      symlink_not_followed: { args: { path: "link-to-notes" } },
      symlink_loop: { args: { path: "loop/inner" } },
      special_file: { args: { path: "fifo" } },
      too_large: { args: { path: "big.txt" }, env: { MCP_SANDBOX__MAX_FILE_BYTES: "1024" } },
      binary_file: { args: { path: "blob.bin" } },
      unreadable: unreadable({ path: `${LOCKED_DIR}/inner.txt` }),
      ...BEYOND_ARGUMENTS,
    },
  },
  list_directory: {
    benign: {},
    refused: { args: { path: "../outside" }, code: "outside_workspace" },
    refusals: {
      invalid_arguments: { args: { include_hidden: "yes" } },
      invalid_path: { args: { path: "src\0" } },
      outside_workspace: { args: { path: ".." } },
      denied_path: { args: { path: ".git" } },
      not_found: { args: { path: "missing" } },
      not_a_directory: { args: { path: "notes.md" } },
      symlink_not_followed: { args: { path: "link-to-src" } },
      symlink_loop: { args: { path: "loop/inner" } },
      unreadable: unreadable({ path: LOCKED_DIR }),
      ...BEYOND_ARGUMENTS,
    },
  },
  search_code: {
    benign: { pattern: "alpha" },
    refused: { args: { pattern: "alpha", path: "../outside" }, code: "outside_workspace" },
    refusals: {
      invalid_arguments: [{ args: { pattern: "" } }, { args: { pattern: "a", context_lines: 9 } }],
      invalid_path: { args: { pattern: "a", path: "src\0" } },
      outside_workspace: { args: { pattern: "a", path: "../outside" } },
      denied_path: { args: { pattern: "a", path: ".env" } },
      not_found: { args: { pattern: "a", path: "missing.md" } },
      not_a_directory: { args: { pattern: "a", path: "notes.md/inner" } },
      symlink_not_followed: { args: { pattern: "a", path: "link-to-notes" } },
      symlink_loop: { args: { pattern: "a", path: "loop/inner" } },
      unreadable: unreadable({ pattern: "a", path: `${LOCKED_DIR}/inner.txt` }),
      not_a_file: {
        how: "Workspace.readRegularFile when the one file named by path is a directory by the " +
          "time it is read (a swap between the walk and the read)",
        produce: shaped("not_a_file", 'That path is a directory in the workspace "ws".'),
      },
      special_file: { args: { pattern: "a", path: "fifo" } },
      bad_pattern: { args: { pattern: "(a)\\1", regex: true } },
      ...BEYOND_ARGUMENTS,
    },
  },
  find_symbol: {
    benign: { symbol: "log" },
    refused: { args: { symbol: "x", path: "../outside" }, code: "outside_workspace" },
    refusals: {
      invalid_arguments: [{ args: { symbol: "" } }, { args: { symbol: "x", kind: "nope" } }],
      invalid_path: { args: { symbol: "x", path: "src\0" } },
      outside_workspace: { args: { symbol: "x", path: "../outside" } },
      denied_path: { args: { symbol: "x", path: ".env" } },
      not_found: { args: { symbol: "x", path: "missing.md" } },
      not_a_directory: { args: { symbol: "x", path: "notes.md/inner" } },
      symlink_not_followed: { args: { symbol: "x", path: "link-to-notes" } },
      symlink_loop: { args: { symbol: "x", path: "loop/inner" } },
      unreadable: unreadable({ symbol: "x", path: `${LOCKED_DIR}/inner.txt` }),
      special_file: { args: { symbol: "x", path: "fifo" } },
      ...BEYOND_ARGUMENTS,
    },
  },
  project_overview: {
    benign: {},
    refused: { args: { path: "." }, code: "invalid_arguments" },
    refusals: {
      invalid_arguments: { args: { path: "." } },
      ...BEYOND_ARGUMENTS,
    },
  },
  git_log: {
    benign: { limit: 5 },
    refused: { args: { revision: "no-such-branch" }, code: "bad_revision" },
    refusals: {
      invalid_arguments: [{ args: { revision: "--output=/tmp/x" } }, { args: { limit: 0 } }],
      bad_revision: { args: { revision: "no-such-branch" } },
      ...GIT_PATH_CASES,
      ...GIT_BEYOND_WORKSPACE,
      ...BEYOND_ARGUMENTS,
    },
  },
  git_diff: {
    benign: {},
    refused: { args: { revision: "no-such-branch" }, code: "bad_revision" },
    refusals: {
      invalid_arguments: [{ args: { revision: "-c core.pager=sh" } }, {
        args: { context_lines: 99 },
      }],
      bad_revision: { args: { revision: "HEAD..no-such-branch" } },
      ...GIT_PATH_CASES,
      ...GIT_BEYOND_WORKSPACE,
      ...BEYOND_ARGUMENTS,
    },
  },
};

/** Every code `tool` can answer: its own refusals and the universal ones. */
export function answerableCodes(tool: ToolDefinition): RefusalCode[] {
  return [...new Set([...tool.refusals, ...UNIVERSAL_REFUSALS])];
}

/** The cases for `code` of `cases`, as a list. */
export function casesFor(cases: ToolCases, code: RefusalCode): readonly RefusalCase[] {
  const entry = cases.refusals[code];
  if (entry === undefined) return [];
  return Array.isArray(entry) ? entry : [entry as RefusalCase];
}

/**
 * What the table lacks or has in excess for `tools`: a tool without an
 * entry, a code a tool can answer without a case, a case for a code the
 * tool does not declare, an entry for a tool that is not registered.
 */
export function tableProblems(
  tools: readonly ToolDefinition[],
  table: Readonly<Record<string, ToolCases>> = TOOL_CASES,
): string[] {
  const problems: string[] = [];
  for (const tool of tools) {
    const cases = table[tool.name];
    if (!cases) {
      problems.push(`tool ${tool.name} has no entry in TOOL_CASES (tests/helpers/tool_cases.ts)`);
      continue;
    }
    const codes = answerableCodes(tool);
    for (const code of codes) {
      if (casesFor(cases, code).length === 0) {
        problems.push(`tool ${tool.name} can answer ${code} but TOOL_CASES has no case for it`);
      }
    }
    for (const code of Object.keys(cases.refusals) as RefusalCode[]) {
      if (!codes.includes(code)) {
        problems.push(
          `TOOL_CASES gives ${tool.name} a case for ${code}, which the tool does not declare`,
        );
      }
    }
    if (!codes.includes(cases.refused.code)) {
      problems.push(`the refused call of ${tool.name} expects undeclared ${cases.refused.code}`);
    }
  }
  for (const name of Object.keys(table)) {
    if (!tools.some((tool) => tool.name === name)) {
      problems.push(`TOOL_CASES has an entry for ${name}, which is not a registered tool`);
    }
  }
  return problems;
}
