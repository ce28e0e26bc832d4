// The Pyodide Web Worker: boots Python once, then runs the public cases of a problem
// through judge.browser.run_public for every Run. The page never waits on it
// synchronously; a runaway run is interrupted (when the page is cross-origin isolated)
// or the whole worker is terminated and a fresh one started.
//
// Messages in:  {type: "boot", indexURL, judgeURL, interruptBuffer?}
//               {type: "run", id, bundle, source}
// Messages out: {type: "progress", stage, loaded, total}
//               {type: "ready", ms, python}
//               {type: "result", id, report, ms}
//               {type: "failed", id?, stage, message}

const JUDGE_DIR = "/home/pyodide/judge-core";

let runPublic = null;

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

async function boot({ indexURL, judgeURL, interruptBuffer }) {
  const started = performance.now();
  const [stdlib, judgeZip] = await downloadAll([
    `${indexURL}python_stdlib.zip`,
    judgeURL,
    `${indexURL}pyodide.asm.wasm`,
  ]);
  post({ type: "progress", stage: "start", loaded: 0, total: 0 });
  const { loadPyodide } = await import(/* webpackIgnore: true */ `${indexURL}pyodide.mjs`);
  const stdLibURL = URL.createObjectURL(stdlib);
  const pyodide = await loadPyodide({
    indexURL,
    stdLibURL,
    // Output is captured by the judge per run; nothing should reach the console.
    stdout: () => {},
    stderr: () => {},
  });
  URL.revokeObjectURL(stdLibURL);
  if (interruptBuffer) {
    pyodide.setInterruptBuffer(new Uint8Array(interruptBuffer));
  }
  post({ type: "progress", stage: "judge", loaded: 0, total: 0 });
  pyodide.unpackArchive(await judgeZip.arrayBuffer(), "zip", { extractDir: JUDGE_DIR });
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(JUDGE_DIR)})`);
  runPublic = pyodide.pyimport("judge.browser").run_public;
  const python = pyodide.runPython("import sys; sys.version.split()[0]");
  post({ type: "ready", ms: performance.now() - started, python });
}

function run({ id, bundle, source }) {
  const started = performance.now();
  const report = runPublic(bundle, source);
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
