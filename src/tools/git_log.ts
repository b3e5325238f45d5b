/**
 * `git_log`: commits of the workspace's repository, newest first, as
 * `{commit, short, author, authored_at, subject}`, with an optional
 * revision or range, path, date bounds and message filter. Revisions are
 * resolved to commits before use; subjects and names are untrusted.
 * Schema, handler, result.
 *
 * @module
 */

import { z } from "zod";
import { CappedOutput } from "../access/git.ts";
import { GIT_REFUSALS, gitDeadline, GitRepository } from "../access/git_repository.ts";
import {
  checkDate,
  checkGrep,
  DATE_SCHEMA_PATTERN,
  GREP_MAX_CHARS,
  GREP_PATTERN,
  parseRevisionSpec,
  REVISION_MAX_CHARS,
  REVISION_PATTERN,
} from "../access/git_revision.ts";
import { PATH_LIMITS, PATH_REFUSALS } from "../access/resolve.ts";
import { rawResultChars, toolBudget } from "../contract/budget.ts";
import { CONTENT_ENVELOPE_SHAPE } from "../contract/envelope.ts";
import type { RawToolResult } from "../contract/result.ts";
import { escapeControlCharacters, EscapedNames } from "../contract/text.ts";
import type { ToolContext, ToolDefinition } from "./types.ts";

/** Most commits one call returns. */
export const GIT_LOG_MAX_LIMIT = 200;

const Revision = z.string().max(REVISION_MAX_CHARS).regex(REVISION_PATTERN);
const DateBound = z.string().max(40).regex(DATE_SCHEMA_PATTERN);

/** Arguments of `git_log`. */
export const GitLogInput = z.strictObject({
  limit: z.int().min(1).max(GIT_LOG_MAX_LIMIT).optional().describe(
    "Commits to return, default 20.",
  ),
  revision: Revision.optional().describe("Revision or range (A..B, A...B); default HEAD."),
  path: z.string().max(PATH_LIMITS.maxLength).optional().describe("Only commits touching it."),
  since: DateBound.optional().describe('YYYY-MM-DD[THH:MM[:SS][Z]] (UTC) or "N days ago".'),
  until: DateBound.optional().describe("Same forms as since."),
  grep: z.string().max(GREP_MAX_CHARS).regex(GREP_PATTERN).optional().describe(
    "Message contains this (literal, any case).",
  ),
  cursor: z.string().max(2048).optional().describe(
    "next_cursor of a call with the same arguments.",
  ),
});

const Commit = z.strictObject({
  commit: z.string(),
  short: z.string(),
  author: z.string(),
  authored_at: z.string(),
  subject: z.string(),
});

/** The `structuredContent` of a successful `git_log`. */
export const GitLogOutput = z.strictObject({
  revision: z.string(),
  path: z.string().optional(),
  commits: z.array(Commit),
  truncated: z.boolean(),
  next_cursor: z.string().optional(),
  ...CONTENT_ENVELOPE_SHAPE,
});

type GitLogArgs = z.infer<typeof GitLogInput>;
type CommitRecord = z.infer<typeof Commit>;

interface LogCursor {
  t: "git_log";
  r: string[];
  q: string;
  o: number;
}

const FIELDS = 5;
const FORMAT = "--format=%H%x00%h%x00%an%x00%aI%x00%s";

async function gitLog(args: GitLogArgs, ctx: ToolContext): Promise<RawToolResult> {
  const deadline = gitDeadline(ctx.limits.timeoutMs);
  const limit = args.limit ?? 20;
  const revisionText = args.revision ?? "HEAD";
  const spec = parseRevisionSpec(revisionText); // again: the schema may have been loosened
  const since = args.since === undefined
    ? undefined
    : dayBound(checkDate("since", args.since), "T00:00:00");
  const until = args.until === undefined
    ? undefined
    : dayBound(checkDate("until", args.until), "T23:59:59");
  const grep = args.grep === undefined ? undefined : checkGrep(args.grep);
  const target = args.path === undefined ? undefined : ctx.workspace.resolve(args.path);
  const pathspec = target && target.relative !== "" ? target.relative : undefined;

  const repo = GitRepository.open(ctx.git, ctx.stop, deadline);
  let revs: string[];
  if (spec.kind === "single") {
    if (args.revision === undefined) {
      const head = await repo.commitOf("HEAD");
      if (head === null) return emptyHistory(revisionText, pathspec);
      revs = [head];
    } else {
      revs = [await repo.requireCommit(spec.rev, revisionText)];
    }
  } else {
    const from = await repo.requireCommit(spec.from, revisionText);
    const to = await repo.requireCommit(spec.to, revisionText);
    revs = [`${from}${spec.dots === 3 ? "..." : ".."}${to}`];
  }

  // What a cursor is bound to: the resolved commits and every filter.
  const query = JSON.stringify([pathspec ?? "", since ?? "", until ?? "", grep ?? ""]);
  let skip = 0;
  if (args.cursor !== undefined) {
    const opened = await ctx.cursors.open(args.cursor);
    if (!opened.ok) return opened.result;
    const payload = opened.payload as LogCursor;
    if (
      payload.t !== "git_log" || payload.q !== query || !Array.isArray(payload.r) ||
      payload.r.join(" ") !== revs.join(" ") || !Number.isInteger(payload.o) || payload.o < 0
    ) {
      return {
        kind: "invalid_params",
        message:
          "Invalid cursor: it belongs to other arguments, or the revision moved since; call again without it.",
      };
    }
    skip = payload.o;
  }

  const out = new CappedOutput(undefined, 0);
  const run = await repo.run([
    "log",
    "--no-show-signature",
    "--no-mailmap",
    "--no-decorate",
    "--no-color",
    "--encoding=UTF-8",
    "-z",
    FORMAT,
    `--skip=${skip}`,
    `--max-count=${limit + 1}`,
    ...(since !== undefined ? [`--since=${since}`] : []),
    ...(until !== undefined ? [`--until=${until}`] : []),
    ...(grep !== undefined ? [`--grep=${grep}`, "--fixed-strings", "--regexp-ignore-case"] : []),
    "--end-of-options",
    ...revs,
    "--",
    ...(pathspec !== undefined ? [pathspec] : []),
  ], out);
  const stoppedAtDeadline = run.killed === "deadline";
  if (run.killed !== undefined && run.killed !== "enough" && !stoppedAtDeadline) {
    throw repo.failure(run, "the log was stopped");
  }
  if (run.code !== 0 && run.killed === undefined) throw repo.failure(run, "the log failed");

  const fields = new TextDecoder().decode(out.bytes(stoppedAtDeadline)).split("\0");
  const records: CommitRecord[] = [];
  for (let i = 0; i + FIELDS <= fields.length; i += FIELDS) {
    const [commit, short, author, authored_at, subject] = fields.slice(i, i + FIELDS);
    if (!/^[0-9a-f]{40,64}$/.test(commit)) break;
    records.push({ commit, short, author, authored_at, subject });
  }
  let more = records.length > limit || out.capped || stoppedAtDeadline;
  if (records.length > limit) records.length = limit;

  // Fit the response budget: whole commits only.
  const budget = toolBudget(ctx.limits);
  const base = rawResultChars([{ text: "x".repeat(400), untrusted: false }], {
    revision: revisionText,
    path: pathspec,
    commits: [],
    truncated: true,
    next_cursor: "x".repeat(400),
  });
  let spent = base;
  let kept = 0;
  for (const record of records) {
    const cost = JSON.stringify(record).length + 1 +
      renderCommit(record, escapeControlCharacters).length + 1;
    if (spent + cost > budget) break;
    spent += cost;
    kept++;
  }
  if (kept < records.length) more = true;
  const commits = records.slice(0, kept);
  const nextCursor = more && kept > 0
    ? await ctx.cursors.sign(
      { t: "git_log", r: revs, q: query, o: skip + kept } satisfies LogCursor,
    )
    : undefined;

  const notes: string[] = [];
  if (stoppedAtDeadline) notes.push("git was stopped at the call's time budget");
  if (out.capped) notes.push("git's output passed 256 KiB and was cut at a record boundary");
  if (more) {
    notes.push(nextCursor ? "more commits: call again with next_cursor" : "narrow the request");
  }
  const header = `git_log ${escapeControlCharacters(revisionText)}${
    pathspec ? ` -- ${escapeControlCharacters(pathspec)}` : ""
  }: ${commits.length} commit${commits.length === 1 ? "" : "s"}${
    notes.length ? `; ${notes.join("; ")}` : ""
  }.`;
  const names = new EscapedNames();
  const listed = commits.map((c) => renderCommit(c, names.escape)).join("\n");
  return {
    kind: "ok",
    parts: [
      { text: header, untrusted: false },
      ...(commits.length
        ? [{
          text: listed,
          untrusted: true as const,
          label: "commit-messages" as const,
          escaped: names.list,
        }]
        : []),
    ],
    structured: {
      revision: revisionText,
      ...(pathspec !== undefined ? { path: pathspec } : {}),
      commits,
      truncated: more,
      ...(nextCursor ? { next_cursor: nextCursor } : {}),
    },
  };
}

/**
 * git reads a bare date as that day at the current time of day; a bound
 * given as a day means its start (since) or its end (until), in UTC (git
 * runs with no TZ).
 */
function dayBound(date: string, time: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(date) ? date + time : date;
}

function emptyHistory(revision: string, pathspec: string | undefined): RawToolResult {
  return {
    kind: "ok",
    parts: [{ text: "git_log: the repository has no commits yet.", untrusted: false }],
    structured: {
      revision,
      ...(pathspec !== undefined ? { path: pathspec } : {}),
      commits: [],
      truncated: false,
    },
  };
}

/** One commit's line; `escape` is how its author and subject are escaped (and noted). */
function renderCommit(c: CommitRecord, escape: (text: string) => string): string {
  return `${c.short} ${c.authored_at} ${escape(c.author)}: ${escape(c.subject)}`;
}

/** The `git_log` tool. */
export const gitLogTool: ToolDefinition = {
  name: "git_log",
  title: "Git log",
  description:
    "Commits of the workspace repository, newest first (SHA, author, ISO date, subject), by revision or range, path, dates, message text. Paginated. Subjects and names are untrusted data.",
  input: GitLogInput,
  output: GitLogOutput,
  refusals: [...PATH_REFUSALS, ...GIT_REFUSALS],
  run: gitLog as ToolDefinition["run"],
};
