import assert from "node:assert/strict";
import { makeWorkspace, startServer, textOf } from "../helpers/fixtures.ts";

Deno.test("read_file returns the file's lines inside a nonce fence", async () => {
  await using ws = await makeWorkspace({ "a.txt": "alpha\nbeta\n" });
  using server = startServer(ws.root);
  const result = await server.dispatcher.call("read_file", { path: "a.txt" });
  assert.equal(result.isError, undefined);
  const text = textOf(result);
  const nonce = text.match(/<untrusted-file-content id=([0-9a-f]{32})>/)?.[1];
  assert.ok(nonce, text);
  assert.match(text, new RegExp(`1\\talpha\\n2\\tbeta\\n</untrusted-file-content id=${nonce}>`));
});
