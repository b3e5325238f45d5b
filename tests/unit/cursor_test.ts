import assert from "node:assert/strict";
import { CursorCodec, InvalidCursor } from "../../src/tools/cursor.ts";

const key = (fill: number) => new Uint8Array(32).fill(fill);

/** Flips one base64url character in the middle of `part` (never a padding-only bit). */
function flipMiddle(part: string): string {
  const i = Math.floor(part.length / 2);
  const replacement = part[i] === "A" ? "B" : "A";
  return part.slice(0, i) + replacement + part.slice(i + 1);
}

async function assertInvalid(codec: CursorCodec, cursor: string, message?: RegExp) {
  await assert.rejects(() => codec.verify(cursor), (error: unknown) => {
    assert.ok(error instanceof InvalidCursor, `expected InvalidCursor, got ${error}`);
    assert.equal(error.name, "InvalidCursor");
    if (message) assert.match(error.message, message);
    return true;
  });
}

Deno.test("cursor: a signed payload verifies to an equal value", async () => {
  const codec = new CursorCodec(key(7));
  const payload = { p: "src/ü", h: false, o: 500, f: "1700000000000:12" };
  const cursor = await codec.sign(payload);
  assert.match(cursor, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  assert.deepEqual(await codec.verify(cursor), payload);
  assert.deepEqual(await codec.verify(await codec.sign([1, "two", null])), [1, "two", null]);
});

Deno.test("cursor: a key shorter than 32 bytes is refused", () => {
  assert.throws(() => new CursorCodec(new Uint8Array(31)), RangeError);
});

Deno.test("cursor: a tampered body fails the signature", async () => {
  const codec = new CursorCodec(key(1));
  const [body, mac] = (await codec.sign({ p: "", h: false, o: 2, f: "x" })).split(".");
  await assertInvalid(codec, `${flipMiddle(body)}.${mac}`, /signature does not match/);
});

Deno.test("cursor: a payload re-encoded with a different offset fails the signature", async () => {
  const codec = new CursorCodec(key(1));
  const [, mac] = (await codec.sign({ p: "", h: false, o: 2, f: "x" })).split(".");
  const forged = btoa(JSON.stringify({ p: "", h: false, o: 0, f: "x" }))
    .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  await assertInvalid(codec, `${forged}.${mac}`, /signature does not match/);
});

Deno.test("cursor: a tampered MAC fails the signature", async () => {
  const codec = new CursorCodec(key(1));
  const [body, mac] = (await codec.sign({ o: 2 })).split(".");
  await assertInvalid(codec, `${body}.${flipMiddle(mac)}`, /signature does not match/);
  await assertInvalid(codec, `${body}.${mac.slice(0, -4)}`, /signature does not match/);
  await assertInvalid(codec, `${body}.`);
});

Deno.test("cursor: a cursor signed with another key is refused", async () => {
  const cursor = await new CursorCodec(key(1)).sign({ o: 2 });
  await assertInvalid(new CursorCodec(key(2)), cursor, /signature does not match/);
});

Deno.test("cursor: malformed strings are refused as InvalidCursor", async () => {
  const codec = new CursorCodec(key(3));
  const good = await codec.sign({ o: 1 });
  for (
    const cursor of [
      "",
      "no-dot",
      "a.b.c",
      `${good}.extra`,
      "!!!.???",
      "a b.cd",
      "a.b", // one base64 character: not decodable
      "abc=.def", // padding is not base64url
    ]
  ) {
    await assertInvalid(codec, cursor);
  }
});

Deno.test("cursor: a correctly signed body that is not JSON is refused as malformed", async () => {
  const keyBytes = key(9);
  const codec = new CursorCodec(keyBytes);
  const body = new TextEncoder().encode("{not json");
  const hmac = await crypto.subtle.importKey(
    "raw",
    keyBytes,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", hmac, body));
  const b64 = (bytes: Uint8Array) =>
    btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(
      /=+$/,
      "",
    );
  await assertInvalid(codec, `${b64(body)}.${b64(mac)}`, /malformed cursor/);
});
