// Runs Python entry points under Pyodide in Node for the browser-tier parity test.
//
// stdin:  {"files": {"judge/x.py": "<source>", ...},
//          "call": "judge.browser.public_run:run_public",
//          "jobs": [{"id": "...", "args": ["...", ...]}, ...]}
// stdout: {"python": "<version>", "results": [{"id", "value"} | {"id", "error"}, ...]}
//
// Pyodide loads once per invocation, offline, from this folder's node_modules. The files
// are written under /home/pyodide (on sys.path); every job calls the entry point with its
// string arguments and must return a string. Anything Python prints goes to stderr so
// stdout carries only the JSON answer.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPyodide } from "pyodide";

const HOME = "/home/pyodide";
const here = dirname(fileURLToPath(import.meta.url));

// Checked before Pyodide loads, so a malformed request fails in milliseconds.
function validate(request) {
  for (const path of Object.keys(request.files ?? {})) {
    if (path.startsWith("/") || path.split("/").includes("..")) {
      throw new Error(`refusing file path outside the home folder: ${path}`);
    }
  }
  const [moduleName, functionName] = String(request.call).split(":");
  if (!moduleName || !functionName) {
    throw new Error(`call must look like "package.module:function", got ${request.call}`);
  }
  if (!Array.isArray(request.jobs)) throw new Error("jobs must be a list");
}

function writeFiles(pyodide, files) {
  for (const [path, text] of Object.entries(files)) {
    const target = `${HOME}/${path}`;
    pyodide.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
    pyodide.FS.writeFile(target, text, { encoding: "utf8" });
  }
}

function entryPoint(pyodide, call) {
  const [moduleName, functionName] = call.split(":");
  const module = pyodide.pyimport(moduleName);
  return module[functionName];
}

async function main() {
  const request = JSON.parse(readFileSync(0, "utf8"));
  validate(request);
  const pyodide = await loadPyodide({
    indexURL: join(here, "node_modules", "pyodide") + "/",
    stdout: (line) => process.stderr.write(`[py] ${line}\n`),
    stderr: (line) => process.stderr.write(`[py] ${line}\n`),
  });
  writeFiles(pyodide, request.files ?? {});
  pyodide.runPython(`import sys\nif ${JSON.stringify(HOME)} not in sys.path: sys.path.insert(0, ${JSON.stringify(HOME)})`);
  const fn = entryPoint(pyodide, request.call);
  const results = [];
  for (const job of request.jobs) {
    try {
      const value = fn(...job.args);
      if (typeof value !== "string") throw new Error(`entry point returned ${typeof value}, not a string`);
      results.push({ id: job.id, value });
    } catch (err) {
      results.push({ id: job.id, error: String(err && err.message ? err.message : err) });
    }
  }
  const python = pyodide.runPython("import sys; sys.version.split()[0]");
  process.stdout.write(JSON.stringify({ python, results }));
}

main().catch((err) => {
  process.stderr.write(`pyodide_runner: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
