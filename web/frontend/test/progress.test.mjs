// A submission being judged on the server says how far it has got, not a blank verdict.
import assert from "node:assert/strict";
import { test } from "node:test";
import { statusLabel } from "../src/submissions.js";

test("a running submission with progress names the cases done of all", () => {
  const label = statusLabel({ status: "running", progress: { done: 12, total: 46 } });
  assert.equal(label, "Judging… 12 of 46 cases done");
});

test("before its first case, queued, or judged, the label is the state or the verdict", () => {
  assert.equal(statusLabel({ status: "running", progress: null }), "Judging…");
  assert.equal(statusLabel({ status: "queued", progress: null }), "Queued");
  assert.notEqual(statusLabel({ status: "done", verdict: "AC", progress: null }), "Judging…");
});

test("a malformed progress is ignored rather than shown", () => {
  assert.equal(statusLabel({ status: "running", progress: { done: "x", total: 0 } }), "Judging…");
});
