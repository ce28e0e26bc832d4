// The problem page's workspace: statement, editor, Run (in the browser, or on the server
// for a torch-tier problem), Submit (to the server), results and submission history. It mounts on an element the server
// renders with data attributes naming the problem and the URLs to use.
import { CodeEditor } from "./editor.js";
import { clear, h } from "./dom.js";
import { DraftSync, draftNotice } from "./drafts.js";
import { openEditorial } from "./editorial.js";
import { enhanceHistory } from "./history.js";
import { requestText } from "./http.js";
import { lang, t } from "./i18n.js";
import { blamedLines, caseList, notice, reportView } from "./results.js";
import { runLabel, runOnServer } from "./serverrun.js";
import { renderMarkdown, typesetMath } from "./statement.js";
import { dropEmptyHistory, loadHistory, submissionView, submitAndWait } from "./submissions.js";
import { BROWSER_SLOWDOWN, timeLimits } from "./timelimits.js";
import { TryInput } from "./tryinput.js";

function statementText(bundle) {
  const statements = bundle.statements || bundle.statement || {};
  if (typeof statements === "string") return statements;
  return statements[lang] || statements.en || statements.zh || "";
}

function progressText(state) {
  if (state.phase === "loading") {
    if (state.restart) return t("restarting");
    if (state.stage === "start") return t("loadingStart");
    if (state.stage === "judge") return t("loadingJudge");
    const mb = (bytes) => (bytes / 1048576).toFixed(1);
    const amount = state.total ? ` ${mb(state.loaded)} / ${mb(state.total)} MB` : "";
    return `${t("loadingDownload")}${amount}`;
  }
  if (state.phase === "ready") return t("ready", { python: state.python || "" });
  if (state.phase === "running") return t("running");
  if (state.phase === "failed") return t("failedBoot", { message: state.message });
  return "";
}

function progressFraction(state) {
  if (state.phase !== "loading") return state.phase === "idle" ? 0 : 1;
  if (state.stage === "start") return 0.85;
  if (state.stage === "judge") return 0.95;
  return state.total ? 0.8 * (state.loaded / state.total) : 0.02;
}

// Statements open with their own "# Title", which the server's page already shows.
function dropRepeatedTitle(statement) {
  const title = statement.querySelector("h1");
  const first = statement.querySelector(".markdown > :first-child");
  if (title && first && first.tagName === "H1" && first.textContent.trim() === title.textContent.trim()) {
    first.remove();
  }
}

// A Run ended for taking too long: which case (when one did), the limits it went past,
// and the cases judged before it, with the slow one shown as TLE.
function timeoutView(outcome, limits) {
  const factor = BROWSER_SLOWDOWN;
  if (!outcome.case) {
    return notice(t("timeoutTotal", { seconds: limits.totalMs / 1000, limit: limits.totalS, factor }), "warn");
  }
  const message = t("timeoutCase", { seconds: limits.caseMs / 1000, limit: limits.caseS, factor });
  const cases = [...(outcome.cases || []), { name: outcome.case, verdict: "TLE", message }];
  return h(
    "div",
    { class: "report", "data-verdict": "TLE" },
    notice(t("timeoutOnCase", { name: outcome.case }), "warn"),
    caseList(cases, null),
  );
}

class Workspace {
  constructor(mount, config, bundleText, runner) {
    this.config = config;
    // The worker gets the bundle's text exactly as the server wrote it: a round trip
    // through JS numbers would turn an expected 1792.0 into 1792, and a float answer
    // would then be judged against an int.
    this.bundleJSON = bundleText;
    this.bundle = JSON.parse(bundleText);
    this.runner = runner;
    this.build(mount);
    this.editor = new CodeEditor({
      parent: this.editorHost,
      slug: config.slug,
      starter: this.bundle.starter || "",
      onRun: () => this.run(),
      onSubmit: config.loggedIn ? () => this.submit() : null,
      label: t("run"),
    });
    document.addEventListener("keydown", (event) => this.shortcut(event));
    if (config.loggedIn) {
      enhanceHistory(this.historyPanel, { editor: this.editor, urls: config.urls });
      loadHistory(this.historyList, config.urls);
      this.drafts = new DraftSync({
        url: config.urls.draft,
        slug: config.slug,
        editor: this.editor,
        onLoaded: (loaded) => this.showDraftLoaded(loaded),
      });
      this.editor.onChange = (text) => {
        if (this.draftLoaded) this.draftLoaded.remove();
        this.drafts.changed(text);
      };
      this.drafts.start();
    }
  }

  button(key, kind, onclick, extra = {}) {
    return h("button", { type: "button", class: `btn btn-${kind}`, "data-action": key, onclick, ...extra }, t(key));
  }

  // Run is offered when Python runs here, or when the server runs it for a logged-in user.
  get canRun() {
    return this.config.runnable || (this.config.serverRun && this.config.loggedIn);
  }

  introText() {
    if (this.config.runnable) return t("noRunYet");
    if (!this.config.serverRun) return t("serverOnly");
    return this.config.loggedIn ? t("serverRunIntro") : t("serverRunLogin");
  }

  build(mount) {
    const disabled = this.config.runnable; // until Python is ready
    this.runButton = this.button("run", "primary", () => this.run(), { title: t("runTitle"), disabled });
    this.stopButton = this.button("stop", "danger", () => this.runner.stop(), { hidden: true });
    this.submitButton = this.config.loggedIn
      ? this.button("submit", "accent", () => this.submit(), { title: t("submitTitle") })
      : h("a", { class: "btn btn-accent", href: this.config.loginURL }, t("loginToSubmit"));
    const resetButton = this.button("reset", "ghost", () => this.reset());
    this.statusText = h("span", { class: "runtime-text", "data-runtime": "" });
    this.statusBar = h("span", { class: "runtime-bar" });
    this.editorHost = h("div", { class: "editor" });
    this.resultsPanel = h("div", { class: "panel", "data-panel": "results" }, notice(this.introText()));
    // Submissions made on this page go above the list (`.live`), the list loads into its own element.
    this.historyList = h("div", { class: "history-list" });
    this.historyPanel = h("div", { class: "panel", "data-panel": "submissions", hidden: true }, this.historyList);
    this.tryPanel = this.tryInputPanel();
    const tabs = this.tryPanel ? ["results", "submissions", "try"] : ["results", "submissions"];
    this.tabs = tabs.map((name) =>
      h("button", { type: "button", class: "tab", "data-tab": name, onclick: () => this.showTab(name) }, t(name)),
    );
    const statement = this.statement();
    // On a phone the statement and the code are two tabs (CSS shows these only there).
    this.paneTabs = ["statement", "code"].map((name) =>
      h("button", { type: "button", class: "tab", role: "tab", "data-view": name, onclick: () => this.showView(name) }, t(name)),
    );
    const workspace = h(
        "div",
        { class: "workspace" },
        h("div", { class: "pane-tabs", role: "tablist" }, this.paneTabs),
        h("section", { class: "pane statement-pane", "aria-label": t("statement") }, statement),
        h(
          "section",
          { class: "pane code-pane" },
          h(
            "div",
            { class: "toolbar" },
            this.config.runnable ? [this.runButton, this.stopButton] : null,
            !this.config.runnable && this.canRun ? this.runButton : null,
            this.submitButton,
            h("span", { class: "spacer" }),
            this.canRun ? h("span", { class: "hint" }, t("runHint")) : null,
            resetButton,
          ),
          this.editorHost,
          this.config.runnable
            ? h("div", { class: "runtime" }, h("span", { class: "runtime-track" }, this.statusBar), this.statusText)
            : null,
          h("div", { class: "tabs", role: "tablist" }, this.tabs),
          this.resultsPanel,
          this.historyPanel,
          this.tryPanel,
          h("p", { class: "fineprint" }, t("publicOnly")),
        ),
      );
    // The server's page (statement, a plain-form fallback editor, a history table)
    // is replaced as a whole; without scripts that page keeps working on its own.
    const page = mount.closest(".problem") || mount;
    if (page === mount && mount.id === "workspace") clear(mount).append(workspace);
    else page.replaceWith(workspace);
    this.workspace = workspace;
    this.showTab("results");
    this.showView("statement");
  }

  // "Try your own input", for a code problem with public cases to start from. Built before
  // the editor exists: it asks for the editor's text only when it runs.
  tryInputPanel() {
    const inputs = this.bundle.inputs || [];
    if (!inputs.length || !this.config.urls.tryInput) return null;
    const tryInput = new TryInput({
      inputs,
      url: this.config.urls.tryInput,
      loginURL: this.config.loginURL,
      loggedIn: this.config.loggedIn,
      runner: this.config.runnable ? this.runner : null,
      bundle: this.bundle,
      bundleJSON: this.bundleJSON,
      code: () => this.editor.text,
      markErrors: (lines) => this.editor.markErrors(lines),
      onLine: (line) => this.editor.revealLine(line),
    });
    return h("div", { class: "panel", "data-panel": "try", hidden: true }, tryInput.element);
  }

  showView(name) {
    this.workspace.dataset.view = name;
    for (const tab of this.paneTabs) {
      tab.classList.toggle("active", tab.dataset.view === name);
      tab.setAttribute("aria-selected", String(tab.dataset.view === name));
    }
  }

  // Ctrl/Cmd-Enter runs and Ctrl/Cmd-Shift-Enter submits from anywhere on the page; the
  // editor handles both itself (and marks the event handled) when it has the focus.
  shortcut(event) {
    if (event.defaultPrevented || event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    if (event.shiftKey && !this.config.loggedIn) return;
    event.preventDefault();
    if (event.shiftKey) this.submit();
    else this.run();
  }

  // While a new Run is on its way the last results stay, greyed and marked busy, so the
  // eye can compare; they are replaced when the new report arrives.
  setBusy(busy) {
    this.resultsPanel.classList.toggle("is-stale", busy);
    if (busy) this.resultsPanel.setAttribute("aria-busy", "true");
    else this.resultsPanel.removeAttribute("aria-busy");
  }

  // The server's rendered statement (#statement) when the page has one, else the
  // bundle's Markdown rendered here; either way math is typeset by KaTeX.
  statement() {
    const served = document.getElementById("statement");
    if (served) {
      served.classList.add("statement");
      dropRepeatedTitle(served);
      typesetMath(served);
      return served;
    }
    const article = h("article", { class: "statement markdown" });
    article.innerHTML = renderMarkdown(statementText(this.bundle));
    return article;
  }

  showTab(name) {
    for (const tab of this.tabs) tab.classList.toggle("active", tab.dataset.tab === name);
    this.resultsPanel.hidden = name !== "results";
    this.historyPanel.hidden = name !== "submissions";
    if (this.tryPanel) this.tryPanel.hidden = name !== "try";
  }

  showRuntime(state) {
    this.statusText.textContent = progressText(state);
    this.statusBar.style.width = `${Math.round(progressFraction(state) * 100)}%`;
    this.statusBar.parentElement.dataset.phase = state.phase;
    if (state.phase === "ready" && this.runner.boot) {
      const { ms, phases } = this.runner.boot;
      const part = (name) => `${name} ${Math.round(phases[name])} ms`;
      this.statusText.title = `${Math.round(ms)} ms: ${["download", "python", "judge"].map(part).join(", ")}`;
      this.statusText.dataset.boot = JSON.stringify(this.runner.boot);
    }
    const running = state.phase === "running";
    this.runButton.disabled = state.phase !== "ready";
    this.runButton.hidden = running;
    this.stopButton.hidden = !running;
  }

  async run() {
    if (!this.config.runnable) return this.runRemotely();
    if (!this.runner || !this.runner.ready || this.runner.job) return;
    this.showTab("results");
    this.showView("code");
    this.editor.markErrors([]);
    const limits = timeLimits(this.bundle);
    this.setBusy(true);
    try {
      this.showOutcome(await this.runner.run(this.bundleJSON, this.editor.text, limits), limits);
    } finally {
      this.setBusy(false);
    }
  }

  // A torch-tier Run: the server judges the public cases; one run at a time.
  async runRemotely() {
    if (!this.canRun || this.remoteRun) return;
    this.showTab("results");
    this.showView("code");
    this.editor.markErrors([]);
    this.runButton.disabled = true;
    clear(this.resultsPanel).append(notice(t("serverRunning")));
    this.resultsPanel.dataset.state = "running";
    this.resultsPanel.setAttribute("aria-busy", "true");
    const onUpdate = (run) => {
      const text = runLabel(run, t("serverRunning"));
      const shown = this.resultsPanel.firstChild;
      if (!shown || shown.textContent !== text) clear(this.resultsPanel).append(notice(text));
    };
    this.remoteRun = runOnServer(this.config.urls.run, this.editor.text, { onUpdate });
    try {
      this.showOutcome(await this.remoteRun);
    } finally {
      this.remoteRun = null;
      this.runButton.disabled = false;
      delete this.resultsPanel.dataset.state;
      this.resultsPanel.removeAttribute("aria-busy");
    }
  }

  showOutcome(outcome, limits = null) {
    const panel = clear(this.resultsPanel);
    if (outcome.status === "done") {
      const onLine = (line) => this.editor.revealLine(line);
      panel.append(reportView(outcome.report, outcome.ms, onLine));
      this.editor.markErrors(blamedLines(outcome.report));
    } else if (outcome.status === "stopped") {
      panel.append(notice(t("stopped"), "warn"));
    } else if (outcome.status === "timeout") {
      panel.append(timeoutView(outcome, limits));
    } else {
      panel.append(notice(t("runFailed", { message: outcome.message }), "error"));
    }
  }

  // A newer draft from another device or tab replaced the code: say so, with an Undo.
  showDraftLoaded(loaded) {
    if (this.draftLoaded) this.draftLoaded.remove();
    this.draftLoaded = draftNotice(loaded, this.editor);
    this.editorHost.before(this.draftLoaded);
  }

  reset() {
    if (window.confirm(t("resetConfirm"))) this.editor.reset();
  }

  async submit() {
    if (this.submitButton.disabled) return; // one submission at a time, shortcut or click
    this.showView("code");
    this.showTab("submissions");
    this.submitButton.disabled = true;
    const live = h("div", { class: "live" }, notice(t("submitting")));
    this.historyPanel.prepend(live);
    dropEmptyHistory(this.historyPanel);
    const show = (submission) =>
      clear(live).append(submissionView(submission, { open: true, urls: this.config.urls }));
    let final = null;
    try {
      final = await submitAndWait(this.config.urls, this.config.slug, this.editor.text, show);
    } catch (error) {
      // A refused repeat (409 duplicate_submission) says which submission it repeats.
      clear(live).append(notice(t("submitFailed", { message: error.message }), "error", error.code));
    } finally {
      this.submitButton.disabled = false;
    }
    if (final && final.verdict === "AC") await this.openEditorial(live);
  }

  // An accepted submission opens the editorial at once, not after a reload.
  async openEditorial(live) {
    try {
      if (await openEditorial(this.config.urls.editorial)) live.append(notice(t("editorialOpened")));
    } catch {
      // Not opened this time (offline): the page shows it after the next reload.
    }
  }
}

// The runner was started by the entry script (Python loads while this module and the
// problem bundle are still on their way); null for problems that cannot run here.
export async function mountWorkspace(mount, config, runner) {
  let workspace = null;
  try {
    const bundleText = await requestText(config.bundleURL);
    workspace = new Workspace(mount, config, bundleText, runner);
    if (runner) runner.listen((state) => workspace.showRuntime(state));
    return workspace;
  } catch (error) {
    clear(mount).append(notice(t("loadFailed", { message: error.message }), "error"));
    return null;
  }
}
