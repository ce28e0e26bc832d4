// A handbook page's link to the platform (the plugin's `platform_url`): a log-in that asks
// the platform for an API token (POST /api/token), kept in this browser per platform, and
// the platform's addresses for a problem. Every call carries the token, never a cookie: the
// platform allows the handbook's origin by CORS without credentials, so its CSRF rule
// (cookie-borne requests need the page's token) stays as it is.
import { clear, h } from "./dom.js";
import { requestJSON } from "./http.js";
import { t } from "./i18n.js";
import { storedItem, storeItem } from "./local_store.js";
import { notice } from "./results.js";

const TOKEN_DAYS = 14; // the platform gives a handbook page's token 14 days at most

export class Platform {
  constructor(origin) {
    this.origin = origin.replace(/\/$/, "");
    this.key = `pj:platform:${this.origin}`;
    this.listeners = [];
    const saved = storedItem(this.key);
    try {
      this.login = saved ? JSON.parse(saved) : null; // {token, username}
    } catch {
      this.login = null;
    }
  }

  get token() {
    return this.login ? this.login.token : null;
  }

  get host() {
    return new URL(this.origin).host;
  }

  urls(slug) {
    const api = `${this.origin}/api`;
    return {
      submit: `${api}/submissions`,
      submission: `${api}/submissions`,
      run: `${api}/problems/${encodeURIComponent(slug)}/run`,
      leaderboard: `${this.origin}/leaderboard/${encodeURIComponent(slug)}`,
    };
  }

  // Every embed of the page shows the same log-in: told when it changes.
  listen(listener) {
    this.listeners.push(listener);
  }

  changed() {
    storeItem(this.key, this.login ? JSON.stringify(this.login) : null);
    for (const listener of this.listeners) listener(this.login);
  }

  async logIn(username, password) {
    const body = { username, password, label: `handbook ${window.location.host}`, expires_in_days: TOKEN_DAYS };
    const answer = await requestJSON(`${this.origin}/api/token`, { method: "POST", body, bearer: "" });
    this.login = { token: answer.token, username: answer.username };
    this.changed();
  }

  // Revokes the token on the platform (DELETE /api/token), then forgets it here even if
  // the platform could not be reached: the page stops using it either way.
  async logOut() {
    const token = this.token;
    this.login = null;
    this.changed();
    if (!token) return;
    try {
      await requestJSON(`${this.origin}/api/token`, { method: "DELETE", bearer: token });
    } catch {
      // Offline or already expired: it lapses by itself.
    }
  }
}

// One Platform per origin on a page: its embeds share the log-in.
const platforms = new Map();

export function embedPlatform(origin) {
  if (!platforms.has(origin)) platforms.set(origin, new Platform(origin));
  return platforms.get(origin);
}

// The log-in form, or who is logged in with a way out; kept current across the page's embeds.
export function platformPanel(platform) {
  const panel = h("div", { class: "practice-platform" });
  const show = () => {
    clear(panel);
    if (platform.login) {
      panel.append(
        h("span", {}, t("embed.connected", { user: platform.login.username, platform: platform.host })),
        " ",
        h("button", { type: "button", class: "btn btn-ghost", "data-action": "logout", onclick: () => platform.logOut() }, t("embed.disconnect")),
      );
      return;
    }
    const user = h("input", { type: "text", name: "username", autocomplete: "username", "aria-label": t("embed.username"), placeholder: t("embed.username") });
    const pass = h("input", { type: "password", name: "password", autocomplete: "current-password", "aria-label": t("embed.password"), placeholder: t("embed.password") });
    const status = h("span", { class: "practice-login-status" });
    const form = h(
      "form",
      {
        class: "practice-login",
        onsubmit: async (event) => {
          event.preventDefault();
          clear(status);
          try {
            await platform.logIn(user.value, pass.value);
          } catch (error) {
            status.append(notice(t("embed.loginFailed", { message: error.message }), "error"));
          }
        },
      },
      h("p", {}, t("embed.connectIntro", { platform: platform.host })),
      user,
      pass,
      h("button", { type: "submit", class: "btn btn-primary", "data-action": "login" }, t("embed.connect")),
      status,
    );
    panel.append(form);
  };
  platform.listen(show);
  show();
  return panel;
}
