// One exercise embedded in a handbook page: the statement (collapsible), the editor or the
// quiz's form, Run on the public cases in the page's shared Python worker (or, for a
// torch-tier problem, on the platform's server), per-case results with the platform's
// pictures, diffs, failing inputs and copy-as-test, the hints one at a time, and Submit to
// the platform when the site names one. Code and the last result are kept in this browser
// per page and problem.
import { CodeEditor } from "./editor.js";
import { followPage } from "./editortheme.js";
import { clear, h } from "./dom.js";
import { embedPlatform, platformPanel } from "./embed_platform.js";
import { quizForm } from "./embed_quiz.js";
import { enhanceHints } from "./hints.js";
import { requestText } from "./http.js";
import { bilingual, lang, t } from "./i18n.js";
import { storedItem, storeItem } from "./local_store.js";
import { blamedLines, notice, reportView } from "./results.js";
import { runLabel, runOnServer } from "./serverrun.js";
import { renderMarkdown, typesetMath } from "./statement.js";
import { submissionView, submitAndWait } from "./submissions.js";
import { BROWSER_SLOWDOWN, timeLimits } from "./timelimits.js";

const KEPT_RESULT_CHARS = 256 * 1024; // a larger report is shown, not kept

// The editors are dark when the handbook's page is (embed.css's rule, built by build.mjs):
// mkdocs-material's dark palette, or .practice-dark put on an ancestor by any other site.
const DARK_PAGE = '[data-md-color-scheme="slate"], .practice-dark';
followPage(
  () => Boolean(document.querySelector(DARK_PAGE)),
  (listener) =>
    new MutationObserver(listener).observe(document.body, {
      attributes: true,
      attributeFilter: ["data-md-color-scheme", "class"],
    }),
);

function runtimeText(state) {
  if (state.phase === "loading") {
    if (state.restart) return t("restarting");
    if (state.stage === "start") return t("loadingStart");
    if (state.stage === "judge") return t("loadingJudge");
    return t("loadingDownload");
  }
  if (state.phase === "ready" || state.phase === "running") return t("ready", { python: state.python || "" });
  // ("running" is another embed's run, or this one's: the embed says which itself.)
  if (state.phase === "failed") return t("failedBoot", { message: state.message });
  return "";
}

class Exercise {
  constructor(mount, bundleText, runner, queue) {
    const data = mount.dataset;
    this.mount = mount;
    this.slug = data.problem;
    this.bundleJSON = bundleText; // given to Python exactly as built (see workspace.js)
    this.bundle = JSON.parse(bundleText);
    this.quiz = data.kind === "quiz";
    this.browser = data.tier === "browser";
    this.runner = this.browser ? runner : null;
    this.queue = this.browser ? queue : null;
    this.platform = data.platform ? embedPlatform(data.platform) : null;
    this.key = `pj:embed:${window.location.pathname}:${this.slug}`;
    this.build();
    this.showKeptResult();
  }

  button(action, kind, label, onclick) {
    return h("button", { type: "button", class: `btn btn-${kind}`, "data-action": action, onclick }, label);
  }

  build() {
    const summary = this.bundle.problem || {};
    const statement = h("article", { class: "statement markdown" });
    statement.innerHTML = renderMarkdown(bilingual(this.bundle.statements));
    const first = statement.firstElementChild;
    if (first && first.tagName === "H1") first.remove(); // the <summary> carries the title
    typesetMath(statement);
    const details = h(
      "details",
      { class: "practice-statement", open: true },
      h("summary", {}, `${t("embed.statement")} · ${bilingual(summary.title)}`),
      statement,
    );
    this.results = h("div", { class: "practice-results panel", "data-role": "results", "aria-live": "polite" });
    this.live = h("div", { class: "practice-submissions" });
    const body = this.quiz ? this.quizBody() : this.codeBody();
    const parts = [details, body, this.results, this.live, this.hints(), this.platform ? platformPanel(this.platform) : null];
    clear(this.mount).append(...parts.filter(Boolean));
    typesetMath(this.mount);
    this.mount.dataset.ready = "true";
  }

  codeBody() {
    this.runButton = this.button("run", "primary", t("run"), () => this.run());
    this.stopButton = this.button("stop", "danger", t("stop"), () => this.runner.stop());
    this.stopButton.hidden = true;
    this.submitButton = this.platform ? this.button("submit", "accent", t("submit"), () => this.submit()) : null;
    const resetButton = this.button("reset", "ghost", t("reset"), () => {
      if (window.confirm(t("resetConfirm"))) this.editor.reset();
    });
    this.editorHost = h("div", { class: "editor" });
    this.status = h("span", { class: "runtime-text", "data-runtime": "" });
    const offline = !this.browser && !this.platform;
    const toolbar = h(
      "div",
      { class: "toolbar" },
      offline ? null : [this.runButton, this.stopButton],
      this.submitButton,
      h("span", { class: "spacer" }),
      resetButton,
    );
    const body = h("div", { class: "practice-code" }, toolbar, this.editorHost, this.status, offline ? this.offlineCommand() : null);
    this.editor = new CodeEditor({
      parent: this.editorHost,
      slug: this.slug,
      key: `${this.key}:code`,
      starter: this.bundle.starter || "",
      onRun: () => this.run(),
      onSubmit: this.platform ? () => this.submit() : null,
      label: t("code"),
    });
    if (this.runner) {
      this.runButton.disabled = true; // until Python is ready
      this.runner.listen((state) => this.showRuntime(state));
    } else if (this.platform) {
      this.status.textContent = t("serverRunIntro");
    }
    return body;
  }

  quizBody() {
    this.runButton = this.button("run", "primary", t("embed.quizRun"), () => this.run());
    this.submitButton = this.platform ? this.button("submit", "accent", t("submit"), () => this.submit()) : null;
    this.status = h("span", { class: "runtime-text", "data-runtime": "" });
    this.form = quizForm(
      this.bundle,
      storedItem(`${this.key}:sheet`),
      () => storeItem(`${this.key}:sheet`, this.form.sheet()),
      { platform: Boolean(this.platform) },
    );
    this.runButton.disabled = true;
    this.runner.listen((state) => this.showRuntime(state));
    return h(
      "div",
      { class: "practice-quiz" },
      this.form.element,
      h("div", { class: "toolbar" }, this.runButton, this.submitButton, this.status),
    );
  }

  offlineCommand() {
    const command = `python practice/judge.py run ${this.slug} ${this.slug.replace(/-/g, "_")}.py`;
    const copy = this.button("copy-command", "ghost", t("embed.copyCommand"), () => navigator.clipboard?.writeText(command));
    return h("div", { class: "practice-offline" }, h("p", {}, t("embed.offline")), h("pre", { class: "code" }, command), copy);
  }

  // The problem's hints as the platform's page has them: one revealed at a time.
  hints() {
    const hints = this.bundle.hints || [];
    if (!hints.length) return null;
    const section = h(
      "section",
      {
        class: "hints",
        // enhanceHints fills {n} and {total} in: the template goes to it unfilled.
        dataset: { slug: `${window.location.pathname}:${this.slug}`, nextLabel: t("embed.nextHint", { n: "{n}", total: "{total}" }) },
      },
      h("h4", {}, t("embed.hints")),
      hints.map((hint, index) => {
        const text = h("div", { class: "markdown" });
        text.innerHTML = renderMarkdown(bilingual(hint.text));
        return h("details", { class: "hint" }, h("summary", {}, bilingual(hint.title) || t("embed.hint", { n: index + 1 })), text);
      }),
      h("button", { type: "button", class: "btn btn-ghost", "data-action": "next-hint" }, ""),
    );
    enhanceHints(section);
    return section;
  }

  get source() {
    return this.quiz ? this.form.sheet() : this.editor.text;
  }

  showRuntime(state) {
    // The shared worker runs one embed's code at a time: only that embed says "running".
    this.status.textContent = this.active ? t("running") : runtimeText(state);
    // Where the worker's start went (download, python, judge; restored from the snapshot
    // or not), as the platform's page records it: the benchmark reads it.
    if (state.phase === "ready" && this.runner.boot) this.status.dataset.boot = JSON.stringify(this.runner.boot);
    this.runButton.disabled = !(state.phase === "ready" || state.phase === "running") || Boolean(this.running);
  }

  async run() {
    if (this.running) return;
    if (!this.browser) return this.runOnPlatform();
    if (!this.runner.ready) return;
    this.running = true;
    this.runButton.disabled = true;
    if (this.editor) this.editor.markErrors([]);
    // Waiting behind another embed's run is said above the results, at full strength.
    const waiting = this.queue.busy ? notice(t("embed.waiting")) : null;
    if (waiting) this.results.before(waiting);
    this.results.setAttribute("aria-busy", "true");
    // Stop, the faded results and "running" are this embed's only while its run is the one running.
    const started = () => {
      if (waiting) waiting.remove();
      this.active = true;
      this.results.classList.add("is-stale");
      this.status.textContent = t("running");
      if (!this.stopButton) return;
      this.runButton.hidden = true;
      this.stopButton.hidden = false;
    };
    try {
      const outcome = await this.queue.run(this.bundleJSON, this.source, timeLimits(this.bundle), started);
      this.showOutcome(outcome);
    } finally {
      this.running = false;
      this.active = false;
      if (waiting) waiting.remove();
      this.status.textContent = runtimeText(this.runner.state);
      this.results.classList.remove("is-stale");
      this.results.removeAttribute("aria-busy");
      this.runButton.disabled = !this.runner.ready;
      if (this.stopButton) {
        this.runButton.hidden = false;
        this.stopButton.hidden = true;
      }
    }
  }

  async runOnPlatform() {
    if (!this.platform.token) {
      clear(this.results).append(notice(t("embed.serverRunConnect"), "warn"));
      return;
    }
    this.running = true;
    this.runButton.disabled = true;
    clear(this.results).append(notice(t("serverRunning")));
    const onUpdate = (run) => clear(this.results).append(notice(runLabel(run, t("serverRunning"))));
    try {
      const urls = this.platform.urls(this.slug);
      this.showOutcome(await runOnServer(urls.run, this.source, { onUpdate, bearer: this.platform.token }));
    } finally {
      this.running = false;
      this.runButton.disabled = false;
    }
  }

  showOutcome(outcome, when = null) {
    const panel = clear(this.results);
    if (when) panel.append(h("p", { class: "muted" }, t("embed.lastResult", { when: new Date(when).toLocaleString(lang) })));
    if (outcome.status === "done" && this.quiz && !outcome.report.compile_error) {
      // Marked beside each question; the panel says the counts.
      const counts = this.form.mark(outcome.report);
      const key = this.platform ? "embed.quizSummary" : "embed.quizSummaryOffline";
      panel.append(notice(t(key, counts), counts.wrong ? "warn" : "info"));
      if (!when) this.keepResult(outcome);
    } else if (outcome.status === "done") {
      const onLine = this.editor ? (line) => this.editor.revealLine(line) : null;
      panel.append(reportView(outcome.report, outcome.ms, onLine));
      if (this.editor) this.editor.markErrors(blamedLines(outcome.report));
      if (!when) this.keepResult(outcome);
    } else if (outcome.status === "stopped") {
      panel.append(notice(t("stopped"), "warn"));
    } else if (outcome.status === "timeout") {
      const limits = timeLimits(this.bundle);
      const factor = BROWSER_SLOWDOWN;
      const text = outcome.case
        ? t("timeoutCase", { seconds: limits.caseMs / 1000, limit: limits.caseS, factor })
        : t("timeoutTotal", { seconds: limits.totalMs / 1000, limit: limits.totalS, factor });
      panel.append(notice(outcome.case ? `${t("timeoutOnCase", { name: outcome.case })} ${text}` : text, "warn"));
    } else {
      panel.append(notice(t("runFailed", { message: outcome.message }), "error"));
    }
    this.mount.dataset.verdict = outcome.status === "done" ? outcome.report.verdict || "" : outcome.status;
  }

  keepResult(outcome) {
    const text = JSON.stringify({ report: outcome.report, ms: outcome.ms, at: Date.now() });
    if (text.length <= KEPT_RESULT_CHARS) storeItem(`${this.key}:result`, text);
  }

  showKeptResult() {
    const kept = storedItem(`${this.key}:result`);
    if (!kept) {
      const intro = this.quiz ? t("embed.quizIntro") : this.browser ? t("noRunYet") : t("serverRunIntro");
      this.results.append(notice(intro));
      return;
    }
    try {
      const { report, ms, at } = JSON.parse(kept);
      this.showOutcome({ status: "done", report, ms }, at);
    } catch {
      this.results.append(notice(t("noRunYet")));
    }
  }

  async submit() {
    if (!this.platform.token) {
      clear(this.live).append(notice(t("embed.serverRunConnect"), "warn"));
      return;
    }
    if (this.submitButton.disabled) return;
    this.submitButton.disabled = true;
    const urls = this.platform.urls(this.slug);
    const board = h("a", { href: urls.leaderboard, target: "_blank", rel: "noopener" }, t("embed.leaderboard"));
    const line = h("div", { class: "live" }, notice(t("submitting")));
    clear(this.live).append(line, h("p", { class: "board-link" }, board));
    const show = (submission) => clear(line).append(submissionView(submission, { open: true, urls }));
    try {
      await submitAndWait(urls, this.slug, this.source, show, this.platform.token);
    } catch (error) {
      clear(line).append(notice(t("submitFailed", { message: error.message }), "error", error.code));
    } finally {
      this.submitButton.disabled = false;
    }
  }
}

export async function mountExercise(mount, runner, queue) {
  const dist = mount.dataset.dist || "";
  try {
    const bundleText = await requestText(`${dist}problems/${mount.dataset.problem}.json`);
    return new Exercise(mount, bundleText, runner, queue);
  } catch (error) {
    clear(mount).append(notice(t("loadFailed", { message: error.message }), "error"));
    mount.dataset.ready = "failed";
    return null;
  }
}
