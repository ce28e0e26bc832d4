// The browser Run's limits come from the problem's own, times the browser's margin.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BROWSER_SLOWDOWN, timeLimits } from "../src/timelimits.js";

test("a 1 s per case, 10 s in all problem is cut at 3 s per case and 30 s in all", () => {
  const limits = timeLimits({ problem: { limits: { time_per_case_s: 1.0, total_time_s: 10.0 } } });
  assert.equal(BROWSER_SLOWDOWN, 3);
  assert.deepEqual(limits, { caseS: 1, totalS: 10, caseMs: 3000, totalMs: 30000 });
});

test("a tiny limit is raised to the floor that message latency needs", () => {
  const limits = timeLimits({ problem: { limits: { time_per_case_s: 0.05, total_time_s: 0.5 } } });
  assert.equal(limits.caseMs, 2000);
  assert.equal(limits.totalMs, 5000);
});

test("a long problem keeps its own limit, with no fixed 10 s cap", () => {
  const limits = timeLimits({ problem: { limits: { time_per_case_s: 20, total_time_s: 240 } } });
  assert.equal(limits.caseMs, 60000);
  assert.equal(limits.totalMs, 720000);
});
