// Renders judge reports: the browser's Run report and the server's per-case results
// share one case list, so a verdict looks the same wherever it was produced.
import { h } from "./dom.js";
import { casePicture } from "./pictures.js";
import { lang, t } from "./i18n.js";

// judge/messages.py's catalog, put here by the build (build.mjs); absent under node's tests.
const CATALOG = typeof __JUDGE_MESSAGES__ === "undefined" ? {} : __JUDGE_MESSAGES__;

// A message as the core stores it (a key and its arguments, an argument itself perhaps a
// message), in `language`; substituted exactly as judge.messages does. Where the catalog
// does not know the key (an older report, a newer judge), the stored text is shown.
export function renderMessage(key, args, language, catalog = CATALOG) {
  const templates = catalog[key];
  if (!templates || !args || typeof args !== "object") return null;
  let missing = false;
  const text = (templates[language] || templates.en).replace(/\{([a-z_][a-z0-9_]*)\}/g, (_, name) => {
    const arg = args[name];
    if (arg && typeof arg === "object") {
      const inner = renderMessage(arg.key, arg.args, language, catalog);
      if (inner === null) missing = true;
      return inner ?? "";
    }
    if (arg === undefined || arg === null) missing = true;
    return String(arg);
  });
  return missing ? null : text;
}

export function caseMessage(result, language = lang) {
  return renderMessage(result.message_key, result.message_args, language) ?? result.message ?? "";
}

export function verdictBadge(verdict) {
  const code = String(verdict || "").toUpperCase();
  return h(
    "span",
    { class: `badge badge-${code.toLowerCase() || "pending"}`, title: t(`verdict.${code}`) },
    code || "…",
  );
}

// The core sends got/expected already formatted as text; anything else is shown as JSON.
function shown(result, key) {
  const value = result[key];
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

function lineLink(line, onLine) {
  return h(
    "button",
    { type: "button", class: "line-link", onclick: () => onLine(line) },
    t("line", { line }),
  );
}

function comparison(result) {
  if (!("got" in result) && !("expected" in result)) return null;
  return h(
    "div",
    { class: "compare" },
    h("div", {}, h("h4", {}, t("got")), h("pre", { class: "value got" }, shown(result, "got"))),
    h(
      "div",
      {},
      h("h4", {}, t("expected")),
      h("pre", { class: "value expected" }, shown(result, "expected")),
    ),
  );
}

// A value's text cut around its marked span [start, end): before, marked, after. A span
// that is not two numbers inside the text marks nothing.
export function markedParts(text, mark) {
  const [start, end] = Array.isArray(mark) ? mark : [];
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end > text.length || start > end) {
    return [text, "", ""];
  }
  return [text.slice(0, start), text.slice(start, end), text.slice(end)];
}

function markedValue(text, mark, side) {
  const [before, marked, after] = markedParts(text, mark);
  return h("pre", { class: `value whole-${side}` }, before, marked ? h("mark", { class: "diff-mark" }, marked) : null, after);
}

// A wrong answer's whole value around its first difference (the judge's ValueDiff): what
// the code returned beside what was expected, the differing part marked on both.
function diffView(diff) {
  const title = diff.where ? t("wholeValueAt", { where: diff.where }) : t("wholeValue");
  return h(
    "div",
    { class: "value-diff" },
    h("h4", {}, title),
    h(
      "div",
      { class: "compare" },
      h("div", {}, h("h4", {}, t("got")), markedValue(diff.got, diff.got_mark, "got")),
      h("div", {}, h("h4", {}, t("expected")), markedValue(diff.expected, diff.expected_mark, "expected")),
    ),
  );
}

// Arguments and states one top-level key a line: a trace's list of operations stays on
// one (wrapping) line instead of one line per number.
export function compactJSON(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return JSON.stringify(value);
  const lines = Object.entries(value).map(([key, item]) => `  ${JSON.stringify(key)}: ${JSON.stringify(item)}`);
  return lines.length ? `{\n${lines.join(",\n")}\n}` : "{}";
}

// Which step left a state shown: its number and call, beside the step that differs.
export function stateLabel(input, previous) {
  const ops = input.ops || [];
  return { step: input.step, previous, op: ops[previous] ?? "?" };
}

// The headings over a trace's calls and the state before its marked step: the step that
// differs first, or the one that raised, after which nothing was compared, so the state
// shown is the reference's.
export function stepHeadings(input) {
  const raised = input.raised === true;
  return {
    steps: t(raised ? "inputStepsRaised" : "inputSteps", { step: input.step }),
    before: t(raised ? "stateBeforeRaised" : "stateBefore", stateLabel(input, input.step - 1)),
  };
}

// A failing public case's input (the judge never sends one for a hidden case): the
// arguments, and for a trace the calls up to the step that differs (or raised) and the state
// before it.
function inputView(input) {
  const parts = [h("h4", {}, t("input"))];
  if (input.args === null || input.args === undefined) {
    parts.push(h("p", { class: "muted" }, t("inputOmitted", { chars: (input.omitted_chars || 0).toLocaleString() })));
  } else {
    parts.push(h("pre", { class: "value input-args" }, compactJSON(input.args)));
  }
  const ops = input.ops || [];
  if (typeof input.step === "number" && ops.length) {
    parts.push(h("h4", {}, stepHeadings(input).steps));
    const items = ops.map((op, i) => h("li", { class: i === input.step ? "step-bad" : null }, op));
    parts.push(h("ol", { class: "input-ops", start: "0" }, items));
    const trace = input.trace;
    if (trace && trace.length > input.step + 1) {
      parts.push(h("p", { class: "muted" }, t("traceCut", { key: trace.key, step: input.step, length: trace.length })));
    }
  }
  if (input.state_before !== undefined && input.state_before !== null) {
    parts.push(h("h4", {}, stepHeadings(input).before));
    parts.push(h("pre", { class: "value state-before" }, compactJSON(input.state_before)));
  }
  if (typeof input.subject_step === "number" && input.subject_state !== undefined && input.subject_state !== null) {
    parts.push(h("h4", {}, t("subjectState", { ...stateLabel(input, input.subject_step), subject: input.subject })));
    parts.push(h("pre", { class: "value subject-state" }, compactJSON(input.subject_state)));
  }
  return h("div", { class: "case-input" }, parts);
}

// "Copy as a test": the judge wrote the snippet; the button puts it on the clipboard, and
// where the page may not write there it opens the snippet with its text selected.
function testView(test) {
  const code = h("pre", { class: "code case-test-code" }, test);
  const shown = h("details", { class: "case-test" }, h("summary", {}, t("testTitle")), code);
  const button = h("button", { type: "button", class: "btn btn-ghost btn-small", "data-action": "copy-test" }, t("copyTest"));
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(test);
      button.textContent = t("copied");
      button.dataset.copied = "true";
    } catch {
      shown.open = true;
      const range = document.createRange();
      range.selectNodeContents(code);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      button.textContent = t("copyByHand");
    }
  });
  return h("div", { class: "case-test-bar" }, button, shown);
}

function printedView(result) {
  return [
    result.stdout ? [h("h4", {}, t("printed")), h("pre", { class: "case-output case-stdout" }, result.stdout)] : null,
    result.stderr ? [h("h4", {}, t("printedErr")), h("pre", { class: "case-output case-stderr" }, result.stderr)] : null,
  ];
}

function caseDetails(result) {
  return [
    comparison(result),
    result.diff ? diffView(result.diff) : null,
    result.input ? inputView(result.input) : null,
    result.input && result.input.picture ? casePicture(result.input.picture) : null,
    result.traceback
      ? h("div", {}, h("h4", {}, t("traceback")), h("pre", { class: "traceback" }, result.traceback))
      : null,
    ...printedView(result),
    result.test ? testView(result.test) : null,
  ]
    .flat()
    .filter(Boolean);
}

function hasDetails(result) {
  return ["got", "expected", "diff", "input", "test", "stdout", "stderr", "traceback"].some((key) => Boolean(result[key]));
}

// A hidden case's time is an upper bound, rounded up to a tenth of its limit by the judge
// (the exact time could carry what the submission read of its inputs): "≤ 200 ms".
export function caseTime(result) {
  if (result.public === false) return `≤ ${t("ms", { ms: Math.round(result.time_ms) })}`;
  return t("ms", { ms: result.time_ms.toFixed(1) });
}

// A case's got/expected/traceback are built when it is first opened: a Run shows
// dozens of cases and most stay closed, so the report renders in a few milliseconds.
function caseRow(result, onLine, open) {
  const ok = result.verdict === "AC";
  const summary = h(
    "summary",
    {},
    verdictBadge(result.verdict),
    h("span", { class: "case-name" }, result.name),
    result.public === false ? h("span", { class: "tag" }, t("hiddenCase")) : null,
    result.message
      ? h("span", { class: "case-message" }, caseMessage(result).replace(/[:：]\s*$/, ""))
      : null,
    result.line && onLine ? lineLink(result.line, onLine) : null,
    typeof result.time_ms === "number" ? h("span", { class: "case-time" }, caseTime(result)) : null,
  );
  const row = h(
    "details",
    { class: `case ${ok ? "case-ok" : "case-bad"}`, "data-case": result.name },
    summary,
  );
  if (!hasDetails(result)) {
    row.classList.add("case-plain");
    return row;
  }
  const fill = () => {
    if (!row.querySelector(".case-body")) row.append(h("div", { class: "case-body" }, caseDetails(result)));
  };
  row.addEventListener("toggle", () => row.open && fill());
  if (open) {
    fill();
    row.open = true;
  }
  return row;
}

// Only the first failing case starts open: forty identical tracebacks help nobody.
export function caseList(cases, onLine) {
  const list = cases || [];
  const first = list.findIndex((result) => result.verdict && result.verdict !== "AC");
  return h(
    "div",
    { class: "cases" },
    list.map((result, i) => caseRow(result, onLine, i === first)),
  );
}

function outputBlock(label, text, kind) {
  if (!text) return null;
  return h("div", { class: `output output-${kind}` }, h("h4", {}, label), h("pre", {}, text));
}

// Each case shows what it printed; the whole output (with what loading printed) is then
// one click away instead of a second copy under the cases.
function allOutput(report) {
  const blocks = [outputBlock(t("stdout"), report.stdout, "stdout"), outputBlock(t("stderr"), report.stderr, "stderr")];
  const byCase = (report.cases || []).some((result) => result.stdout || result.stderr);
  if (!byCase || !(report.stdout || report.stderr)) return blocks;
  return h("details", { class: "output-all" }, h("summary", {}, t("allOutput")), blocks);
}

// Code that never got to its cases: one sentence saying what went wrong and where (the
// line is a link to the editor where there is one), then the interpreter's message. An
// exception while loading is not a compile error, and says so.
export function compileErrorView(error, onLine) {
  const raised = error.kind === "exception";
  const line = error.line;
  let where;
  if (line && onLine) where = [t(raised ? "loadErrorAt" : "compileErrorAt"), " ", lineLink(line, onLine)];
  else if (line) where = t(raised ? "loadErrorLine" : "compileError", { line });
  else where = t(raised ? "loadErrorNoLine" : "compileErrorNoLine");
  return h(
    "div",
    { class: "compile-error" },
    h("div", { class: "compile-where" }, h("strong", {}, where)),
    h("pre", {}, caseMessage(error)),
  );
}

// A speed problem's score in words (judge/commands/render.py speed_line says the same), or
// why it was not scored; null where the report has none. Figures as the CLI rounds them.
export function speedText(speed, language = lang, catalog = CATALOG) {
  if (!speed || typeof speed !== "object" || typeof speed.value !== "number") return null;
  const spread = String(Math.round(100 * (Number(speed.relative_spread) || 0)));
  if (speed.state === "unsteady") {
    const limit = String(Math.round(100 * (Number(speed.spread_limit) || 0.25)));
    return renderMessage("speed.unsteady", { spread, limit }, language, catalog);
  }
  const figure = (x) => Number(x).toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const score = renderMessage(
    "speed.score",
    { value: figure(speed.value), unit: speed.unit, repetitions: speed.repetitions, q1: figure(speed.q1), q3: figure(speed.q3) },
    language,
    catalog,
  );
  if (score === null || typeof speed.relative !== "number") return score;
  const relative = renderMessage("speed.relative", { relative: speed.relative.toFixed(2), spread }, language, catalog);
  return relative === null ? score : `${score} · ${relative}`;
}

export function speedView(speed) {
  const text = speedText(speed);
  if (text === null) return null;
  return speed.state === "unsteady" ? notice(text, "warn") : h("p", { class: "speed-score" }, text);
}

// The whole Run report: headline, compile error, cases, captured output. Code that did
// not load ran no case, so its headline has no "0 / 0 passed".
export function reportView(report, ms, onLine) {
  const loaded = !report.compile_error;
  const headline = h(
    "div",
    { class: "report-head" },
    verdictBadge(report.verdict),
    h("strong", {}, t(`verdict.${report.verdict}`)),
    loaded ? h("span", { class: "muted" }, t("passed", { passed: report.passed, total: report.total })) : null,
    typeof ms === "number" ? h("span", { class: "muted" }, t("ms", { ms: Math.round(ms) })) : null,
  );
  const compile = loaded ? null : compileErrorView(report.compile_error, onLine);
  return h(
    "div",
    { class: "report", "data-verdict": report.verdict },
    headline,
    compile,
    caseList(report.cases, onLine),
    speedView(report.speed),
    allOutput(report),
    report.output_withheld ? notice(t("outputWithheld")) : null,
  );
}

// Editor lines the report blames: the compile error's and each failing case's.
export function blamedLines(report) {
  const lines = [];
  if (report.compile_error && report.compile_error.line) lines.push(report.compile_error.line);
  for (const result of report.cases || []) {
    if (result.line && result.verdict !== "AC") lines.push(result.line);
  }
  return lines;
}

// `code`: the server's error code, when the notice says why a request was refused.
export function notice(text, kind = "info", code = null) {
  return h("div", { class: `notice notice-${kind}`, role: "status", "data-code": code }, text);
}
