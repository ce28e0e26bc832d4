// Runs on the server: Run for a torch-tier problem (the browser cannot run PyTorch, so the
// server judges the public cases) and "Try your own input" (the reference runs on the
// server). Nothing is stored as an attempt; this module starts the run and polls for it.
import { against, requestJSON } from "./http.js";
import { t } from "./i18n.js";
import { statusLabel } from "./submissions.js";

const POLL_START_MS = 250;
const POLL_MAX_MS = 1000;
// The server ends a run within its problem's stated time (four minutes at most today) once
// it started; past this the page stops waiting and says so. Time waiting in line for a slot
// does not count: the server gives a run up after 15 minutes in line itself.
const GIVE_UP_MS = 6 * 60 * 1000;

// POSTs `body` to `url`, then polls the run it started. Resolves with {status: "done", run}
// (the run as the server shows it once done) or {status: "failed", message}. `onUpdate`
// sees the run at every poll (a queued run has its `place` in line).
// `bearer`: an API token (a handbook page on another origin), else the page's cookie.
export async function pollRun(url, body, { sleep = wait, now = Date.now, onUpdate = () => {}, bearer = null } = {}) {
  let started = now();
  try {
    let run = await requestJSON(url, { method: "POST", body, bearer });
    let delay = POLL_START_MS;
    while (run.status !== "done") {
      onUpdate(run);
      if (run.status === "queued") started = now();
      if (now() - started > GIVE_UP_MS) return { status: "failed", message: t("noRunResult") };
      await sleep(delay);
      delay = Math.min(POLL_MAX_MS, delay * 1.5);
      run = await requestJSON(against(run.url, url), { bearer });
    }
    return { status: "done", run };
  } catch (error) {
    return { status: "failed", message: error.message };
  }
}

// What a run being polled is doing, in the page's words: its place in line, or where its
// judging has got to as a submission's line says it ("Judging… case 3 of 12"); `waiting`
// until a worker has taken it.
export function runLabel(run, waiting) {
  if (run.status === "queued") return t("runWaiting", { place: run.place });
  if (run.status === "running" && run.progress) return statusLabel({ status: "running", progress: run.progress });
  return waiting;
}

// A torch-tier Run. Resolves with {status: "done", report, ms} or {status: "failed", message}.
export async function runOnServer(url, code, options = {}) {
  const outcome = await pollRun(url, { code }, options);
  if (outcome.status !== "done") return outcome;
  const report = outcome.run.report;
  return { status: "done", report, ms: report.time_ms };
}

function wait(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
