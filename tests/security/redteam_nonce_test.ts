/**
 * Red team of ADR-099's nonce pool (`newNonce`: 1 KiB of random bytes, 16 a
 * nonce, zeroed once used). Attacks: a nonce that shares bytes with an earlier
 * one (a pool stepped by less than 16 bytes, read past its end, or refilled
 * only in part would let an earlier answer predict part of the next fence),
 * and two tool workers whose pools repeat each other (a copied module state
 * rather than each its own draw), seen through the real server's answers.
 */

import assert from "node:assert/strict";
import { newNonce } from "../../src/content/fence.ts";
import { makeWorkspace, startServer, textOf } from "../helpers/fixtures.ts";
import { HANG_DEADLINE_MS, within } from "./helpers.ts";

/** Every 8-byte run of a nonce (16 hex digits at a byte boundary), with the nonce it came from. */
function windowsOf(nonces: readonly string[]): Map<string, number> {
  const owner = new Map<string, number>();
  nonces.forEach((nonce, n) => {
    for (let at = 0; at + 16 <= nonce.length; at += 2) {
      const window = nonce.slice(at, at + 16);
      const earlier = owner.get(window);
      assert.ok(
        earlier === undefined || earlier === n,
        `nonces ${earlier} and ${n} share the 8 bytes ${window}: bytes served twice`,
      );
      owner.set(window, n);
    }
  });
  return owner;
}

Deno.test("nonce pool, attack: no nonce shares any 8 bytes with another across 100 refills, and none holds 8 wiped (zero) bytes, so an earlier answer's nonce predicts nothing of a later one", () => {
  const nonces = Array.from({ length: 64 * 100 + 7 }, () => newNonce());
  for (const nonce of nonces) {
    assert.match(nonce, /^[0-9a-f]{32}$/);
    assert.ok(!nonce.includes("0".repeat(16)), `a nonce with wiped bytes: ${nonce}`);
  }
  windowsOf(nonces);
  // Nonces either side of a refill (the 64th and 65th of a batch) are unrelated too.
  for (let k = 63; k + 1 < nonces.length; k += 64) {
    assert.notEqual(nonces[k].slice(16), nonces[k + 1].slice(0, 16));
  }
});

Deno.test("nonce pool, attack through the real workers: answers spread over the pool's workers never share a nonce or any 8 bytes of one (each worker draws its own pool)", async () => {
  await using ws = await makeWorkspace({ "n.txt": "plain text\n" });
  using server = startServer(ws.root);
  await within(server.sandbox.ready, HANG_DEADLINE_MS, "the pool warming up");
  const nonces: string[] = [];
  for (let round = 0; round < 10; round++) {
    // Calls in flight at once, so both workers answer some of each round.
    const results = await Promise.all(
      Array.from({ length: 30 }, () => server.dispatcher.call("read_file", { path: "n.txt" })),
    );
    for (const result of results) {
      const text = textOf(result);
      const match = /<untrusted-file-content id=([0-9a-f]{32})>/.exec(text);
      assert.ok(match, text);
      assert.equal(text.split(match[1]).length, 3, "the nonce is in the two markers only");
      nonces.push(match[1]);
    }
  }
  assert.equal(new Set(nonces).size, nonces.length, "a nonce repeated");
  windowsOf(nonces);
});
