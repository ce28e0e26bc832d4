// The editorial, opened on the page as soon as a submission is accepted: the server's
// page only holds it for a viewer who had an accepted submission when it was rendered,
// so without this the learner saw it only after a reload. GET /api/problems/<slug>/editorial
// answers both languages' Markdown (`editorial: {zh, en}`) (or 403 until the accepted verdict is stored).
import { h } from "./dom.js";
import { requestJSON } from "./http.js";
import { lang } from "./i18n.js";
import { renderMarkdown } from "./statement.js";

// Resolves true when it has just put the editorial into the page; false when the problem
// has none or the page already showed it.
export async function openEditorial(url) {
  const section = document.getElementById("editorial");
  const locked = section && section.querySelector(".editorial-locked");
  if (!locked) return false;
  const texts = (await requestJSON(url)).editorial || {};
  const body = h("div", { class: "markdown" });
  body.innerHTML = renderMarkdown(texts[lang] || texts.en || texts.zh || "");
  locked.replaceWith(body);
  return true;
}
