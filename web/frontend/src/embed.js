// Entry point of a handbook page's exercises (the MkDocs plugin, handbook/): every
// `.practice-embed` element becomes a problem's workspace. The page's embeds share one
// Pyodide worker, started first so that Python loads while the editor's code and the
// bundles are still on their way; each embed queues its Runs on it and keeps its own code,
// results and state.
import { Runner } from "./runner.js";

// One run at a time on the shared worker, in the order asked; each embed waits its turn.
class RunQueue {
  constructor(runner) {
    this.runner = runner;
    this.tail = Promise.resolve();
  }

  run(bundleJSON, source, limits, caseJSON = null) {
    const turn = this.tail.then(() => this.runner.run(bundleJSON, source, limits, caseJSON));
    this.tail = turn.catch(() => null);
    return turn;
  }
}

function sharedRunner(dist) {
  const runner = new Runner({
    workerURL: new URL(`${dist}worker.js`, window.location.href).href,
    indexURL: new URL(`${dist}pyodide/`, window.location.href).href,
    judgeURL: new URL(`${dist}judge.zip`, window.location.href).href,
  });
  runner.start();
  return runner;
}

async function start() {
  const mounts = [...document.querySelectorAll(".practice-embed[data-problem]")];
  if (!mounts.length) return;
  // Python runs browser-tier code and the quiz's public checks; torch-tier embeds use none.
  const needsPython = mounts.some((m) => m.dataset.tier === "browser");
  const runner = needsPython ? sharedRunner(mounts[0].dataset.dist) : null;
  const queue = runner ? new RunQueue(runner) : null;
  const { mountExercise } = await import("./embed_exercise.js");
  await Promise.all(mounts.map((mount) => mountExercise(mount, runner, queue)));
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", start);
} else {
  start();
}
