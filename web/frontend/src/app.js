// Entry point of every page: styles, the language switch, and the problem workspace
// where the server rendered a mount for it.
import "katex/dist/katex.min.css";
import "./styles.css";
import { lang, setLanguage } from "./i18n.js";
import { typesetMath } from "./statement.js";
import { mountWorkspace } from "./workspace.js";

function wireLanguageSwitch() {
  for (const control of document.querySelectorAll("[data-set-lang]")) {
    control.classList.toggle("active", control.dataset.setLang === lang);
    control.addEventListener("click", (event) => {
      event.preventDefault();
      setLanguage(control.dataset.setLang);
    });
  }
}

function start() {
  wireLanguageSwitch();
  typesetMath(document.body);
  const mount = document.getElementById("workspace");
  if (mount) mountWorkspace(mount);
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", start);
} else {
  start();
}
