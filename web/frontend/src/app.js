// Entry point of every page. It is kept small: on a problem page it starts Python in
// its worker first, and only then fetches the editor, Markdown and KaTeX code (a
// separate chunk), so the interpreter and the UI load side by side.
import "katex/dist/katex.min.css";
import "./styles.css";
import "./kv_strip.css";
import { readConfig } from "./config.js";
import { localiseTimes } from "./dates.js";
import { followSubmission } from "./follow.js";
import { enhanceHints } from "./hints.js";
import { mountKvStrip } from "./kv_strip.js";
import { Runner } from "./runner.js";
import { warmPythonAhead } from "./warmup.js";

function startRunner(config) {
  if (!config.runnable) return null;
  const runner = new Runner({
    workerURL: `${config.dist}worker.js`,
    indexURL: new URL(`${config.dist}pyodide/`, window.location.href).href,
    judgeURL: new URL(`${config.dist}judge.zip`, window.location.href).href,
  });
  runner.start();
  return runner;
}

// Finds the viewer's own row on a leaderboard, so "where am I" needs no searching.
function markViewer() {
  const me = document.body.dataset.user;
  if (!me) return;
  for (const link of document.querySelectorAll("#leaderboard a")) {
    if (link.textContent.trim() === me) link.closest("tr").classList.add("is-me");
  }
}

// A solved-count bar under each chapter of the problem list (logged-in viewers only:
// the server renders a progress cell per problem for them).
function summariseChapters() {
  for (const table of document.querySelectorAll("table.problem-list")) {
    const cells = table.querySelectorAll("td.progress");
    if (!cells.length) continue;
    const solved = table.querySelectorAll("td.progress-solved").length;
    const bar = document.createElement("div");
    bar.className = "chapter-progress";
    bar.innerHTML = '<span class="track"><span class="fill"></span></span><span class="count"></span>';
    bar.querySelector(".fill").style.width = `${Math.round((100 * solved) / cells.length)}%`;
    bar.querySelector(".count").textContent = `${solved} / ${cells.length}`;
    table.before(bar);
  }
}

async function start() {
  localiseTimes();
  markViewer();
  summariseChapters();
  const strip = document.getElementById("kv-strip");
  if (strip) mountKvStrip(strip);
  const hints = document.getElementById("hints");
  if (hints) enhanceHints(hints);
  const mount = document.getElementById("workspace") || document.getElementById("editor");
  if (mount && mount.dataset.slug) {
    const config = readConfig(mount);
    const runner = startRunner(config);
    const { mountWorkspace } = await import("./workspace.js");
    await mountWorkspace(mount, config, runner);
  }
  if (document.querySelector("span.math")) {
    const { typesetMath } = await import("./statement.js");
    typesetMath(document.body);
  }
  const submission = document.getElementById("submission");
  if (submission && submission.dataset.url) followSubmission(submission);
  const landing = document.getElementById("landing");
  if (landing && landing.dataset.dist) warmPythonAhead(landing.dataset.dist);
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", start);
} else {
  start();
}
