// The editor's colours follow the page: CodeMirror's own light theme by default, and a
// dark theme (surface, gutters, selection and syntax colours) while the system asks for
// dark (prefers-color-scheme). A compartment swaps it live when the system setting flips.
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { Compartment } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { tags } from "@lezer/highlight";

const darkTheme = EditorView.theme(
  {
    "&": { color: "#e3e8f0", backgroundColor: "#12171f" },
    ".cm-content": { caretColor: "#e3e8f0" },
    ".cm-cursor, .cm-dropCursor": { borderLeftColor: "#e3e8f0" },
    "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection":
      { backgroundColor: "#2c3f63" },
    ".cm-gutters": { backgroundColor: "#12171f", color: "#8a94a6", borderRight: "1px solid #2a313d" },
    ".cm-activeLine": { backgroundColor: "#1a212c" },
    ".cm-activeLineGutter": { backgroundColor: "#1a212c", color: "#c3cad6" },
    ".cm-matchingBracket, &.cm-focused .cm-matchingBracket": { backgroundColor: "#33415a", outline: "none" },
    ".cm-tooltip": { backgroundColor: "#1f2530", color: "#e3e8f0", border: "1px solid #2a313d" },
    ".cm-panels": { backgroundColor: "#171c25", color: "#e3e8f0" },
  },
  { dark: true },
);

const darkHighlight = HighlightStyle.define([
  { tag: tags.keyword, color: "#c792ea" },
  { tag: [tags.definitionKeyword, tags.controlKeyword, tags.operatorKeyword], color: "#c792ea" },
  { tag: [tags.string, tags.special(tags.string)], color: "#a5d6a7" },
  { tag: [tags.number, tags.bool, tags.null], color: "#f7b267" },
  { tag: tags.comment, color: "#7f8a9c", fontStyle: "italic" },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName)], color: "#82aaff" },
  { tag: tags.definition(tags.variableName), color: "#89ddff" },
  { tag: [tags.className, tags.typeName], color: "#ffcb6b" },
  { tag: tags.propertyName, color: "#b3c7e6" },
  { tag: tags.operator, color: "#89ddff" },
  { tag: tags.invalid, color: "#ff6b6b" },
]);

const dark = [darkTheme, syntaxHighlighting(darkHighlight)];
const scheme = typeof window.matchMedia === "function" ? window.matchMedia("(prefers-color-scheme: dark)") : null;

// Whether the page is dark, and how to hear when that changes: the system's setting on the
// platform's pages; a handbook page's own scheme in an embed (followPage).
let isDark = () => Boolean(scheme && scheme.matches);
let onFlip = (listener) => scheme && scheme.addEventListener("change", listener);

export function followPage(darkNow, watch) {
  isDark = darkNow;
  onFlip = watch;
}

function current() {
  return isDark() ? dark : [];
}

// The extension to give a new editor; once the view exists, call follow(view).
export const colourScheme = new Compartment();

export function schemeExtension() {
  return colourScheme.of(current());
}

export function followScheme(view) {
  onFlip(() => view.dispatch({ effects: colourScheme.reconfigure(current()) }));
}
