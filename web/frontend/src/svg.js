// SVG elements built with DOM APIs, like dom.js's h(): text goes in as text nodes, so
// nothing from a report is parsed as markup. Shared by the case pictures.
export const SVG_NS = "http://www.w3.org/2000/svg";

export function s(tag, attrs = {}, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

// Every picture is an image with a name and a description a screen reader reads out.
let counter = 0;
export function svgImage(width, height, title, desc, ...children) {
  counter += 1;
  const ids = { title: `pic-title-${counter}`, desc: `pic-desc-${counter}` };
  return s(
    "svg",
    {
      viewBox: `0 0 ${width} ${height}`,
      width,
      height,
      role: "img",
      "aria-labelledby": `${ids.title} ${ids.desc}`,
      class: "picture-svg",
    },
    s("title", { id: ids.title }, title),
    s("desc", { id: ids.desc }, desc),
    ...children,
  );
}

// Labels in both languages, per picture module; `language` defaults to the page's.
export function sayIn(labels, language, key, params = {}) {
  const text = (labels[language] || labels.en)[key] ?? labels.en[key] ?? key;
  return String(text).replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ""));
}
