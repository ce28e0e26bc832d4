// A submission being judged on the server says how far it has got, not a blank verdict.
import assert from "node:assert/strict";
import { test } from "node:test";
import { phaseText, statusLabel } from "../src/submissions.js";

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

test("a running torch judging says what runs now, in the judge's words", () => {
  const catalog = {
    "phase.timed": { en: "timed repetition {step} of {of}", zh: "第 {step}/{of} 次计时重复" },
    "phase.preparing": { en: "preparing the hidden cases: the reference answers them", zh: "正在准备隐藏用例：参考解正在作答" },
  };
  const timed = { done: 5, total: 12, stage: "timed", step: 4, of: 9 };
  assert.equal(phaseText(timed, "en", catalog), "timed repetition 4 of 9");
  assert.equal(phaseText(timed, "zh", catalog), "第 4/9 次计时重复");
  assert.equal(
    statusLabel({ status: "running", progress: timed }, catalog),
    "Judging… timed repetition 4 of 9",
  );
  // An older worker says no stage, and a stage the catalog lacks is not shown as its key.
  assert.equal(statusLabel({ status: "running", progress: { done: 3, total: 12 } }, catalog), "Judging… 3 of 12 cases done");
  assert.equal(phaseText({ done: 0, total: 3, stage: "<b>x</b>" }, "en", catalog), null);
  assert.equal(phaseText({ done: 0, total: 3, stage: "unknown" }, "en", catalog), null);
});

test("before its cases exist, a judging says it is preparing them, with no count", () => {
  const catalog = { "phase.preparing": { en: "preparing the hidden cases: the reference answers them" } };
  const preparing = { done: 0, total: 0, stage: "preparing", step: 0, of: 0 };
  assert.equal(
    statusLabel({ status: "running", progress: preparing }, catalog),
    "Judging… preparing the hidden cases: the reference answers them",
  );
});

test("a judging says one count: the stage's own, never a second one of every case beside it", () => {
  const catalog = {
    "phase.case": { en: "case {step} of {of}", zh: "第 {step}/{of} 个用例" },
    "phase.reporting": { en: "writing the report" },
  };
  const serving = { done: 11, total: 18, stage: "case", step: 12, of: 12 };
  assert.equal(statusLabel({ status: "running", progress: serving }, catalog), "Judging… case 12 of 12");
  const reporting = { done: 18, total: 18, stage: "reporting", step: 0, of: 0 };
  const label = statusLabel({ status: "running", progress: reporting }, catalog);
  assert.equal(label, "Judging… writing the report (18 of 18 cases run)");
});
