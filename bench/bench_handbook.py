"""Page open -> first Run result for an exercise embedded in a handbook page, beside the same
problem on the platform's own page, in Debian's headless Chromium.

    python bench/bench_handbook.py [--repeat 5]

The example handbook (examples/handbook) is built by MkDocs with the practice plugin and
served by Python's static file server; the platform by `create_app` under waitress. For
each, `cold` opens the page in a new browser context (empty cache, no Python snapshot) and
`second visit` opens it again in the same context once the snapshot is saved. Each time is
navigation start -> the embed's Run enabled -> Run clicked -> its report shown, measured in
the page. Goals (issue 38): 2 s cold, 0.5 s on a second visit. Needs the front end built.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_browser import running_app  # noqa: E402
from devtools.chromium import launch  # noqa: E402

SLUG = "tokens-processed"
GOALS_MS = {"cold": 2000.0, "second visit": 500.0}
SNAPSHOT_WAIT_MS = 1500  # the worker writes Python's snapshot in the background

# Clicks the Run of the element matched by `root` once it is enabled, and resolves with
# performance.now() when its results hold a report: the time since navigation started.
RUN_JS = """
([root, results]) => new Promise((resolve) => {
  const scope = document.querySelector(root);
  const panel = scope.querySelector(results);
  const before = panel.querySelector(".report");
  const observer = new MutationObserver(() => {
    const report = panel.querySelector(".report");
    if (report && report !== before) {
      observer.disconnect();
      resolve(performance.now());
    }
  });
  observer.observe(panel, { childList: true, subtree: true });
  scope.querySelector("button[data-action=run]").click();
})
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def served_handbook() -> Iterator[str]:
    """The example handbook built into a temporary folder and served statically."""
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "PRACTICE_PLATFORM_URL": "", "NO_MKDOCS_2_WARNING": "1"}
        subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "-q", "-d", folder],
            cwd=ROOT / "examples" / "handbook",
            env=env,
            check=True,
        )
        handler = functools.partial(_Quiet, directory=folder)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield f"http://127.0.0.1:{server.server_port}"
        finally:
            server.shutdown()
            server.server_close()


def first_result_ms(
    page: Any, url: str, root: str, results: str, boots: list[dict[str, Any]]
) -> float:
    page.goto(url, wait_until="commit")
    page.wait_for_selector(f"{root} button[data-action=run]:not([disabled])", timeout=120_000)
    ms = float(page.evaluate(RUN_JS, [root, results]))
    boots.append(json.loads(page.get_attribute(f"{root} [data-boot]", "data-boot") or "{}"))
    return ms


def measure(
    browser: Any, where: dict[str, tuple[str, str, str]], repeat: int
) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    out: dict[str, dict[str, list[float]]] = {}
    boots: dict[str, list[dict[str, Any]]] = {"cold": [], "second visit": []}
    for name, (url, root, results) in where.items():
        times: dict[str, list[float]] = {"cold": [], "second visit": []}
        for _ in range(repeat):
            context = browser.new_context()
            page = context.new_page()
            mine = boots if name == "handbook embed" else {k: [] for k in boots}
            times["cold"].append(first_result_ms(page, url, root, results, mine["cold"]))
            page.wait_for_timeout(SNAPSHOT_WAIT_MS)
            again = first_result_ms(page, url, root, results, mine["second visit"])
            times["second visit"].append(again)
            context.close()
        out[name] = times
    return out, boots


def boot_table(boots: dict[str, list[dict[str, Any]]]) -> str:
    """The embed's worker start by phase (medians, ms): where the time to the first result goes."""
    rows = ["| embed's worker start | restored | download | python | judge | total |"]
    rows.append("|---|---|---:|---:|---:|---:|")
    for name, records in boots.items():
        records = [r for r in records if r]
        if not records:
            continue
        restored = "/".join(sorted({str(r.get("restored")) for r in records}))
        cells = [
            statistics.median(r["phases"][p] for r in records)
            for p in ("download", "python", "judge")
        ]
        total = statistics.median(r["ms"] for r in records)
        rows.append(
            f"| {name} | {restored} | " + " | ".join(f"{c:.0f}" for c in [*cells, total]) + " |"
        )
    return "\n".join(rows)


def table(times: dict[str, dict[str, list[float]]]) -> str:
    embed, platform = times["handbook embed"], times["platform page"]
    rows = ["| measure | handbook embed, median ms | platform page, median ms | ratio | goal |"]
    rows.append("|---|---:|---:|---:|---|")
    for measure, goal in GOALS_MS.items():
        mine, theirs = statistics.median(embed[measure]), statistics.median(platform[measure])
        mark = "✓" if mine <= goal else "✗"
        rows.append(
            f"| {measure} | {mine:.0f} ({min(embed[measure]):.0f}-{max(embed[measure]):.0f}) "
            f"| {theirs:.0f} | {mine / theirs:.2f} | ≤ {goal:.0f} ms {mark} |"
        )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not (ROOT / "web" / "static" / "dist" / "embed.js").is_file():
        print("build the front end first: make frontend", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    with served_handbook() as handbook, running_app() as platform, sync_playwright() as pw:
        browser = launch(playwright=pw)
        embed_root = f'.practice-embed[data-problem="{SLUG}"]'
        where = {
            "handbook embed": (f"{handbook}/kv-cache/", embed_root, "[data-role=results]"),
            "platform page": (f"{platform}/problems/{SLUG}", "main", "[data-panel=results]"),
        }
        times, boots = measure(browser, where, args.repeat)
        browser.close()
    load = os.getloadavg()
    print(f"{os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(table(times))
    print()
    print(boot_table(boots))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
