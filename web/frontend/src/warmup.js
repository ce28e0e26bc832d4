// Python made ready ahead, on the problem list (the landing page): a learner reads the list
// before opening a problem, and that time is spent starting Pyodide once in the background,
// so that its files sit in the browser's HTTP cache and its memory snapshot in Cache
// Storage (snapshot.js). The problem page then restores the snapshot (about 2 s on a
// 2-core machine) instead of starting cold (6 s, 30 s under load). Only when no snapshot is
// kept yet, only once the page has been idle a moment, and never on a page that runs
// Python itself; leaving the page ends the worker with it.

import { Runner } from "./runner.js";
import { hasSnapshot } from "./snapshot.js";

// Long enough that a learner who opens a problem at once never pays for the warm-up.
const IDLE_DELAY_MS = 1500;

export function warmPythonAhead(dist) {
  const later = self.requestIdleCallback || ((fn) => setTimeout(fn, 0));
  setTimeout(() => later(() => warm(dist)), IDLE_DELAY_MS);
}

async function warm(dist) {
  if (await hasSnapshot()) return;
  const runner = new Runner({
    workerURL: `${dist}worker.js`,
    indexURL: new URL(`${dist}pyodide/`, window.location.href).href,
    judgeURL: new URL(`${dist}judge.zip`, window.location.href).href,
  });
  document.body.dataset.pythonWarmup = "loading";
  runner.start();
  // Done once the snapshot is stored (a cold start), or at once when one was restored.
  runner.worker.addEventListener("message", ({ data }) => {
    const done =
      data.type === "snapshot-saved" || (data.type === "ready" && data.restored) || data.type === "failed";
    if (!done) return;
    document.body.dataset.pythonWarmup = data.type === "failed" ? "failed" : "ready";
    runner.worker.terminate();
  });
}
