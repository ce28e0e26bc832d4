// A problem's hints, one at a time: the server renders every hint as a closed <details>
// (all of them reachable without scripts); here those not yet revealed are hidden and a
// button offers the next. How many were revealed is kept per problem in localStorage, so
// a reload or a later visit does not hide again what the learner has already read.

import "./guidance.css";

export function hintsKey(slug) {
  return `pj:hints:${slug}`;
}

function loadCount(slug) {
  try {
    return Number.parseInt(window.localStorage.getItem(hintsKey(slug)) || "0", 10) || 0;
  } catch {
    return 0; // storage disabled: start from no hint revealed
  }
}

function saveCount(slug, count) {
  try {
    window.localStorage.setItem(hintsKey(slug), String(count));
  } catch {
    // Quota or disabled storage: the hint is still shown, only not remembered.
  }
}

export function enhanceHints(section) {
  const slug = section.dataset.slug;
  const hints = [...section.querySelectorAll("details.hint")];
  const button = section.querySelector("button[data-action=next-hint]");
  if (!slug || !hints.length || !button) return;
  let revealed = Math.min(loadCount(slug), hints.length);
  const show = () => {
    hints.forEach((hint, index) => {
      hint.hidden = index >= revealed;
    });
    button.hidden = revealed >= hints.length;
    button.textContent = section.dataset.nextLabel
      .replace("{n}", String(revealed + 1))
      .replace("{total}", String(hints.length));
  };
  button.addEventListener("click", () => {
    revealed = Math.min(revealed + 1, hints.length);
    saveCount(slug, revealed);
    show();
    hints[revealed - 1].open = true;
  });
  show();
}
