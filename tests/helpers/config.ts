/**
 * Assertions about configuration errors, shared by the config tests.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/load.ts";

/** Asserts that `fn` throws a one-line ConfigError matching every pattern; returns its message. */
export function assertRefused(fn: () => unknown, ...patterns: RegExp[]): string {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ConfigError, `expected a ConfigError, got ${caught}`);
  assert.equal(caught.name, "ConfigError");
  assert.ok(!caught.message.includes("\n"), `message is not one line: ${caught.message}`);
  for (const pattern of patterns) assert.match(caught.message, pattern);
  return caught.message;
}
