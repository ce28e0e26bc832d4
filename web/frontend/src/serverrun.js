// Run for a torch-tier problem: the browser cannot run PyTorch, so the server judges the
// public cases (nothing is stored, nothing counts) and this module polls for the report.
import { requestJSON } from "./http.js";

const POLL_START_MS = 250;
const POLL_MAX_MS = 1000;
// The server ends a run at the problem's time limit (at most a minute or so); past this
// the page stops waiting and says so.
const GIVE_UP_MS = 3 * 60 * 1000;

// Resolves with {status: "done", report, ms} or {status: "failed", message}.
export async function runOnServer(url, code, { sleep = wait, now = Date.now } = {}) {
  const started = now();
  try {
    let run = await requestJSON(url, { method: "POST", body: { code } });
    let delay = POLL_START_MS;
    while (run.status !== "done") {
      if (now() - started > GIVE_UP_MS) return { status: "failed", message: "no result after 3 minutes" };
      await sleep(delay);
      delay = Math.min(POLL_MAX_MS, delay * 1.5);
      run = await requestJSON(run.url);
    }
    return { status: "done", report: run.report, ms: run.report.time_ms };
  } catch (error) {
    return { status: "failed", message: error.message };
  }
}

function wait(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
