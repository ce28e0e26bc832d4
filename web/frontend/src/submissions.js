// Server submissions: send the code, poll until the verdict is stored, and list the
// learner's earlier submissions of this problem; opening one loads its code and
// per-case results.
import { clear, h } from "./dom.js";
import { timeElement } from "./dates.js";
import { against, requestJSON } from "./http.js";
import { lang, t } from "./i18n.js";
import { caseList, compileErrorView, notice, renderMessage, speedView, verdictBadge } from "./results.js";

const POLL_START_MS = 150;
const POLL_MAX_MS = 1000;
const POLL_GIVE_UP_MS = 10 * 60 * 1000;

export function isFinal(submission) {
  return String(submission.status || "").toLowerCase() === "done";
}

// Resolved against the API's own address: the same origin on the platform, the platform's
// from a handbook page.
function detailURL(urls, submission) {
  return against(submission.url || `${urls.submission.replace(/\/$/, "")}/${submission.id}`, urls.submit);
}

// Resolves with the final submission; calls onUpdate with every state seen on the way.
// Polling (not the event stream) keeps no server thread busy while a job waits.
// `bearer`: an API token (a handbook page's Submit to the platform), else the page's cookie.
export async function submitAndWait(urls, slug, code, onUpdate, bearer = null) {
  const body = { problem: slug, code };
  let submission = await requestJSON(urls.submit, { method: "POST", body, bearer });
  onUpdate(submission);
  const url = detailURL(urls, submission);
  const started = Date.now();
  let delay = POLL_START_MS;
  while (!isFinal(submission)) {
    if (Date.now() - started > POLL_GIVE_UP_MS) throw new Error("no verdict after 10 minutes");
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(POLL_MAX_MS, delay * 1.5);
    submission = await requestJSON(url, { bearer });
    onUpdate(submission);
  }
  return submission;
}

// The summary line's words: the verdict once judged, else where judging has got to (the
// server writes the cases done of all, and what runs now, about once a second while a
// worker runs it).
export function statusLabel(submission, catalog = undefined) {
  if (isFinal(submission) && submission.verdict) return t(`verdict.${submission.verdict}`);
  if (String(submission.status).toLowerCase() === "queued") return t("queued");
  const progress = submission.progress;
  const counted = progress && Number.isInteger(progress.done) && Number.isInteger(progress.total) && progress.total > 0;
  const phase = phaseText(progress, lang, catalog);
  // One count: a stage that counts its own steps ("case 12 of 12", "timed repetition 4 of
  // 9") is said alone; another count of every case beside it read as a contradiction.
  const ownCount = Number.isInteger(progress?.of) && progress.of > 0;
  if (phase && counted && !ownCount) return t("judgingPhase", { phase, done: progress.done, total: progress.total });
  if (phase) return t("judgingStage", { phase }); // its own count, or before its cases exist
  if (counted) return t("judgingCases", { done: progress.done, total: progress.total });
  return t("judging");
}

// What runs now ("timed repetition 4 of 9"), in the judge's own words (judge/run/phase.py),
// or null where the server did not say (an older worker) or the catalog lacks the stage.
export function phaseText(progress, language = lang, catalog = undefined) {
  if (!progress || typeof progress.stage !== "string" || !/^[a-z_]+$/.test(progress.stage)) return null;
  const args = { step: progress.step ?? 0, of: progress.of ?? 0 };
  return renderMessage(`phase.${progress.stage}`, args, language, catalog);
}


function detailBody(submission) {
  const compile = submission.compile_error;
  return [
    compile ? compileErrorView(compile, null) : null,
    submission.cases && submission.cases.length ? caseList(submission.cases, null) : null,
    speedView(submission.speed),
    submission.message ? h("p", { class: "muted" }, submission.message) : null,
    submission.code ? h("h4", {}, t("showCode")) : null,
    // `submitted-code`: the body also holds a failing case's test (`pre.code` too), and
    // Restore must put back what was submitted, never that snippet.
    submission.code ? h("pre", { class: "code submitted-code" }, submission.code) : null,
  ];
}

// One submission: a headline with the verdict; opening it shows cases and code,
// fetched on first open when the row came from the list (which carries summaries).
export function submissionView(submission, { open = false, urls = null } = {}) {
  const final = isFinal(submission);
  const passed = final && submission.total ? t("passed", { passed: submission.passed, total: submission.total }) : "";
  const body = h("div", { class: "submission-body" }, detailBody(submission));
  const view = h(
    "details",
    {
      class: `submission ${final ? "" : "pending"}`,
      "data-submission": submission.id,
      "data-verdict": final ? submission.verdict || "" : "",
    },
    h(
      "summary",
      {},
      verdictBadge(final ? submission.verdict : ""),
      h("strong", {}, statusLabel(submission)),
      h("span", { class: "muted" }, passed),
      h(
        "span",
        { class: "muted push" },
        `#${submission.id}`,
        submission.created_at ? [" · ", timeElement(submission.created_at)] : null,
      ),
    ),
    body,
  );
  if (urls && !("code" in submission)) {
    view.addEventListener("toggle", async () => {
      if (!view.open || view.dataset.loaded) return;
      view.dataset.loaded = "1";
      try {
        clear(body).append(...detailBody(await requestJSON(detailURL(urls, submission))).filter(Boolean));
      } catch (error) {
        clear(body).append(notice(t("loadFailed", { message: error.message }), "error"));
      }
    });
  }
  view.open = open;
  return view;
}

// The list goes into its own element (`list`), so that a submission made on this page
// (shown live above it, `.live`) is never wiped by a list that arrives later, and a row
// already shown live is not listed twice.
export async function loadHistory(list, urls) {
  try {
    const payload = await requestJSON(urls.history);
    const items = Array.isArray(payload) ? payload : payload.submissions || [];
    const panel = list.parentElement || list;
    const live = new Set([...panel.querySelectorAll(".live [data-submission]")].map((row) => row.dataset.submission));
    const rows = items.filter((submission) => !live.has(String(submission.id)));
    clear(list);
    if (!rows.length) {
      if (!live.size) list.append(emptyHistory());
      return;
    }
    for (const submission of rows) list.append(submissionView(submission, { urls }));
  } catch (error) {
    clear(list).append(notice(t("loadFailed", { message: error.message }), "error"));
  }
}

// "No submissions yet", marked so that the first submission of the page can remove it.
export function emptyHistory() {
  const empty = notice(t("noSubmissions"));
  empty.dataset.emptyHistory = "";
  return empty;
}

export function dropEmptyHistory(panel) {
  for (const empty of panel.querySelectorAll("[data-empty-history]")) empty.remove();
}
