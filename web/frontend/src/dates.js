// One date format on every page: the viewer's locale (the page's language) in the
// viewer's own time zone. The server writes each moment as <time datetime="...Z"> with
// UTC text, which is what a page without scripts shows; localiseTimes rewrites every
// such element, and the lists built here use the same formatTime, so a submission reads
// the same on the problem page, the submissions list and the boards.
import { lang } from "./i18n.js";

const LOCALES = { zh: "zh-CN", en: "en-GB" };

// The viewer's own English variant when the browser names one (en-US writes 3/5/2025,
// en-GB 05/03/2025: a reader expects their own), else en-GB.
function locale() {
  if (lang !== "en") return LOCALES[lang] || LOCALES.en;
  const own = (navigator.languages || []).find((tag) => /^en\b/i.test(tag));
  return own || LOCALES.en;
}

let formatter = null;

export function formatTime(stamp) {
  const date = new Date(stamp);
  if (!stamp || Number.isNaN(date.getTime())) return String(stamp || "");
  formatter = formatter || new Intl.DateTimeFormat(locale(), { dateStyle: "medium", timeStyle: "short" });
  return formatter.format(date);
}

// The element for a moment, the one a server template writes: <time datetime title>.
export function timeElement(stamp) {
  const element = document.createElement("time");
  element.dateTime = stamp;
  element.title = stamp;
  element.textContent = formatTime(stamp);
  return element;
}

export function localiseTimes(root = document) {
  for (const element of root.querySelectorAll("time[datetime]")) {
    if (element.dataset.localised) continue;
    const stamp = element.getAttribute("datetime");
    if (Number.isNaN(new Date(stamp).getTime())) continue;
    element.title = stamp;
    element.textContent = formatTime(stamp);
    element.dataset.localised = "1";
  }
}
