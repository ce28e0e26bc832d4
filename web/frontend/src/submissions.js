// Server submissions: send the code, poll until the verdict is stored, and list the
// learner's earlier submissions of this problem with their code and per-case results.
import { clear, h } from "./dom.js";
import { requestJSON } from "./http.js";
import { lang, t } from "./i18n.js";
import { caseList, notice, verdictBadge } from "./results.js";

const FINAL = new Set(["done", "finished", "judged", "failed", "error"]);
const POLL_START_MS = 250;
const POLL_MAX_MS = 1500;
const POLL_GIVE_UP_MS = 10 * 60 * 1000;

export function isFinal(submission) {
  return FINAL.has(String(submission.status || "").toLowerCase());
}

function submissionURL(urls, submission) {
  return submission.url || `${urls.submission.replace(/\/$/, "")}/${submission.id}`;
}

// Resolves with the final submission; calls onUpdate with every state seen on the way.
export async function submitAndWait(urls, slug, code, onUpdate) {
  let submission = await requestJSON(urls.submit, { method: "POST", body: { problem: slug, code } });
  onUpdate(submission);
  const url = submissionURL(urls, submission);
  const started = Date.now();
  let delay = POLL_START_MS;
  while (!isFinal(submission)) {
    if (Date.now() - started > POLL_GIVE_UP_MS) throw new Error("no verdict after 10 minutes");
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(POLL_MAX_MS, delay * 1.5);
    submission = await requestJSON(url);
    onUpdate(submission);
  }
  return submission;
}

function statusLabel(submission) {
  const status = String(submission.status || "").toLowerCase();
  if (isFinal(submission) && submission.verdict) return t(`verdict.${submission.verdict}`);
  return status === "queued" ? t("queued") : t("judging");
}

function when(submission) {
  const stamp = submission.created_at || submission.submitted_at;
  if (!stamp) return "";
  const date = new Date(stamp);
  if (Number.isNaN(date.getTime())) return String(stamp);
  return date.toLocaleString(lang === "zh" ? "zh-CN" : "en-GB", {
    dateStyle: "short",
    timeStyle: "short",
  });
}

// One submission: a headline with the verdict; opening it shows cases and code.
export function submissionView(submission, { open = false } = {}) {
  const final = isFinal(submission);
  const passed =
    typeof submission.passed === "number" && typeof submission.total === "number"
      ? t("passed", { passed: submission.passed, total: submission.total })
      : "";
  const summary = h(
    "summary",
    {},
    verdictBadge(final ? submission.verdict : ""),
    h("strong", {}, statusLabel(submission)),
    h("span", { class: "muted" }, passed),
    h("span", { class: "muted push" }, `#${submission.id} · ${when(submission)}`),
  );
  const body = h(
    "div",
    { class: "submission-body" },
    submission.cases && submission.cases.length ? caseList(submission.cases, null) : null,
    submission.message ? h("p", { class: "muted" }, submission.message) : null,
    submission.code ? h("h4", {}, t("showCode")) : null,
    submission.code ? h("pre", { class: "code" }, submission.code) : null,
  );
  const view = h(
    "details",
    {
      class: `submission ${final ? "" : "pending"}`,
      "data-submission": submission.id,
      "data-verdict": final ? submission.verdict || "" : "",
    },
    summary,
    body,
  );
  view.open = open;
  return view;
}

export async function loadHistory(container, url) {
  try {
    const payload = await requestJSON(url);
    const items = Array.isArray(payload) ? payload : payload.submissions || [];
    clear(container);
    if (!items.length) {
      container.append(notice(t("noSubmissions")));
      return;
    }
    for (const submission of items) container.append(submissionView(submission));
  } catch (error) {
    clear(container).append(notice(t("loadFailed", { message: error.message }), "error"));
  }
}
