/**
 * Attacks through result shaping: a file built to make a redaction rule
 * backtrack would stall every other request. Since ADR-074 redaction and
 * assessment run in the tool worker, inside the call's budget, rather than
 * on the main thread; either way shaping must stay linear and fast.
 */

import assert from "node:assert/strict";
import { makeWorkspace, startServer } from "../helpers/fixtures.ts";
import { allText, FAST_DEADLINE_MS, HANG_DEADLINE_MS, within } from "./helpers.ts";

const SIZE = 1_000_000;
const fill = (bait: string) => bait.repeat(Math.ceil(SIZE / bait.length)).slice(0, SIZE);

/** Baits for the old rules (JWT backtracking, the PEM body scan) and the new ones. */
const HOSTILE: Record<string, string> = {
  "jwt.txt": fill("eyJ-"),
  "pem.txt": fill("-----BEGIN RSA PRIVATE KEY-----\n"),
  "pem_line.txt": fill("-----BEGIN RSA PRIVATE KEY----- "),
  "ghp.txt": fill("ghp_"),
  "akia.txt": fill("AKIA"),
  "sk.txt": fill("sk-"),
  "assign.txt": fill("password=password="),
  "auth.txt": fill("Authorization: "),
  "url.txt": fill("://a:"),
  "inject.txt": fill("ignore all previous instructions "),
};

Deno.test("attack: 1 MiB files built to make redaction backtrack do not stall other requests", async () => {
  await using ws = await makeWorkspace({ ...HOSTILE, "small.txt": "alpha\n" });
  using server = startServer(ws.root);
  const call = (path: string) => server.dispatcher.call("read_file", { path });
  // Warm up: the first call also pays for starting the workers.
  await within(call("small.txt"), HANG_DEADLINE_MS, "warm-up");

  const hostile = Object.keys(HOSTILE).map((path) => call(path));
  // A benign call queued behind ten hostile reads is answered promptly: shaping them all costs
  // well under the deadline (the old rules took about 5 s of main-thread CPU for one of them).
  const benign = await within(call("small.txt"), FAST_DEADLINE_MS, "a benign read behind them");
  assert.match(allText(benign), /1\talpha/);
  const results = await within(Promise.all(hostile), HANG_DEADLINE_MS, "the hostile reads");
  for (const result of results) {
    assert.equal(result.isError, undefined, allText(result).slice(0, 200));
  }
});
