/**
 * The sandbox, tried: builds a small workspace in a temporary folder, with a
 * secret file just outside it, a symlink to that file and one to its folder,
 * a `.env`, a `.git/config`, a private key and a 2 GiB (sparse) log inside;
 * starts the real server on the workspace (`deno task devserver serve`'s
 * flags) and, as a client would, tries to get at each. It prints every
 * attempt with the refusal the model reads, its code and its remedy, then a
 * search over the whole workspace for the secret text, and checks that no
 * response anywhere carried it.
 *
 * Exit 0 when every attempt was refused with the expected code and nothing
 * leaked; 1 otherwise, with the reason.
 *
 * Usage: deno task demo:sandbox
 *
 * @module
 */

import { join } from "node:path";
import {
  type CallResult,
  check,
  indent,
  openSession,
  refusalOf,
  runExample,
  type Session,
  textOf,
} from "./lib/session.ts";

/** The text no response may carry: it is in every file the demo tries to read. */
const SECRET = "the-demo-secret-7f3a91";

/** One escape attempt: what it tries, the call, and the refusal code containment must answer. */
interface Attempt {
  readonly what: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly expect: string;
  /** Start the server with `MCP_SANDBOX__FOLLOW_SYMLINKS=true` for this one. */
  readonly followSymlinks?: boolean;
}

/** The temporary layout: `<tmp>/outside/secret.txt` next to `<tmp>/workspace/`. */
async function buildWorkspace(tmp: string): Promise<{ root: string; outsideFile: string }> {
  const root = join(tmp, "workspace");
  const outside = join(tmp, "outside");
  await Deno.mkdir(join(root, "src"), { recursive: true });
  await Deno.mkdir(join(root, ".git"), { recursive: true });
  await Deno.mkdir(join(root, "config"), { recursive: true });
  await Deno.mkdir(outside);
  const outsideFile = join(outside, "secret.txt");
  await Deno.writeTextFile(outsideFile, `${SECRET}: a file outside the workspace\n`);
  await Deno.writeTextFile(join(root, "README.md"), "# Demo workspace\n");
  await Deno.writeTextFile(join(root, "src", "main.ts"), 'console.log("hello");\n');
  await Deno.writeTextFile(join(root, ".env"), `DATABASE_PASSWORD=${SECRET}\n`);
  await Deno.writeTextFile(
    join(root, ".git", "config"),
    `[remote "origin"]\n\turl = https://user:${SECRET}@example.com/repo.git\n`,
  );
  await Deno.writeTextFile(join(root, "config", "server.key"), `${SECRET}\n`);
  // Sparse: 2 GiB long, no blocks written.
  const huge = await Deno.open(join(root, "huge.log"), { write: true, create: true });
  await huge.truncate(2 * 1024 ** 3);
  huge.close();
  await Deno.symlink(outsideFile, join(root, "notes.txt"));
  await Deno.symlink(outside, join(root, "shared"));
  return { root, outsideFile };
}

function attempts(outsideFile: string): Attempt[] {
  return [
    {
      what: "climb out with ../",
      tool: "read_file",
      args: { path: "../outside/secret.txt" },
      expect: "outside_workspace",
    },
    {
      what: "climb out from a sub-folder",
      tool: "list_directory",
      args: { path: "src/../../outside" },
      expect: "outside_workspace",
    },
    {
      what: "an absolute path",
      tool: "read_file",
      args: { path: outsideFile },
      expect: "outside_workspace",
    },
    {
      what: "a symlink in the workspace to a file outside",
      tool: "read_file",
      args: { path: "notes.txt" },
      expect: "symlink_not_followed",
    },
    {
      what: "the same symlink, with following turned on",
      tool: "read_file",
      args: { path: "notes.txt" },
      expect: "outside_workspace",
      followSymlinks: true,
    },
    {
      what: "through a symlinked folder that leads outside",
      tool: "read_file",
      args: { path: "shared/secret.txt" },
      expect: "outside_workspace",
      followSymlinks: true,
    },
    { what: "the .env file", tool: "read_file", args: { path: ".env" }, expect: "denied_path" },
    {
      what: "repository internals (.git/config)",
      tool: "read_file",
      args: { path: ".git/config" },
      expect: "denied_path",
    },
    {
      what: "a denied name (a private key)",
      tool: "read_file",
      args: { path: "config/server.key" },
      expect: "denied_path",
    },
    {
      what: "listing repository internals",
      tool: "list_directory",
      args: { path: ".git" },
      expect: "denied_path",
    },
    {
      what: "a huge file (2 GiB)",
      tool: "read_file",
      args: { path: "huge.log" },
      expect: "too_large",
    },
  ];
}

/** Every string a result carries, text and structured halves alike. */
function everything(result: CallResult): string {
  return JSON.stringify(result);
}

async function demo(sessions: Session[]): Promise<void> {
  const tmp = await Deno.makeTempDir({ prefix: "devserver-sandbox-demo-" });
  try {
    const { root, outsideFile } = await buildWorkspace(tmp);
    console.log("devserver sandbox demo: a workspace with a secret just outside it");
    console.log(`secret text in every target: ${SECRET}\n`);
    const plain = await openSession(root, {}, "devserver-sandbox-demo");
    sessions.push(plain);
    const following = await openSession(
      root,
      { MCP_SANDBOX__FOLLOW_SYMLINKS: "true" },
      "devserver-sandbox-demo",
    );
    sessions.push(following);

    const list = attempts(outsideFile);
    let refused = 0;
    for (const [i, attempt] of list.entries()) {
      const session = attempt.followSymlinks ? following : plain;
      const result = await session.call(attempt.tool, attempt.args);
      const refusal = refusalOf(result);
      const setting = attempt.followSymlinks ? "  [MCP_SANDBOX__FOLLOW_SYMLINKS=true]" : "";
      // The absolute path is this machine's temporary folder: shown by its shape, not its name.
      const shownArgs = JSON.stringify(attempt.args).replace(tmp, "/tmp/…");
      console.log(`${String(i + 1).padStart(2)}. ${attempt.what}${setting}`);
      console.log(`    ${attempt.tool} ${shownArgs}`);
      check(!everything(result).includes(SECRET), `attempt ${i + 1} returned the secret`);
      check(refusal, `attempt ${i + 1} (${attempt.what}) was not refused:\n${textOf(result)}`);
      check(
        refusal.code === attempt.expect,
        `attempt ${
          i + 1
        } (${attempt.what}) was refused ${refusal.code}, expected ${attempt.expect}`,
      );
      check(!refusal.message.includes(tmp), `attempt ${i + 1}'s refusal shows a resolved path`);
      console.log(`    refused  ${refusal.code}: ${refusal.message}`);
      console.log(`    remedy   ${refusal.remedy}\n`);
      refused++;
    }

    // Not a refusal: a search of the whole workspace simply never sees the denied, linked or
    // outside files.
    const search = await plain.call("search_code", { pattern: SECRET });
    check(!search.isError, `search_code failed: ${textOf(search)}`);
    const found = search.structuredContent as {
      total_matches: number;
      files: unknown[];
      files_scanned: number;
    };
    check(
      found.total_matches === 0 && found.files.length === 0,
      `search_code found the secret: ${textOf(search)}`,
    );
    console.log(`search_code {"pattern":"${SECRET}"} over the whole workspace`);
    console.log(
      indent(
        `${found.total_matches} matches in ${found.files_scanned} files scanned ` +
          "(denied, linked and outside files are never searched)",
      ),
    );

    console.log(
      `\n${refused} of ${list.length} attempts refused with the expected code; ` +
        "no response carried the secret",
    );
    console.log("sandbox demo ok");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

const sessions: Session[] = [];
const code = await runExample(
  "sandbox demo",
  () => demo(sessions),
  () => sessions.map((s) => s.stderr()).join(""),
);
for (const session of sessions) await session.close();
Deno.exit(code);
