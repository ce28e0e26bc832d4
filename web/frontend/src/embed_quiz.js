// A quiz embedded in a handbook page: its questions as a form whose answers make the
// answer sheet (JSON, question id -> answer) the judge reads, the same sheet a Submit
// sends. The public checks run in the page's Python worker (judge/browser/public_run.py).
import { h } from "./dom.js";
import { lang, t } from "./i18n.js";
import { renderInline, renderMarkdown } from "./statement.js";

function said(text) {
  if (typeof text === "string") return text;
  return (text && (text[lang] || text.en || text.zh)) || "";
}

function markdown(tag, text) {
  const element = h(tag, { class: "markdown" });
  element.innerHTML = tag === "span" ? renderInline(said(text)) : renderMarkdown(said(text));
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
    item.append(h("p", { class: "hint" }, hint, q.unit ? ` (${said(q.unit)})` : ""));
    const input = h("input", { type: "text", class: "answer", name, autocomplete: "off", spellcheck: "false", oninput: onChange });
    input.value = given === null || given === undefined ? "" : String(given);
    item.append(input);
  }
  return item;
}

// The form and a way to read its sheet: {element, sheet(): JSON text}. `saved`: the
// sheet last written here (JSON text), its answers filled back in.
export function quizForm(bundle, saved, onChange) {
  let answers = {};
  try {
    answers = JSON.parse(saved || bundle.starter || "{}") || {};
  } catch {
    answers = {};
  }
  const items = bundle.questions.map((q, i) => question(q, i, answers[q.id], onChange));
  const element = h("ol", { class: "questions" }, items);
  const sheet = () => {
    const out = {};
    bundle.questions.forEach((q, i) => {
      const item = items[i];
      if (q.type === "choice") {
        out[q.id] = item.querySelector("input:checked")?.value ?? null;
      } else if (q.type === "choices") {
        const picked = [...item.querySelectorAll("input:checked")].map((input) => input.value);
        out[q.id] = picked.length ? picked : null;
      } else {
        const text = item.querySelector("input.answer").value.trim();
        const number = Number(text);
        out[q.id] = text === "" ? null : q.type === "number" && Number.isFinite(number) ? number : text;
      }
    });
    return JSON.stringify(out, null, 2);
  };
  return { element, sheet };
}
