/**
 * The body read under its limits with one shared deadline sweep (ADR-080)
 * instead of a timer per request: a stalled or trickling body (slowloris) is
 * still cut off near its deadline, many at once each by its own deadline, an
 * endless body at the size limit, and a finished read leaves nothing watched.
 */

import assert from "node:assert/strict";
import { DeadlineSweep } from "../../src/transport/deadline.ts";
import { readBody } from "../../src/transport/http_body.ts";

function post(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost/mcp", { method: "POST", body, headers });
}

/** A body that sends `first` and then nothing, ever (until cancelled). */
function stalled(first: string): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first));
    },
  });
}

/** A body that sends one byte every `everyMs`, forever. */
function trickle(everyMs: number): ReadableStream<Uint8Array> {
  let timer: ReturnType<typeof setInterval> | undefined;
  return new ReadableStream({
    start(controller) {
      timer = setInterval(() => controller.enqueue(new Uint8Array([0x20])), everyMs);
    },
    cancel() {
      clearInterval(timer);
    },
  });
}

Deno.test("attack: slowloris bodies, stalled and trickling, 20 at once — each is 408 after its deadline, within a tick of it, and nothing stays watched", async () => {
  const deadlines = new DeadlineSweep(20);
  const limits = { maxBytes: 1024, timeoutMs: 150 };
  const started = performance.now();
  const reads = Array.from(
    { length: 20 },
    (_, i) =>
      readBody(post(i % 2 ? stalled('{"jsonrpc":') : trickle(10)), limits, deadlines).then(
        (result) => ({ result, at: performance.now() - started }),
      ),
  );
  for (const { result, at } of await Promise.all(reads)) {
    assert.deepEqual(result, { ok: false, status: 408, code: "body_timeout" });
    assert.ok(at >= 145, `cut off early, after ${at.toFixed(0)} ms`);
    assert.ok(at < 150 + 20 + 400, `cut off late, after ${at.toFixed(0)} ms`);
  }
  assert.equal(deadlines.pending, 0);
});

Deno.test("http body: a body that arrives in time is read whole, in one or many chunks, and unwatched", async () => {
  const deadlines = new DeadlineSweep(20);
  const limits = { maxBytes: 1024, timeoutMs: 5000 };
  const one = await readBody(post('{"a":1}'), limits, deadlines);
  assert.ok(one.ok);
  assert.equal(new TextDecoder().decode(one.bytes), '{"a":1}');
  const parts = ["{", '"b"', ":", "2}"];
  const many = await readBody(
    post(
      new ReadableStream({
        pull(controller) {
          const next = parts.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(next));
        },
      }),
    ),
    limits,
    deadlines,
  );
  assert.ok(many.ok);
  assert.equal(new TextDecoder().decode(many.bytes), '{"b":2}');
  const empty = await readBody(post(null), limits, deadlines);
  assert.ok(empty.ok && empty.bytes.byteLength === 0);
  assert.equal(deadlines.pending, 0);
});

Deno.test("attack: an endless body without Content-Length is cut at the size limit, an oversized declared one refused unread", async () => {
  const deadlines = new DeadlineSweep(20);
  const limits = { maxBytes: 4096, timeoutMs: 5000 };
  let sent = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      sent += 1024;
      controller.enqueue(new Uint8Array(1024));
    },
  });
  const cut = await readBody(post(endless), limits, deadlines);
  assert.deepEqual(cut, { ok: false, status: 413, code: "body_too_large" });
  assert.ok(sent <= 4096 + 3 * 1024, `read ${sent} bytes`);
  const declared = await readBody(
    post(stalled("x"), { "content-length": "5000" }),
    limits,
    deadlines,
  );
  assert.deepEqual(declared, { ok: false, status: 413, code: "body_too_large" });
  const bad = await readBody(post("x", { "content-length": "1e3" }), limits, deadlines);
  assert.deepEqual(bad, { ok: false, status: 400, code: "bad_length" });
  assert.equal(deadlines.pending, 0);
});
