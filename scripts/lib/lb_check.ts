/**
 * The scale-out proof (issue 11, "Beyond one machine"): nginx round-robin in
 * front of two devserver HTTP instances, each over its own copy of one
 * fixture repository, and an interleaved stream of requests — discover,
 * list, tool calls, a paginated listing whose cursor one instance issues
 * and the other redeems — every answer compared with the answer of a
 * single instance to the same request.
 *
 * @module
 */

import { join } from "node:path";
import { git } from "../../tests/helpers/git_repo.ts";
import { MODERN_PROTOCOL_VERSION, PROTOCOL_VERSION_META_KEY } from "../../src/version.ts";
import { type HttpInstance, postMcp, startHttpInstance } from "./http_instance.ts";
import { startNginx } from "./nginx.ts";

/** What a run found. */
export interface LbReport {
  /** The program each instance ran. */
  readonly program: string;
  readonly requests: number;
  /** Requests whose answer through nginx differs from the single instance's (empty: all equal). */
  readonly mismatches: { step: string; upstream: string; detail: string }[];
  /** How many steps redeem an earlier step's cursor. */
  readonly cursorSteps: number;
  /** Listing pages whose cursor was issued by one upstream and redeemed by the other. */
  readonly crossRedeems: {
    step: string;
    issuedBy: string;
    redeemedBy: string;
    ok: boolean;
    /** The JSON-RPC error when the redeeming instance refused the cursor. */
    error?: { code: number; message: string };
  }[];
  /** How many requests each upstream served. */
  readonly perUpstream: Record<string, number>;
}

/** Options of {@linkcode runLbCheck}. */
export interface LbOptions {
  /** Give both instances the same `MCP_SERVER__CURSOR_KEY_FILE` (the correct setup). */
  readonly shareKey: boolean;
  /** Called with progress lines. */
  readonly log?: (line: string) => void;
}

/** The fixture repository: enough entries for several listing pages, code to search. */
export const FIXTURE_FILES: Record<string, string> = {
  "README.md": "# fixture\n\nA repository served by two instances.\n",
  "src/main.ts": "export function greet(name: string): string {\n  return `hello ${name}`;\n}\n",
  "src/util.ts": "export const answer = 42;\nexport class Counter { count = 0; }\n",
  ...Object.fromEntries(
    Array.from({ length: 23 }, (_, i) => [
      `notes/note-${String(i).padStart(2, "0")}.txt`,
      `note ${i}: greet the reader\n`,
    ]),
  ),
};

/** The page size both instances use, so the notes directory takes several pages. */
export const PAGE_SIZE = 5;

const META = {
  [PROTOCOL_VERSION_META_KEY]: MODERN_PROTOCOL_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
};

/**
 * Makes the origin repository and `count` independent clones of it (their
 * own checkouts: different inodes and directory mtimes) under `base`.
 */
export async function makeCheckouts(base: string, count: number): Promise<string[]> {
  const origin = join(base, "origin");
  for (const [path, text] of Object.entries(FIXTURE_FILES)) {
    await Deno.mkdir(join(origin, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(origin, path), text);
  }
  await git(origin, ["init", "-q", "-b", "main"]);
  await git(origin, ["add", "-A"]);
  await git(origin, ["commit", "-q", "-m", "fixture"]);
  await Deno.writeTextFile(join(origin, "src/util.ts"), FIXTURE_FILES["src/util.ts"] + "// wip\n");
  await git(origin, ["commit", "-q", "-am", "second"]);
  const checkouts: string[] = [];
  for (let i = 0; i < count; i++) {
    const dir = join(base, `checkout-${i}`);
    // Apart in time, so a fingerprint made from directory mtimes would differ.
    await new Promise((r) => setTimeout(r, 20));
    await git(base, ["clone", "-q", origin, dir]);
    checkouts.push(dir);
  }
  return checkouts;
}

/** One request of the stream; `cursorFrom` names an earlier step whose next_cursor it redeems. */
interface Step {
  readonly name: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly cursorFrom?: string;
}

/** The interleaved stream: each kind of request, listing pages between the others. */
export function requestStream(): Step[] {
  const call = (
    name: string,
    tool: string,
    args: Record<string, unknown>,
    cursorFrom?: string,
  ) => ({
    name,
    method: "tools/call",
    params: { name: tool, arguments: args },
    cursorFrom,
  });
  // Strict round-robin over two upstreams sends request k to upstream k mod 2:
  // successive pages sit an odd number of places apart, so each cursor is
  // redeemed by the instance that did not issue it.
  return [
    { name: "discover", method: "server/discover", params: {} },
    call("page 1", "list_directory", { path: "notes" }),
    { name: "tools/list", method: "tools/list", params: {} },
    call("read_file", "read_file", { path: "src/main.ts" }),
    call("page 2", "list_directory", { path: "notes" }, "page 1"),
    call("page 3", "list_directory", { path: "notes" }, "page 2"),
    call("search_code", "search_code", { pattern: "greet" }),
    call("find_symbol", "find_symbol", { symbol: "Counter" }),
    call("page 4", "list_directory", { path: "notes" }, "page 3"),
    call("project_overview", "project_overview", {}),
    call("git_log", "git_log", {}),
    call("page 5", "list_directory", { path: "notes" }, "page 4"),
    call("git_diff", "git_diff", { revision: "HEAD~1" }),
    call("root listing", "list_directory", {}),
    { name: "tools/list again", method: "tools/list", params: {} },
    { name: "discover again", method: "server/discover", params: {} },
  ];
}

/** A fence nonce is random per result; everything else must be equal byte for byte. */
export function normalise(value: unknown): string {
  return JSON.stringify(value).replace(/(<\/?untrusted-[a-z-]+ id=)[0-9a-f]{32}>/g, "$1N>");
}

interface Answer {
  readonly upstream: string;
  readonly message: Record<string, unknown>;
}

async function send(
  url: string,
  id: number,
  step: Step,
  cursor: string | undefined,
): Promise<Answer> {
  const params = structuredClone(step.params);
  if (cursor !== undefined) (params.arguments as Record<string, unknown>).cursor = cursor;
  const message = { jsonrpc: "2.0", id, method: step.method, params: { ...params, _meta: META } };
  const answer = await fetchWithUpstream(url, message);
  return answer;
}

async function fetchWithUpstream(url: string, message: Record<string, unknown>): Promise<Answer> {
  const response = await postMcp(url, message);
  const upstream = response.headers.get("x-upstream") ?? "direct";
  const text = await response.text();
  const contentType = response.headers.get("content-type") ?? "";
  const data = contentType.startsWith("text/event-stream")
    ? text.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).at(-1)
    : text;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(data ?? "");
  } catch {
    parsed = { unparsable: text.slice(0, 200), status: response.status };
  }
  return { upstream, message: parsed };
}

function nextCursor(message: Record<string, unknown>): string | undefined {
  const result = message.result as { structuredContent?: { next_cursor?: unknown } } | undefined;
  const cursor = result?.structuredContent?.next_cursor;
  return typeof cursor === "string" ? cursor : undefined;
}

/** The check: two instances behind nginx against one instance alone. */
export async function runLbCheck(options: LbOptions): Promise<LbReport> {
  const log = options.log ?? (() => {});
  const base = await Deno.makeTempDir({ prefix: "devserver-lb-" });
  const instances: HttpInstance[] = [];
  try {
    const checkouts = await makeCheckouts(base, 3);
    const keyFile = join(base, "cursor.key");
    await Deno.writeFile(keyFile, crypto.getRandomValues(new Uint8Array(32)), { mode: 0o600 });
    const env = (shared: boolean): Record<string, string> => ({
      MCP_SANDBOX__LIST_PAGE_SIZE: String(PAGE_SIZE),
      ...(shared ? { MCP_SERVER__CURSOR_KEY_FILE: keyFile } : {}),
    });
    // The reference: one instance alone over its own checkout, with the shared key.
    const started = await Promise.all([
      startHttpInstance(checkouts[0], env(true)),
      startHttpInstance(checkouts[1], env(options.shareKey)),
      startHttpInstance(checkouts[2], env(options.shareKey)),
    ]);
    instances.push(...started);
    const [single, a, b] = started;
    log(`instances: ${started.map((i) => i.url).join(", ")} (${single.program})`);
    const hostPort = (u: string) => new URL(u).host;
    await using nginx = await startNginx([hostPort(a.url), hostPort(b.url)]);
    log(`nginx: ${nginx.url} round-robin over ${hostPort(a.url)}, ${hostPort(b.url)}`);

    const steps = requestStream();
    const viaLb = new Map<string, Answer>();
    const alone = new Map<string, Answer>();
    const mismatches: LbReport["mismatches"] = [];
    const crossRedeems: LbReport["crossRedeems"] = [];
    const perUpstream: Record<string, number> = {};
    let id = 1;
    for (const step of steps) {
      const earlier = (answers: Map<string, Answer>) => {
        const message = step.cursorFrom ? answers.get(step.cursorFrom)?.message : undefined;
        return message ? nextCursor(message) : undefined;
      };
      const lbCursor = earlier(viaLb);
      const aloneCursor = earlier(alone);
      if (step.cursorFrom && (lbCursor === undefined || aloneCursor === undefined)) {
        mismatches.push({ step: step.name, upstream: "-", detail: "no next_cursor to redeem" });
        continue;
      }
      const reference = await send(single.url, id, step, aloneCursor);
      const answer = await send(nginx.url, id, step, lbCursor);
      id++;
      alone.set(step.name, reference);
      viaLb.set(step.name, answer);
      perUpstream[answer.upstream] = (perUpstream[answer.upstream] ?? 0) + 1;
      const expected = normalise(reference.message);
      const got = normalise(answer.message);
      if (expected !== got) {
        mismatches.push({
          step: step.name,
          upstream: answer.upstream,
          detail: `expected ${expected.slice(0, 300)}… got ${got.slice(0, 300)}…`,
        });
      }
      if (step.cursorFrom) {
        const issuedBy = viaLb.get(step.cursorFrom)!.upstream;
        if (issuedBy !== answer.upstream) {
          crossRedeems.push({
            step: step.name,
            issuedBy,
            redeemedBy: answer.upstream,
            ok: "result" in answer.message && !("error" in answer.message),
            ...(answer.message.error
              ? { error: answer.message.error as { code: number; message: string } }
              : {}),
          });
        }
      }
      log(
        `${step.name.padEnd(18)} → ${answer.upstream} ${expected === got ? "equal" : "DIFFERENT"}`,
      );
    }
    return {
      program: single.program,
      requests: id - 1,
      cursorSteps: steps.filter((s) => s.cursorFrom).length,
      mismatches,
      crossRedeems,
      perUpstream,
    };
  } finally {
    await Promise.all(instances.map((i) => i.close()));
    await Deno.remove(base, { recursive: true }).catch(() => {});
  }
}

/** The verdict: every answer equal, and at least one cursor redeemed across instances. */
export function lbVerdict(report: LbReport): string[] {
  const problems = report.mismatches.map((m) => `${m.step} (via ${m.upstream}): ${m.detail}`);
  if (report.crossRedeems.length !== report.cursorSteps) {
    problems.push(
      `${report.crossRedeems.length} of ${report.cursorSteps} cursors were redeemed by an instance other than their issuer`,
    );
  }
  for (const r of report.crossRedeems.filter((r) => !r.ok)) {
    problems.push(`${r.step}: cursor issued by ${r.issuedBy} refused by ${r.redeemedBy}`);
  }
  if (Object.keys(report.perUpstream).length < 2) {
    problems.push(`only one upstream served requests: ${JSON.stringify(report.perUpstream)}`);
  }
  return problems;
}
