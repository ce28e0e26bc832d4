// Which editor lines a report blames.
import assert from "node:assert/strict";
import { test } from "node:test";
import { blamedLines, caseTime, compactJSON, markedParts, renderMessage, speedText, stepHeadings } from "../src/results.js";

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

test("an input's arguments are shown one top-level key a line, lists on one line", () => {
  const args = { num_blocks: 6, ops: [["append", 1, 5], ["free", 1]] };
  assert.equal(compactJSON(args), '{\n  "num_blocks": 6,\n  "ops": [["append",1,5],["free",1]]\n}');
  assert.equal(compactJSON([1, 2]), "[1,2]");
  assert.equal(compactJSON({}), "{}");
});

test("a case message renders from its key and arguments, nested ones too, in the page's language", () => {
  const catalog = {
    "check.where_reason": { en: "at {where}: {reason}", zh: "{where} 处：{reason}" },
    "check.values_differ": { en: "values differ", zh: "值不同" },
  };
  const args = { where: "[0]", reason: { key: "check.values_differ", args: {} } };
  assert.equal(renderMessage("check.where_reason", args, "zh", catalog), "[0] 处：值不同");
  assert.equal(renderMessage("check.where_reason", args, "en", catalog), "at [0]: values differ");
  assert.equal(renderMessage("no.such", {}, "zh", catalog), null);
  assert.equal(renderMessage("check.where_reason", { where: "[0]" }, "zh", catalog), null);
});

test("a hidden case's time reads as the bound the judge rounded it up to; a public one as measured", () => {
  assert.equal(caseTime({ public: false, time_ms: 200 }), "≤ 200 ms");
  assert.equal(caseTime({ public: true, time_ms: 12.345 }), "12.3 ms");
});

test("a whole value is cut around its marked difference; a bad span marks nothing", () => {
  assert.deepEqual(markedParts("[0, 1, 2]", [1, 2]), ["[", "0", ", 1, 2]"]);
  assert.deepEqual(markedParts("{'ridge': 1.0}", [10, 13]), ["{'ridge': ", "1.0", "}"]);
  assert.deepEqual(markedParts("[0]", [2, 9]), ["[0]", "", ""]);
  assert.deepEqual(markedParts("[0]", undefined), ["[0]", "", ""]);
});

test("a trace's step that raised is headed as raised, its state before as the reference's", () => {
  const input = { step: 2, ops: ["append(seq_id=1, n=5)", "append(seq_id=2, n=2)", "free(seq_id=3)"] };
  const differs = stepHeadings(input);
  assert.equal(differs.steps, "Calls, steps 0-2 (step 2 is the first that differs)");
  assert.match(differs.before, /\(got and expected agree\)$/);
  const raised = stepHeadings({ ...input, raised: true });
  assert.equal(raised.steps, "Calls, steps 0-2 (step 2 raised)");
  assert.equal(raised.before, "State before step 2, as the reference's step 1 (append(seq_id=2, n=2)) left it");
});

test("a paired speed score names its ratio to the reference; an unsteady one asks for another run", () => {
  const catalog = {
    "speed.score": { en: "score {value} {unit} (median of {repetitions}; q1 {q1}, q3 {q3})", zh: "得分 {value} {unit}" },
    "speed.relative": { en: "{relative}x the reference, timed in turn with it (spread {spread}%)", zh: "{relative} 倍" },
    "speed.unsteady": { en: "not scored: spread {spread}% (needs {limit}%)", zh: "未计分：离散 {spread}%（要求 {limit}%）" },
  };
  const scored = { state: "scored", value: 1234.56, unit: "tokens/s", repetitions: 9, q1: 1200, q3: 1250.04, relative: 1.034, relative_spread: 0.041 };
  assert.equal(
    speedText(scored, "en", catalog),
    "score 1,234.6 tokens/s (median of 9; q1 1,200.0, q3 1,250.0) · 1.03x the reference, timed in turn with it (spread 4%)",
  );
  const unpaired = { ...scored, relative: null, relative_spread: null };
  assert.equal(speedText(unpaired, "en", catalog), "score 1,234.6 tokens/s (median of 9; q1 1,200.0, q3 1,250.0)");
  const unsteady = { ...scored, state: "unsteady", relative_spread: 0.41, spread_limit: 0.25 };
  assert.equal(speedText(unsteady, "zh", catalog), "未计分：离散 41%（要求 25%）");
  assert.equal(speedText(null, "en", catalog), null);
  assert.equal(speedText({ value: "fast" }, "en", catalog), null);
});
