// The learner's own submissions, in the problem page's Submissions tab: each opened one
// gets "Restore into the editor" (its code replaces the editor's, after a confirm) and
// "Compare with" another submission of the list (a line diff computed by the server:
// a shortest diff within a budget, GET /api/submissions/<id>/diff?against=<id>; past the
// budget the server says so in `note`, shown above the rows). submissions.js renders the
// rows; this module only adds to them, whenever a row's code appears.
import { clear, h } from "./dom.js";
import { requestJSON } from "./http.js";
import { lang } from "./i18n.js";

const LABELS = {
  en: {
    restore: "Restore into the editor",
    restoreConfirm: "Replace the code in the editor with submission #{id}?",
    restored: "Submission #{id} is in the editor now.",
    compareWith: "Compare with…",
    comparing: "Comparing…",
    diffTitle: "From #{from} to #{to}: {added} lines added, {removed} removed",
    noChanges: "The two submissions have the same code.",
    diffFailed: "Could not compare: {message}",
  },
  zh: {
    restore: "恢复到编辑器",
    restoreConfirm: "用提交 #{id} 的代码替换编辑器里的代码吗？",
    restored: "提交 #{id} 的代码已放进编辑器。",
    compareWith: "与其他提交比较…",
    comparing: "正在比较…",
    diffTitle: "从 #{from} 到 #{to}：新增 {added} 行，删除 {removed} 行",
    noChanges: "两次提交的代码完全相同。",
    diffFailed: "无法比较：{message}",
  },
};

export function say(key, values = {}) {
  const text = (LABELS[lang] || LABELS.en)[key];
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

function diffURL(urls, from, to) {
  const base = urls.submission.replace(/\/$/, "");
  return `${base}/${from}/diff?against=${to}`;
}

const SIGN = { " ": " ", "-": "−", "+": "+" };
const KIND = { " ": "same", "-": "del", "+": "add" };

// "From #3 to #7: ..." (the diff's own `from` and `to` are the two submissions, objects:
// the numbers are their ids).
export function diffTitle(diff) {
  return say("diffTitle", { ...diff, from: diff.from.id, to: diff.to.id });
}

// A unified view: both line numbers, the sign and the text, one row per line.
export function diffView(diff) {
  const title = h("p", { class: "diff-title" }, diffTitle(diff));
  if (!diff.added && !diff.removed) return h("div", { class: "diff-view" }, title, h("p", {}, say("noChanges")));
  const rows = diff.lines.map((line) =>
    h(
      "tr",
      { class: `diff-${KIND[line.op]}` },
      h("td", { class: "diff-no" }, line.old ?? ""),
      h("td", { class: "diff-no" }, line.new ?? ""),
      h("td", { class: "diff-sign" }, SIGN[line.op]),
      h("td", { class: "diff-text" }, h("code", {}, line.text)),
    ),
  );
  // Two submissions too different to line up: the server's note (in the reader's language).
  const note = diff.note ? h("p", { class: "diff-note muted" }, diff.note) : null;
  return h("div", { class: "diff-view" }, title, note, h("table", { class: "diff" }, h("tbody", {}, rows)));
}

function otherIds(panel, id) {
  return [...panel.querySelectorAll("details.submission[data-submission]")]
    .map((row) => row.dataset.submission)
    .filter((other, index, all) => other && other !== id && all.indexOf(other) === index);
}

function actionsFor(panel, body, { editor, urls }) {
  const row = body.closest("details.submission");
  const id = row && row.dataset.submission;
  const code = body.querySelector("pre.submitted-code");
  if (!id || !code) return null;
  const status = h("span", { class: "muted history-status", "aria-live": "polite" });
  const output = h("div", { class: "history-diff" });
  const restore = h(
    "button",
    {
      type: "button",
      class: "btn btn-ghost",
      "data-action": "restore",
      onclick: () => {
        if (!window.confirm(say("restoreConfirm", { id }))) return;
        editor.setText(code.textContent);
        status.textContent = say("restored", { id });
      },
    },
    say("restore"),
  );
  const picker = h("select", { "data-action": "compare", "aria-label": say("compareWith") });
  const fill = () => {
    const chosen = picker.value;
    clear(picker).append(
      h("option", { value: "" }, say("compareWith")),
      ...otherIds(panel, id).map((other) => h("option", { value: other }, `#${other}`)),
    );
    picker.value = chosen;
  };
  fill();
  picker.addEventListener("focus", fill);
  picker.addEventListener("change", async () => {
    const other = picker.value;
    if (!other) return;
    const [from, to] = [Number(other), Number(id)].sort((a, b) => a - b);
    clear(output).append(h("p", { class: "muted" }, say("comparing")));
    try {
      clear(output).append(diffView(await requestJSON(diffURL(urls, from, to))));
    } catch (error) {
      clear(output).append(h("p", { class: "error" }, say("diffFailed", { message: error.message })));
    }
  });
  return [h("div", { class: "history-actions" }, restore, picker, status), output];
}

// Adds the actions to every submission body that shows code, now and as rows load.
export function enhanceHistory(panel, options) {
  const enhance = () => {
    for (const body of panel.querySelectorAll(".submission-body")) {
      if (body.querySelector(".history-actions")) continue;
      const parts = actionsFor(panel, body, options);
      if (parts) body.prepend(...parts);
    }
  };
  new MutationObserver(enhance).observe(panel, { childList: true, subtree: true });
  enhance();
}
