// A submission's own page, opened before its verdict: poll the API, say where judging has
// got to in the status ("timed repetition 4 of 9"), and reload the server-rendered page
// once, when the verdict is stored.
import { requestJSON } from "./http.js";
import { isFinal, statusLabel } from "./submissions.js";

const POLL_MS = 500;

export async function followSubmission(element) {
  if (element.dataset.status === "done") return;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    let view;
    try {
      view = await requestJSON(element.dataset.url);
    } catch {
      continue; // a dropped request is retried; the page keeps its last state
    }
    if (isFinal(view)) {
      window.location.reload();
      return;
    }
    const status = element.querySelector(".status");
    if (status) status.textContent = statusLabel(view);
  }
}
