// The Pyodide Web Worker: boots Python once, then runs the public cases of a problem
// through judge.browser.public_run.run_public for every Run. The page never waits on it
// synchronously; a runaway run is interrupted (when the page is cross-origin isolated)
// or the whole worker is terminated and a fresh one started.
//
// Messages in:  {type: "boot", indexURL, judgeURL, interruptBuffer?}
//               {type: "run", id, bundle, source, caseJSON?} (caseJSON: one case to run
//               instead of the bundle's, "Try your own input")
// Messages out: {type: "progress", stage, loaded, total}
//               {type: "ready", ms, phases: {download, python, judge}, python, restored}
//               {type: "case", name} as each case starts, {type: "case-done", result} after it
//               {type: "result", id, report, ms}
//               {type: "failed", id?, stage, message}

import { dropSnapshot, loadSnapshot, saveSnapshot, snapshotKey } from "./snapshot.js";

const JUDGE_DIR = "/home/pyodide/judge-core";
// Set by the build from Pyodide's package.json; part of the snapshot key.
const PYODIDE_VERSION = __PYODIDE_VERSION__;

let runPublic = null;
let runPublicCase = null;
function post(message) {
  self.postMessage(message);
}

// Downloads one file while reporting bytes; the browser's HTTP cache makes the
// later fetch by Pyodide of the same URL a cheap revalidation.
async function download(url, onBytes) {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`${url}: HTTP ${response.status}`);
  }
  const total = Number(response.headers.get("content-length")) || 0;
  onBytes(0, total);
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onBytes(loaded, total);
  }
  return new Blob(chunks);
}

// Fetches the runtime files in parallel and reports their combined progress.
async function downloadAll(urls) {
  const loaded = new Array(urls.length).fill(0);
  const totals = new Array(urls.length).fill(0);
  const report = () => {
    const sum = (values) => values.reduce((a, b) => a + b, 0);
    post({ type: "progress", stage: "download", loaded: sum(loaded), total: sum(totals) });
  };
  return Promise.all(
    urls.map((url, i) =>
      download(url, (bytes, total) => {
        loaded[i] = bytes;
        totals[i] = Math.max(total, bytes);
        report();
      }),
    ),
  );
}

async function startPython(indexURL, stdlib, snapshot) {
  const { loadPyodide } = await import(/* webpackIgnore: true */ `${indexURL}pyodide.mjs`);
  const stdLibURL = URL.createObjectURL(stdlib);
  const options = {
    indexURL,
    stdLibURL,
    // Output is captured by the judge per run; nothing should reach the console.
    stdout: () => {},
    stderr: () => {},
  };
  try {
    return await loadPyodide(snapshot ? { ...options, _loadSnapshot: snapshot } : { ...options, _makeSnapshot: true });
  } finally {
    URL.revokeObjectURL(stdLibURL);
  }
}

// Unpacks the judge and imports it; safe to repeat on a restored snapshot, where the
// modules are already imported but the files (for tracebacks) are not there yet.
function loadJudge(pyodide, judgeBytes) {
  pyodide.unpackArchive(judgeBytes, "zip", { extractDir: JUDGE_DIR });
  const dir = JSON.stringify(JUDGE_DIR);
  pyodide.runPython(
    `import sys\nif ${dir} not in sys.path:\n    sys.path.insert(0, ${dir})\nimport judge.browser.public_run\n` +
      "judge.browser.public_run.preload_failure_reports()",
  );
}

async function boot({ indexURL, judgeURL, interruptBuffer }) {
  const started = performance.now();
  const [stdlib, judgeZip] = await downloadAll([
    `${indexURL}python_stdlib.zip`,
    judgeURL,
    `${indexURL}pyodide.asm.wasm`,
  ]);
  const judgeBytes = new Uint8Array(await judgeZip.arrayBuffer());
  const key = await snapshotKey(PYODIDE_VERSION, judgeBytes);
  let snapshot = await loadSnapshot(key);
  const downloaded = performance.now();
  post({ type: "progress", stage: "start", loaded: 0, total: 0 });
  let pyodide = null;
  if (snapshot) {
    try {
      pyodide = await startPython(indexURL, stdlib, snapshot);
    } catch {
      // A snapshot this runtime cannot restore: forget it and start cold.
      await dropSnapshot(key);
      snapshot = null;
    }
  }
  pyodide = pyodide || (await startPython(indexURL, stdlib, null));
  const pythonStarted = performance.now();
  post({ type: "progress", stage: "judge", loaded: 0, total: 0 });
  loadJudge(pyodide, judgeBytes);
  if (!snapshot && key) {
    // Taken before any learner code runs and before JS holds Python objects. The
    // snapshot API is Pyodide's private one: if it fails, later opens just start cold.
    try {
      // Not awaited: the page may run at once. Said when stored (warmup.js waits for it).
      saveSnapshot(key, pyodide.makeMemorySnapshot()).then(() => post({ type: "snapshot-saved" }));
    } catch {
      // keep going without a snapshot
    }
  }
  if (interruptBuffer) pyodide.setInterruptBuffer(new Uint8Array(interruptBuffer));
  reportCases(pyodide);
  const publicRun = pyodide.pyimport("judge.browser.public_run");
  runPublic = publicRun.run_public;
  runPublicCase = publicRun.run_public_case;
  const python = pyodide.runPython("import sys; sys.version.split()[0]");
  const end = performance.now();
  // The split shows where a slow start went: network, interpreter start, judge import.
  const phases = {
    download: downloaded - started,
    python: pythonStarted - downloaded,
    judge: end - pythonStarted,
  };
  post({ type: "ready", ms: end - started, phases, python, restored: Boolean(snapshot) });
}

// The page times each case against the problem's own limit and, when one runs too long,
// names it: so the worker says when each case starts and what it gave when it ends. The
// core runs every case through judge.browser.public_run._run; wrapping it here (after the snapshot,
// which must not hold JS objects) keeps the judge free of anything browser-specific. A
// core without _run still judges; the page then has only the whole run's limit.
self.pjCaseStarted = (name) => post({ type: "case", name });
self.pjCaseDone = (resultJSON) => post({ type: "case-done", result: JSON.parse(resultJSON) });
function reportCases(pyodide) {
  pyodide.runPython(`
import json as _json
import js as _js
import judge.browser.public_run as _browser
if hasattr(_browser, "_run") and not getattr(_browser._run, "reports_cases", False):
    _judge_case = _browser._run
    def _run(driver, sub, prepared, *rest):
        _js.pjCaseStarted(prepared.case.name)
        result = _judge_case(driver, sub, prepared, *rest)
        _js.pjCaseDone(_json.dumps(result.to_dict()))
        return result
    _run.reports_cases = True
    _browser._run = _run
`);
}

function run({ id, bundle, source, caseJSON }) {
  const started = performance.now();
  const report = caseJSON ? runPublicCase(bundle, source, caseJSON) : runPublic(bundle, source);
  post({ type: "result", id, report: JSON.parse(report), ms: performance.now() - started });
}

self.onmessage = async (event) => {
  const message = event.data;
  if (message.type === "boot") {
    try {
      await boot(message);
    } catch (error) {
      post({ type: "failed", stage: "boot", message: String(error && error.message) });
    }
  } else if (message.type === "run") {
    if (!runPublic) {
      post({ type: "failed", id: message.id, stage: "run", message: "Python is not ready" });
      return;
    }
    try {
      run(message);
    } catch (error) {
      // A KeyboardInterrupt from Stop or the time limit lands here too; the page
      // already knows it asked for it and labels the run itself.
      post({ type: "failed", id: message.id, stage: "run", message: String(error && error.message) });
    }
  }
};
