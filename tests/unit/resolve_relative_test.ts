/**
 * `relativeOf`'s shortcut (the rest after the root, taken as it is) against
 * `path.relative`, which it replaces on the resolution path: a spelling with
 * `.`, `..`, an empty name or a root that is only a string prefix (`/ws` and
 * `/wsx`) must not be taken by the shortcut, or the denylist would be asked
 * about a name the path does not lead to.
 */

import assert from "node:assert/strict";
import { relative, sep } from "node:path";
import { relativeOf } from "../../src/access/resolve.ts";

const reference = (root: string, absolute: string) =>
  absolute === root ? "" : relative(root, absolute).split(sep).join("/");

Deno.test("resolve, attack: a path the shortcut would misname (dot names, a sibling root sharing the prefix, doubled separators) is answered as path.relative answers it", () => {
  const roots = ["/ws", "/ws/", "/", "/a/b"];
  const rests = [
    "",
    "f",
    "d/f.txt",
    "d/../.env",
    "./.env",
    "d/./e",
    "d//e",
    "..",
    "../wsx/.env",
    "d/..",
    ".env/",
  ];
  let checked = 0;
  for (const root of roots) {
    for (const rest of rests) {
      for (const absolute of [root + rest, root + "/" + rest, root + "x/" + rest]) {
        assert.equal(relativeOf(root, absolute), reference(root, absolute), `${root} ${absolute}`);
        checked++;
      }
    }
  }
  assert.equal(relativeOf("/ws", "/wsx/.env"), "../wsx/.env", "a sibling is not inside");
  assert.equal(relativeOf("/ws", "/ws/d/../.env"), ".env");
  assert.equal(checked, roots.length * rests.length * 3);
});
