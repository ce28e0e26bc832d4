// Entry point of every page: styles, math in server-rendered text, the problem
// workspace where the server rendered an editor mount, and live verdicts on a
// submission's own page.
import "katex/dist/katex.min.css";
import "./styles.css";
import { followSubmission } from "./follow.js";
import { typesetMath } from "./statement.js";
import { mountWorkspace } from "./workspace.js";

function start() {
  typesetMath(document.body);
  const mount = document.getElementById("workspace") || document.getElementById("editor");
  if (mount && mount.dataset.slug) mountWorkspace(mount);
  const submission = document.getElementById("submission");
  if (submission && submission.dataset.url) followSubmission(submission);
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", start);
} else {
  start();
}
