// The page's handle on the Pyodide worker: starts it as soon as the page opens, runs
// one job at a time, and ends a runaway job without ever blocking the page. With
// cross-origin isolation a Stop first raises KeyboardInterrupt inside Python (the
// interpreter stays warm); otherwise, or if Python does not yield within the grace
// period, the worker is terminated and a fresh one starts loading at once.

const SIGINT = 2;
// Python checks the interrupt buffer often, but a loaded machine can delay the answer.
const INTERRUPT_GRACE_MS = 3000; // 1 s was missed beside another busy process (a CI run)

export class Runner {
  constructor({ workerURL, indexURL, judgeURL }) {
    this.workerURL = workerURL;
    this.indexURL = indexURL;
    this.judgeURL = judgeURL;
    this.listeners = [];
    this.worker = null;
    this.job = null;
    this.nextId = 1;
    this.state = { phase: "idle" };
  }

  setState(state) {
    this.state = state;
    for (const listener of this.listeners) listener(state);
  }

  // Each listener (a workspace; every embed of a handbook page) is told the current state
  // at once and every change after.
  listen(listener) {
    this.listeners.push(listener);
    listener(this.state);
  }

  start(restart = false) {
    this.restarting = restart;
    const canInterrupt = self.crossOriginIsolated && typeof SharedArrayBuffer === "function";
    this.interrupt = canInterrupt ? new Uint8Array(new SharedArrayBuffer(1)) : null;
    this.worker = new Worker(this.workerURL, { type: "module" });
    this.worker.onmessage = (event) => this.receive(event.data);
    this.worker.onerror = (event) => {
      this.setState({ phase: "failed", message: event.message || "worker error" });
      this.finish({ status: "failed", message: event.message || "worker error" });
    };
    this.bootStarted = performance.now();
    this.setState({ phase: "loading", stage: "download", loaded: 0, total: 0, restart });
    this.worker.postMessage({
      type: "boot",
      indexURL: this.indexURL,
      judgeURL: this.judgeURL,
      interruptBuffer: this.interrupt ? this.interrupt.buffer : undefined,
    });
  }

  receive(message) {
    if (message.type === "progress") {
      this.setState({ phase: "loading", ...message, restart: this.restarting });
    } else if (message.type === "ready") {
      this.python = message.python;
      this.boot = { ms: message.ms, phases: message.phases, restored: message.restored };
      this.setState({ phase: "ready", ms: message.ms, python: message.python });
    } else if (message.type === "case") {
      this.caseStarted(message.name);
    } else if (message.type === "case-done") {
      if (this.job) {
        clearTimeout(this.job.caseTimer);
        this.job.cases.push(message.result);
      }
    } else if (message.type === "result") {
      this.finish({ status: "done", report: message.report, ms: message.ms }, message.id);
    } else if (message.type === "failed") {
      if (message.stage === "boot") {
        this.setState({ phase: "failed", message: message.message });
      }
      this.finish({ status: "failed", message: message.message }, message.id);
    }
  }

  get ready() {
    return this.state.phase === "ready" || this.state.phase === "running";
  }

  // Resolves with {status: "done" | "stopped" | "timeout" | "failed", ...}; a timeout
  // carries the case that ran too long (null when the whole run did) and the cases
  // judged before it. `limits`: {caseMs, totalMs}. `caseJSON`, when given, is the one case
  // to run instead of the bundle's (a learner's own input, its expected from the server).
  run(bundle, source, limits, caseJSON = null) {
    if (this.job) {
      return Promise.resolve({ status: "failed", message: "a run is already in progress" });
    }
    return new Promise((resolve) => {
      const id = this.nextId++;
      const timer = setTimeout(() => this.halt("timeout"), limits.totalMs);
      this.job = { id, resolve, timer, ending: null, limits, cases: [], current: null, caseTimer: null };
      if (this.interrupt) this.interrupt[0] = 0;
      this.setState({ phase: "running" });
      this.worker.postMessage({ type: "run", id, bundle, source, caseJSON });
    });
  }

  stop() {
    if (this.job) this.halt("stopped");
  }

  // Each case gets the per-case limit from the moment the worker says it started.
  caseStarted(name) {
    const job = this.job;
    if (!job || job.ending) return;
    clearTimeout(job.caseTimer);
    job.current = name;
    job.caseTimer = setTimeout(() => this.halt("timeout", name), job.limits.caseMs);
  }

  // Ends the current job as `status`: interrupt first when possible, terminate if
  // Python has not answered within the grace period.
  halt(status, caseName = null) {
    const job = this.job;
    if (!job || job.ending) return;
    job.ending = status;
    job.slowCase = caseName;
    clearTimeout(job.timer);
    clearTimeout(job.caseTimer);
    if (this.interrupt) {
      this.interrupt[0] = SIGINT;
      job.timer = setTimeout(() => this.restart(status), INTERRUPT_GRACE_MS);
    } else {
      this.restart(status);
    }
  }

  restart(status) {
    this.worker.terminate();
    this.finish({ status });
    this.start(true);
  }

  finish(outcome, id) {
    const job = this.job;
    if (!job || (id !== undefined && id !== job.id)) return;
    clearTimeout(job.timer);
    clearTimeout(job.caseTimer);
    this.job = null;
    // A job we asked to end is reported as stopped/timeout whatever Python answered.
    const ended = { status: job.ending, case: job.slowCase || null, cases: job.cases };
    const result = job.ending ? ended : outcome;
    if (this.state.phase === "running") this.setState({ phase: "ready", python: this.python });
    job.resolve(result);
  }
}
