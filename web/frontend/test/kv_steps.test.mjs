// The step model of the landing page's KV strip (src/kv_steps.js): which K/V are new and
// which reused at each step, that the reused ones are exactly what a full recompute gives,
// and the work with and without a cache. The DOM side is pinned by
// tests/web/e2e/test_kv_strip.py.
import assert from "node:assert/strict";
import { test } from "node:test";
import { kvMarks, kvSteps, recompute, workFor } from "../src/kv_steps.js";

const TOKENS = ["The", "cat", "sat", "on", "the", "mat", "."];

test("the prompt is prefilled in one step, then each decode step feeds one token", () => {
  const steps = kvSteps(TOKENS, 3);
  assert.deepEqual(steps.map((s) => s.phase), ["prefill", "decode", "decode", "decode"]);
  assert.deepEqual(steps.map((s) => s.inputs), [[0, 1, 2], [3], [4], [5]]);
  assert.deepEqual(steps.map((s) => s.output), ["on", "the", "mat", "."]);
  assert.deepEqual(steps.map((s) => s.queries.length), [3, 1, 1, 1]);
});

test("with a cache only the fed tokens' K/V are new; the older ones are reused", () => {
  const steps = kvSteps(TOKENS, 3);
  assert.deepEqual(kvMarks(steps[0]), ["new", "new", "new", "future", "future", "future"]);
  assert.deepEqual(kvMarks(steps[2]), ["reused", "reused", "reused", "reused", "new", "future"]);
  assert.deepEqual(kvMarks(steps[2], false), ["recomputed", "recomputed", "recomputed", "recomputed", "new", "future"]);
});

test("the cached K/V equal a full recompute of the longer prefix, so reusing them is exact", () => {
  for (const step of kvSteps(TOKENS, 3)) {
    const fresh = recompute(TOKENS, step.length);
    for (let j = 0; j < step.length; j += 1) {
      for (let c = 0; c < 2; c += 1) {
        assert.ok(Math.abs(fresh.keys[j][c] - step.keys[j][c]) < 1e-12, `K of ${j} at length ${step.length}`);
        assert.ok(Math.abs(fresh.values[j][c] - step.values[j][c]) < 1e-12, `V of ${j}`);
      }
    }
  }
});

test("changing a token leaves the K/V before it as they were and changes the ones after it", () => {
  // The causal mask: position j never sees a later token, but from the second layer on it
  // does see every earlier one, so the claim is not the trivial one-layer K_j = x_j·W_k.
  const other = ["The", "cat", "sat", "under", "the", "mat", "."];
  const a = recompute(TOKENS, 5);
  const b = recompute(other, 5);
  assert.deepEqual(a.keys.slice(0, 3), b.keys.slice(0, 3));
  assert.notDeepEqual(a.keys[3], b.keys[3]);
  assert.notDeepEqual(a.keys[4], b.keys[4], "a K depends on the earlier tokens, not only its own");
});

test("each query attends to itself and earlier positions only, with weights summing to 1", () => {
  const [prefill, decode] = kvSteps(TOKENS, 3);
  assert.deepEqual(prefill.queries.map((q) => q.weights.length), [1, 2, 3]);
  assert.equal(decode.queries[0].weights.length, 4);
  for (const q of [...prefill.queries, ...decode.queries]) {
    assert.ok(Math.abs(q.weights.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  }
});

test("tokens processed grow linearly with a cache and quadratically without", () => {
  const steps = kvSteps(TOKENS, 3);
  assert.deepEqual(steps.map((s) => s.processed.cached), [3, 4, 5, 6]);
  assert.deepEqual(steps.map((s) => s.processed.uncached), [3, 7, 12, 18]);
  assert.deepEqual(workFor(3, steps.length), steps.at(-1).processed);
  assert.deepEqual(workFor(1, 1000), { cached: 1000, uncached: 500500 }); // n vs n(n+1)/2
});
