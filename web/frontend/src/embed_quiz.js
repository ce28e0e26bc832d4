// A quiz embedded in a handbook page: its questions as a form whose answers make the
// answer sheet (JSON, question id -> answer) the judge reads, the same sheet a Submit
// sends. The public checks run in the page's Python worker (judge/browser/public_run.py).
import { h } from "./dom.js";
import { bilingual, t } from "./i18n.js";
import { caseMessage } from "./results.js";
import { renderInline, renderMarkdown } from "./statement.js";

function markdown(tag, text) {
  const element = h(tag, { class: "markdown" });
  element.innerHTML = tag === "span" ? renderInline(bilingual(text)) : renderMarkdown(bilingual(text));
  return element;
}

function question(q, index, given, onChange) {
  const name = `q-${q.id}-${index}`;
  const item = h("li", { class: "question", "data-question": q.id, "data-type": q.type }, markdown("div", q.prompt));
  if (q.type === "choice" || q.type === "choices") {
    const single = q.type === "choice";
    item.append(h("p", { class: "hint" }, t(single ? "embed.quizChooseOne" : "embed.quizChooseAll")));
    const chosen = single ? [given] : Array.isArray(given) ? given : [];
    for (const option of q.options) {
      const input = h("input", { type: single ? "radio" : "checkbox", name, value: option.id, onchange: onChange });
      input.checked = chosen.includes(option.id);
      item.append(h("label", { class: "option" }, input, " ", markdown("span", option)));
    }
  } else {
    const hint = q.type === "expression" ? t("embed.quizExpression", { names: (q.variables || []).join(", ") }) : t("embed.quizNumber");
    item.append(h("p", { class: "hint" }, hint, q.unit ? ` (${bilingual(q.unit)})` : ""));
    const input = h("input", { type: "text", class: "answer", name, autocomplete: "off", spellcheck: "false", oninput: onChange });
    input.value = given === null || given === undefined ? "" : String(given);
    item.append(input);
  }
  return item;
}

// What a question's mark says, in the page's language: the judge's own words where its
// catalog has them; a number that is not one, an expression it cannot read, or a question
// only the platform marks, said here.
function markText(q, result, notNumber, platform) {
  if (notNumber) return t("embed.quizNotNumber");
  if (!result.verdict) return t(platform ? "embed.quizAtSubmit" : "embed.quizPlatformOnly");
  if (result.verdict === "CE" && q.type === "expression" && !result.message_key) {
    return t("embed.quizBadExpression", { message: result.message || "" });
  }
  return caseMessage(result);
}

// The form, a way to read its sheet and a way to mark it: {element, sheet(): JSON text,
// mark(report)}. `saved`: the sheet last written here (JSON text), its answers filled back
// in. A number question's text that is not a number is sent as no answer and marked here,
// in the reader's language, rather than sent for the judge to refuse in its own words.
export function quizForm(bundle, saved, onChange, { platform = false } = {}) {
  let answers = {};
  try {
    answers = JSON.parse(saved || bundle.starter || "{}") || {};
  } catch {
    answers = {};
  }
  const items = bundle.questions.map((q, i) => question(q, i, answers[q.id], onChange));
  const element = h("ol", { class: "questions" }, items);
  let notNumbers = new Set();
  const sheet = () => {
    const out = {};
    notNumbers = new Set();
    bundle.questions.forEach((q, i) => {
      const item = items[i];
      if (q.type === "choice") {
        out[q.id] = item.querySelector("input:checked")?.value ?? null;
      } else if (q.type === "choices") {
        const picked = [...item.querySelectorAll("input:checked")].map((input) => input.value);
        out[q.id] = picked.length ? picked : null;
      } else {
        const text = item.querySelector("input.answer").value.trim();
        // "1,500" and "1 500" are numbers as a reader writes them.
        const number = Number(text.replace(/(?<=\d)[,_\s](?=\d)/g, ""));
        if (q.type === "number" && text !== "" && !Number.isFinite(number)) notNumbers.add(q.id);
        out[q.id] = text === "" || notNumbers.has(q.id) ? null : q.type === "number" ? number : text;
      }
    });
    return JSON.stringify(out, null, 2);
  };
  // Each question's verdict where it is asked: right, wrong, or marked only by the platform
  // (a choice's answer is not in the page); the counts of each, for the summary.
  const mark = (report) => {
    const counts = { right: 0, wrong: 0, later: 0 };
    const byName = new Map((report.cases || []).map((result) => [result.name, result]));
    bundle.questions.forEach((q, i) => {
      const item = items[i];
      const result = byName.get(q.id);
      item.querySelector(".quiz-mark")?.remove();
      if (!result) {
        delete item.dataset.verdict;
        return;
      }
      const verdict = notNumbers.has(q.id) ? "CE" : result.verdict || "unchecked";
      item.dataset.verdict = verdict;
      counts[verdict === "AC" ? "right" : verdict === "unchecked" ? "later" : "wrong"] += 1;
      const said = markText(q, result, notNumbers.has(q.id), platform);
      if (said) item.append(h("p", { class: "quiz-mark" }, said));
    });
    return counts;
  };
  return { element, sheet, mark };
}
