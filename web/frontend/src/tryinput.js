// "Try your own input": a public case's arguments, edited as JSON, answered by the reference
// on the server, and your code's answer beside it. A browser-tier problem's code runs here
// in Pyodide on the one case the server sends back (its expected answer the reference's); a
// torch-tier problem's code goes to the server with the input. Nothing is an attempt.
import { clear, h } from "./dom.js";
import { bilingual, t } from "./i18n.js";
import { blamedLines, notice, reportView } from "./results.js";
import { pollRun, runLabel } from "./serverrun.js";
import { timeLimits } from "./timelimits.js";

// Where the text is not JSON, the reason, with JSON.parse's own words (which say where).
export function jsonProblem(text) {
  if (!text.trim()) return t("tryEmpty");
  try {
    JSON.parse(text);
    return null;
  } catch (error) {
    return t("tryNotJSON", { message: error.message });
  }
}

export { bilingual }; // where the page took it from (tests import it here)

export class TryInput {
  // `inputs`: [{name, text}] from the bundle; `runner`: the Pyodide runner (null for a
  // torch-tier problem); `code()`: the editor's text now; `markErrors(lines)`, `onLine(line)`:
  // the editor's marks for the lines a report blames, and a jump to one.
  constructor({ inputs, url, loginURL, loggedIn, runner, bundle, bundleJSON, code, markErrors, onLine }) {
    this.inputs = inputs;
    this.url = url;
    this.runner = runner;
    this.bundle = bundle;
    this.bundleJSON = bundleJSON;
    this.code = code;
    this.markErrors = markErrors;
    this.onLine = onLine;
    this.element = loggedIn ? this.build() : this.loginView(loginURL);
  }

  loginView(loginURL) {
    return h("div", { class: "try-input" }, notice(t("tryIntro")), h("a", { href: loginURL }, t("tryLogin")));
  }

  build() {
    this.picker = h(
      "select",
      { class: "try-from", "aria-label": t("tryStartFrom"), onchange: () => this.startFrom(this.picker.value) },
      this.inputs.map((input, index) => h("option", { value: String(index) }, input.name)),
    );
    this.text = h("textarea", {
      class: "try-text",
      spellcheck: "false",
      rows: "8",
      "aria-label": t("tryArgs"),
      oninput: () => this.showProblem(null),
    });
    this.button = h("button", { type: "button", class: "btn btn-primary", "data-action": "try", onclick: () => this.run() }, t("tryRun"));
    this.problem = h("div", { class: "try-problem", role: "alert" });
    this.out = h("div", { class: "try-out", "aria-live": "polite" });
    this.startFrom("0");
    return h(
      "div",
      { class: "try-input" },
      h("p", { class: "muted" }, t("tryIntro")),
      h("label", { class: "try-from-label" }, t("tryStartFrom"), " ", this.picker),
      this.text,
      this.problem,
      h("div", { class: "toolbar" }, this.button),
      this.out,
    );
  }

  startFrom(index) {
    const input = this.inputs[Number(index)];
    if (input) this.text.value = input.text;
    this.showProblem(null);
  }

  showProblem(message) {
    clear(this.problem);
    if (message) this.problem.append(notice(message, "error"));
  }

  async run() {
    if (this.busy) return;
    const text = this.text.value;
    const problem = jsonProblem(text);
    if (problem) return this.showProblem(problem);
    this.busy = true;
    this.button.disabled = true;
    clear(this.out).append(notice(t(this.runner ? "tryRunningReference" : "tryRunningBoth")));
    try {
      await this.judge(text);
    } finally {
      this.busy = false;
      this.button.disabled = false;
    }
  }

  async judge(text) {
    const body = this.runner ? { input: text } : { input: text, code: this.code() };
    const running = t(this.runner ? "tryRunningReference" : "tryRunningBoth");
    const onUpdate = (run) => {
      const text = runLabel(run, running);
      const shown = this.out.firstChild;
      if (!shown || shown.textContent !== text) clear(this.out).append(notice(text));
    };
    const outcome = await pollRun(this.url, body, { onUpdate });
    if (outcome.status !== "done") {
      return clear(this.out).append(notice(t("runFailed", { message: outcome.message }), "error"));
    }
    const custom = outcome.run.custom;
    if (custom.refused || custom.reference_failure) {
      return clear(this.out).append(notice(bilingual(custom.refused || custom.reference_failure), "error"));
    }
    let report = custom.report || null;
    let ms = report ? report.time_ms : null;
    if (this.runner) {
      clear(this.out).append(this.referenceView(custom), notice(t("tryRunningYours")));
      const ran = await this.runHere(custom);
      if (ran.status !== "done") return this.show(custom, null, null, ran);
      ({ report, ms } = ran);
    }
    this.show(custom, report, ms, null);
  }

  // The learner's code on the reference's case, in this page's Python.
  async runHere(custom) {
    if (!custom.case) return { status: "failed", message: t("tryNoCase") };
    if (!this.runner.ready || this.runner.job) return { status: "failed", message: t("tryPythonBusy") };
    return this.runner.run(this.bundleJSON, this.code(), timeLimits(this.bundle), custom.case);
  }

  referenceView(custom) {
    return h("div", { class: "try-reference" }, h("strong", {}, t("tryReference")), h("pre", { class: "code" }, custom.reference));
  }

  show(custom, report, ms, failed) {
    const out = clear(this.out);
    out.append(this.referenceView(custom));
    if (failed) {
      const key = failed.status === "timeout" ? "tryTimeout" : failed.status === "stopped" ? "stopped" : "runFailed";
      return out.append(notice(t(key, { message: failed.message || "" }), "warn"));
    }
    if (!report) return out;
    const same = report.verdict === "AC";
    out.append(h("strong", { class: "try-yours" }, t("tryYours")));
    if (same) out.append(notice(t("trySame")));
    out.append(reportView(report, ms, this.onLine));
    this.markErrors(blamedLines(report));
    out.scrollIntoView({ block: "nearest" });
    return out;
  }
}
