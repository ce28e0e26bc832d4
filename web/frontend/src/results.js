// Renders judge reports: the browser's Run report and the server's per-case results
// share one case list, so a verdict looks the same wherever it was produced.
import { h } from "./dom.js";
import { t } from "./i18n.js";

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

function caseDetails(result) {
  return [
    comparison(result),
    result.traceback
      ? h("div", {}, h("h4", {}, t("traceback")), h("pre", { class: "traceback" }, result.traceback))
      : null,
  ].filter(Boolean);
}

function hasDetails(result) {
  return "got" in result || "expected" in result || Boolean(result.traceback);
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
      ? h("span", { class: "case-message" }, result.message.replace(/:\s*$/, ""))
      : null,
    result.line && onLine ? lineLink(result.line, onLine) : null,
    typeof result.time_ms === "number"
      ? h("span", { class: "case-time" }, t("ms", { ms: result.time_ms.toFixed(1) }))
      : null,
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

// The whole Run report: headline, compile error, cases, captured output.
export function reportView(report, ms, onLine) {
  const headline = h(
    "div",
    { class: "report-head" },
    verdictBadge(report.verdict),
    h("strong", {}, t(`verdict.${report.verdict}`)),
    h("span", { class: "muted" }, t("passed", { passed: report.passed, total: report.total })),
    typeof ms === "number" ? h("span", { class: "muted" }, t("ms", { ms: Math.round(ms) })) : null,
  );
  const compile = report.compile_error
    ? h(
        "div",
        { class: "compile-error" },
        h(
          "div",
          {},
          h("strong", {}, t("compileError", { line: report.compile_error.line ?? "?" })),
          report.compile_error.line && onLine ? lineLink(report.compile_error.line, onLine) : null,
        ),
        h("pre", {}, report.compile_error.message),
      )
    : null;
  return h(
    "div",
    { class: "report", "data-verdict": report.verdict },
    headline,
    compile,
    caseList(report.cases, onLine),
    outputBlock(t("stdout"), report.stdout, "stdout"),
    outputBlock(t("stderr"), report.stderr, "stderr"),
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

export function notice(text, kind = "info") {
  return h("div", { class: `notice notice-${kind}`, role: "status" }, text);
}
