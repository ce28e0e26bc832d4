// The code editor: CodeMirror 6 with Python highlighting, per-problem autosave in
// localStorage, Ctrl/Cmd-Enter to run (Ctrl/Cmd-Shift-Enter to submit), highlighted error
// lines, and a dark theme when the system asks for one.
import { basicSetup } from "codemirror";
import { indentWithTab } from "@codemirror/commands";
import { indentUnit } from "@codemirror/language";
import { python } from "@codemirror/lang-python";
import { EditorState, Prec, StateEffect, StateField } from "@codemirror/state";
import { Decoration, EditorView, keymap } from "@codemirror/view";
import { followScheme, schemeExtension } from "./editortheme.js";

const SAVE_DELAY_MS = 300;

const setErrorLines = StateEffect.define();

// Line numbers (1-based) that the last run blamed; cleared on the next edit.
const errorLines = StateField.define({
  create: () => Decoration.none,
  update(decorations, tr) {
    if (tr.docChanged) return Decoration.none;
    for (const effect of tr.effects) {
      if (effect.is(setErrorLines)) {
        const marks = [];
        for (const number of [...new Set(effect.value)].sort((a, b) => a - b)) {
          if (number >= 1 && number <= tr.state.doc.lines) {
            const line = tr.state.doc.line(number);
            marks.push(Decoration.line({ class: "cm-error-line" }).range(line.from));
          }
        }
        return Decoration.set(marks);
      }
    }
    return decorations;
  },
  provide: (field) => EditorView.decorations.from(field),
});

export function storageKey(slug) {
  return `pj:code:${slug}`;
}

function loadSaved(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null; // storage disabled: the editor still works, it just forgets
  }
}

function save(key, text) {
  try {
    window.localStorage.setItem(key, text);
  } catch {
    // Quota exceeded or storage disabled; losing autosave is better than failing.
  }
}

// CodeMirror adds its styles as a <style> element, which the page's Content-Security-Policy
// allows only with this request's nonce; the server puts it on the page's own <style>.
function pageNonce() {
  return document.querySelector("style[nonce]")?.nonce ?? "";
}

export class CodeEditor {
  constructor({ parent, slug, starter, onRun, onSubmit = null, label, onChange = null, key = null }) {
    this.slug = slug;
    this.key = key || storageKey(slug);
    this.starter = starter;
    this.onChange = onChange; // every change, at once (drafts.js debounces its own saves)
    let timer = null;
    const autosave = EditorView.updateListener.of((update) => {
      if (!update.docChanged) return;
      if (this.onChange) this.onChange(update.state.doc.toString());
      clearTimeout(timer);
      timer = setTimeout(() => save(this.key, update.state.doc.toString()), SAVE_DELAY_MS);
    });
    // Mod-Enter runs and Mod-Shift-Enter submits here too: the page's own shortcut
    // listener would otherwise lose to CodeMirror's Enter (a new line).
    const keys = [{ key: "Mod-Enter", run: () => (onRun(), true), preventDefault: true }];
    if (onSubmit) keys.push({ key: "Mod-Shift-Enter", run: () => (onSubmit(), true), preventDefault: true });
    const runKeys = Prec.highest(keymap.of(keys));
    this.view = new EditorView({
      parent,
      state: EditorState.create({
        doc: loadSaved(this.key) ?? starter,
        extensions: [
          runKeys,
          basicSetup,
          keymap.of([indentWithTab]),
          indentUnit.of("    "),
          python(),
          errorLines,
          autosave,
          EditorView.contentAttributes.of({ "aria-label": label }),
          EditorView.cspNonce.of(pageNonce()),
          schemeExtension(),
        ],
      }),
    });
    followScheme(this.view);
  }

  get text() {
    return this.view.state.doc.toString();
  }

  setText(text) {
    const doc = this.view.state.doc;
    this.view.dispatch({ changes: { from: 0, to: doc.length, insert: text } });
    save(this.key, text);
  }

  reset() {
    this.setText(this.starter);
  }

  markErrors(lines) {
    this.view.dispatch({ effects: setErrorLines.of(lines) });
  }

  revealLine(number) {
    const doc = this.view.state.doc;
    if (number < 1 || number > doc.lines) return;
    const line = doc.line(number);
    this.view.dispatch({
      selection: { anchor: line.from, head: line.to },
      effects: EditorView.scrollIntoView(line.from, { y: "center" }),
    });
    this.view.focus();
  }
}
