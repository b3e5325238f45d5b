/**
 * The HTTP call cap and its bounded wait queue (ADR-079): never more than
 * `limit` holders, never more than `maxQueued` waiters (a flood beyond both
 * is refused at once, so it cannot grow memory), places handed on in
 * arrival order, and a waiter that gives up (its deadline, its client gone)
 * leaves the queue without ever taking a place.
 */

import assert from "node:assert/strict";
import { type Admission, CallGate, type Wait } from "../../src/transport/http_gate.ts";

const LONG = 60_000;

function pending(admission: Admission): Promise<Wait> {
  assert.ok(admission instanceof Promise, `expected a wait, got ${admission}`);
  return admission;
}

/** Settled values of `promises` so far (undefined while pending), after the microtasks ran. */
async function settledSoFar(promises: Promise<Wait>[]): Promise<(Wait | undefined)[]> {
  const seen: (Wait | undefined)[] = promises.map(() => undefined);
  promises.forEach((p, i) => p.then((v) => seen[i] = v));
  await new Promise((resolve) => setTimeout(resolve, 0));
  return seen;
}

Deno.test("attack: a flood of calls against a cap of 2 and a queue of 3 — the 6th and every later one is refused at once, nothing more is held", async () => {
  const gate = new CallGate(2, 3);
  const signal = new AbortController().signal;
  assert.equal(gate.enter(signal, LONG), "entered");
  assert.equal(gate.enter(signal, LONG), "entered");
  const waits = [1, 2, 3].map(() => pending(gate.enter(signal, LONG)));
  for (let i = 0; i < 1000; i++) assert.equal(gate.enter(signal, LONG), "full");
  assert.equal(gate.held, 2);
  assert.equal(gate.queued, 3);
  assert.equal(gate.tryEnter(), false, "tryEnter must not jump the queue");
  // Drain: each leave hands the place to one waiter, then the places are freed.
  for (let i = 0; i < 5; i++) gate.leave();
  assert.deepEqual(await Promise.all(waits), ["entered", "entered", "entered"]);
  assert.equal(gate.held, 0);
  assert.equal(gate.queued, 0);
});

Deno.test("http gate: queued calls get their place in arrival order, one per leave", async () => {
  const gate = new CallGate(1, 10);
  const signal = new AbortController().signal;
  assert.equal(gate.enter(signal, LONG), "entered");
  const waits = Array.from({ length: 5 }, () => pending(gate.enter(signal, LONG)));
  const order: number[] = [];
  waits.forEach((w, i) => w.then(() => order.push(i)));
  for (let i = 0; i < 5; i++) {
    gate.leave();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(order, Array.from({ length: i + 1 }, (_, k) => k));
    assert.equal(gate.held, 1, "the place passes on, it is not freed for a newcomer");
  }
  gate.leave();
  assert.equal(gate.held, 0);
});

Deno.test("attack: a client that disconnects while its call is queued — the call leaves the queue and never gets a place", async () => {
  const gate = new CallGate(1, 3);
  const free = new AbortController().signal;
  const gone = new AbortController();
  assert.equal(gate.enter(free, LONG), "entered");
  const first = pending(gate.enter(gone.signal, LONG));
  const second = pending(gate.enter(free, LONG));
  gone.abort();
  assert.equal(await first, "gone");
  assert.equal(gate.queued, 1);
  gate.leave();
  assert.deepEqual(await settledSoFar([first, second]), ["gone", "entered"]);
  assert.equal(gate.held, 1);
  // An already aborted client is not queued at all.
  const late = new AbortController();
  late.abort();
  assert.equal(gate.enter(late.signal, LONG), "full");
  assert.equal(gate.queued, 0);
});

Deno.test("http gate: a queued call waits at most its deadline, then leaves the queue without a place", async () => {
  const gate = new CallGate(1, 2);
  const signal = new AbortController().signal;
  assert.equal(gate.enter(signal, LONG), "entered");
  const started = performance.now();
  const wait = pending(gate.enter(signal, 30));
  assert.equal(await wait, "timed_out");
  assert.ok(performance.now() - started >= 25, "it waited for its deadline");
  assert.equal(gate.queued, 0);
  gate.leave();
  assert.equal(gate.held, 0, "the timed-out waiter took no place");
});

Deno.test("http gate: with no queue a call over the cap is refused at once", () => {
  const gate = new CallGate(1);
  const signal = new AbortController().signal;
  assert.equal(gate.enter(signal, LONG), "entered");
  assert.equal(gate.enter(signal, LONG), "full");
  assert.throws(() => new CallGate(1, -1), RangeError);
  assert.throws(() => new CallGate(0, 1), RangeError);
});
