// "Try your own input": what the page says before anything is sent, and how a judge
// sentence sent in both languages is shown, and how a run on the server is polled.
import assert from "node:assert/strict";
import { test } from "node:test";
import { bilingual, jsonProblem } from "../src/tryinput.js";
import { pollRun } from "../src/serverrun.js";

test("text that is not JSON is said with the parser's own words, before any request", () => {
  assert.equal(jsonProblem('{"a": 1}'), null);
  assert.equal(jsonProblem("[1, 2.0]"), null);
  assert.match(jsonProblem('{"a": 1,'), /^This is not JSON: /);
  assert.equal(jsonProblem("  \n"), "Write the arguments as JSON first.");
});

test("a sentence in both languages is shown in the page's, English outside a page", () => {
  assert.equal(bilingual({ en: "refused", zh: "拒绝" }), "refused");
  assert.equal(bilingual({ zh: "只有中文" }), "只有中文");
  assert.equal(bilingual("plain"), "plain");
});

test("a run is posted once, then polled until done", async () => {
  const calls = [];
  globalThis.document = { querySelector: () => null }; // no CSRF token outside a page
  globalThis.fetch = async (url, init) => {
    calls.push([url, init.method]);
    const done = calls.length > 2;
    const run = { status: done ? "done" : "running", url: "/api/runs/x", custom: { answered: true } };
    return { ok: true, status: 200, json: async () => run };
  };
  const outcome = await pollRun("/api/problems/p/try-input", { input: "[1]" }, { sleep: async () => {} });
  assert.equal(outcome.status, "done");
  assert.deepEqual(outcome.run.custom, { answered: true });
  assert.deepEqual(calls, [
    ["/api/problems/p/try-input", "POST"],
    ["/api/runs/x", "GET"],
    ["/api/runs/x", "GET"],
  ]);
});

test("a run waiting in line shows its place, and its wait does not count toward giving up", async () => {
  globalThis.document = { querySelector: () => null };
  const states = [
    { status: "queued", place: 2 },
    { status: "queued", place: 1 },
    { status: "running" },
    { status: "done", custom: { answered: true } },
  ];
  let served = 0;
  globalThis.fetch = async () => {
    const run = { ...states[Math.min(served++, states.length - 1)], url: "/api/runs/x" };
    return { ok: true, status: 200, json: async () => run };
  };
  let clock = 0;
  const seen = [];
  const sleep = async () => {
    clock += 5 * 60 * 1000; // five minutes between polls: long in line, short once running
  };
  const onUpdate = (run) => seen.push(run.status === "queued" ? `place ${run.place}` : run.status);
  const outcome = await pollRun("/api/problems/p/run", { code: "x" }, { sleep, now: () => clock, onUpdate });
  assert.equal(outcome.status, "done");
  assert.deepEqual(seen, ["place 2", "place 1", "running"]);
});

test("a run being polled says its place in line, then where its judging has got to", async () => {
  const { runLabel } = await import("../src/serverrun.js");
  assert.match(runLabel({ status: "queued", place: 2 }, "waiting"), /number 2 in line/);
  assert.equal(runLabel({ status: "running" }, "waiting"), "waiting");
  const progress = { stage: "case", done: 2, total: 12, step: 3, of: 12 };
  // Outside a built page the judge's catalog is empty: the count of cases run is said.
  assert.equal(runLabel({ status: "running", progress }, "waiting"), "Judging… 2 of 12 cases done");
});
