import assert from "node:assert/strict";
import { test } from "node:test";

test("a diff's title names the two submissions by number, not as objects", async () => {
  globalThis.document = { cookie: "", documentElement: { lang: "en" }, querySelector: () => null };
  const { diffTitle } = await import("../src/history.js");
  const diff = { from: { id: 3, verdict: "WA" }, to: { id: 7, verdict: "AC" }, added: 2, removed: 1 };
  const title = diffTitle(diff);
  assert.match(title, /#3\b/);
  assert.match(title, /#7\b/);
  assert.doesNotMatch(title, /object/);
});
