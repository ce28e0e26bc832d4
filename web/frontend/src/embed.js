// Entry point of a handbook page's exercises (the MkDocs plugin, handbook/): every
// `.practice-embed` element becomes a problem's workspace. The page's embeds share one
// Pyodide worker, started first so that Python loads while the editor's code and the
// bundles are still on their way; each embed queues its Runs on it and keeps its own code,
// results and state.
import { Runner } from "./runner.js";

const READY_POLL_MS = 100;
const READY_GIVE_UP_MS = 120_000; // then the run is tried anyway and says Python is not ready

// One run at a time on the shared worker, in the order asked; each embed waits its turn,
// and for Python to be ready again (a Stop ends the worker, and a fresh one starts).
class RunQueue {
  constructor(runner) {
    this.runner = runner;
    this.tail = Promise.resolve();
    this.queued = 0;
  }

  // Whether a run asked for now would wait behind another.
  get busy() {
    return this.queued > 0;
  }

  // `onStart` is called when this run's turn comes (its embed shows Stop only then).
  run(bundleJSON, source, limits, onStart = () => {}) {
    this.queued += 1;
    const turn = this.tail
      .then(() => this.ready())
      .then(() => {
        onStart();
        return this.runner.run(bundleJSON, source, limits);
      })
      .finally(() => {
        this.queued -= 1;
      });
    this.tail = turn.catch(() => null);
    return turn;
  }

  async ready() {
    const started = Date.now();
    while (!(this.runner.state.phase === "ready" && !this.runner.job)) {
      if (Date.now() - started > READY_GIVE_UP_MS || this.runner.state.phase === "failed") return;
      await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
    }
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
