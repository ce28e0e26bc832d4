// Which editor lines a report blames.
import assert from "node:assert/strict";
import { test } from "node:test";
import { blamedLines } from "../src/results.js";

test("failing cases and the compile error blame their lines; passing cases do not", () => {
  const report = {
    compile_error: { line: 2, message: "invalid syntax" },
    cases: [
      { name: "a", verdict: "RE", line: 7 },
      { name: "b", verdict: "AC", line: 9 },
      { name: "c", verdict: "WA" },
    ],
  };
  assert.deepEqual(blamedLines(report), [2, 7]);
});

test("a report without lines blames nothing", () => {
  assert.deepEqual(blamedLines({ cases: [{ name: "a", verdict: "WA" }] }), []);
});
