// Drafts on the server for a logged-in learner: the editor's code is sent a moment after
// they stop typing (PUT /api/problems/<slug>/draft), and on opening the problem the
// server's draft replaces this browser's own when it is newer, so the code follows the
// learner to another browser. localStorage still holds the browser's copy (editor.js);
// this module adds when that copy was last edited, to compare with the server's time.
// The two clocks are the server's and this machine's: a skew of more than the time
// between two sessions at different machines could pick the older draft.
// Replacing the editor's code is never silent: onLoaded gets the code it replaced, and
// the page says when the draft was saved with an Undo (draftNotice).
import { timeElement } from "./dates.js";
import { h } from "./dom.js";
import { requestJSON } from "./http.js";
import { aroundSlot, t } from "./i18n.js";

const PUSH_DELAY_MS = 1000;

export function draftStampKey(slug) {
  return `pj:code-at:${slug}`;
}

function readStamp(slug) {
  try {
    return Number(window.localStorage.getItem(draftStampKey(slug))) || 0;
  } catch {
    return 0;
  }
}

function writeStamp(slug, ms) {
  try {
    window.localStorage.setItem(draftStampKey(slug), String(ms));
  } catch {
    // Storage disabled: the server's draft then always wins, which is the safe side.
  }
}

function csrfToken() {
  return document.querySelector('meta[name="csrf-token"]')?.content ?? "";
}

export class DraftSync {
  constructor({ url, slug, editor, onLoaded = null }) {
    this.url = url;
    this.onLoaded = onLoaded;
    this.slug = slug;
    this.editor = editor;
    this.timer = null;
    this.pending = null;
    this.applying = false;
    // Leaving the page before the delay ran out: send what is pending anyway.
    window.addEventListener("pagehide", () => this.flush());
  }

  // Loads the server's draft when it is newer than this browser's last edit.
  async start() {
    let server;
    try {
      server = await requestJSON(this.url);
    } catch {
      return; // offline or logged out meanwhile: the browser's copy is all there is
    }
    const serverAt = server.updated_at ? Date.parse(server.updated_at) : 0;
    if (server.code == null || serverAt <= readStamp(this.slug)) return;
    if (server.code !== this.editor.text) {
      const previous = this.editor.text;
      this.applying = true;
      try {
        this.editor.setText(server.code);
      } finally {
        this.applying = false;
      }
      if (this.onLoaded) this.onLoaded({ previous, updatedAt: server.updated_at });
    }
    writeStamp(this.slug, serverAt);
  }

  // Called on every edit (editor.js onChange); a change made by start() is not an edit.
  changed(text) {
    if (this.applying) return;
    writeStamp(this.slug, Date.now());
    this.pending = text;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.push(), PUSH_DELAY_MS);
  }

  async push() {
    const text = this.pending;
    this.pending = null;
    if (text === null || !text.trim()) return; // the server keeps no empty draft
    try {
      await requestJSON(this.url, { method: "PUT", body: { code: text } });
    } catch {
      // Not saved this time (offline, too large): the next edit tries again, and the
      // browser's own copy is still there.
    }
  }

  flush() {
    if (this.pending === null || !this.pending.trim()) return;
    clearTimeout(this.timer);
    const body = JSON.stringify({ code: this.pending });
    this.pending = null;
    fetch(this.url, {
      method: "PUT",
      keepalive: true,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken() },
      body,
    }).catch(() => {});
  }
}

// "Loaded your draft from <time>" with Undo, which puts back the code the draft replaced
// (as an edit, so that code is saved as the draft again). The notice goes at the first
// edit after it: the learner has then taken the draft, and Undo would lose that edit.
export function draftNotice({ previous, updatedAt }, editor) {
  const [before, after] = aroundSlot("draftLoaded", "time");
  const element = h("div", { class: "notice notice-info draft-loaded", role: "status" });
  const undo = h(
    "button",
    {
      type: "button",
      class: "btn btn-ghost",
      "data-action": "undo-draft",
      onclick: () => {
        element.remove();
        editor.setText(previous);
      },
    },
    t("undo"),
  );
  element.append(before, timeElement(updatedAt), after, " ", undo);
  return element;
}
