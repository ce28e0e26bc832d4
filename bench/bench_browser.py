"""Browser timings against the running app, in Debian's headless Chromium.

    python bench/bench_browser.py [--repeat 5]

Measures, on the kv-bytes-per-token problem:
  cold      page open -> first Run result, with an empty browser cache
  warm      page open -> first Run result, the browser cache already filled
  rerun     a second Run on the open page (click -> results shown), of the starter
            (every case raises: tracebacks) and of the reference (every case passes)
  submit    Submit -> verdict shown, for a browser-tier problem
and prints them beside the goals (4 s cold, 1.5 s warm, 150 ms per later Run).
Needs the front end built (npm run build --prefix web/frontend).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.chromium import launch  # noqa: E402
from devtools.threaded_server import serve_in_thread, url  # noqa: E402
from tests.web.e2e.pages import (  # noqa: E402
    open_problem,
    reference_source,
    register,
    replace_code,
)

SLUG = "kv-bytes-per-token"
GOALS_MS = {
    "cold": 4000.0,
    "warm": 1500.0,
    "rerun starter": 150.0,
    "rerun reference": 150.0,
    "submit": None,
}

# Clicks Run and resolves when the results panel shows a new report: timed in the page,
# so Playwright's round trips are not counted.
RUN_AND_WAIT_JS = """
() => new Promise((resolve) => {
  const panel = document.querySelector("[data-panel=results]");
  const before = panel.querySelector(".report");
  const start = performance.now();
  const observer = new MutationObserver(() => {
    const report = panel.querySelector(".report");
    if (report && report !== before) {
      observer.disconnect();
      resolve(performance.now() - start);
    }
  });
  observer.observe(panel, { childList: true, subtree: true });
  document.querySelector("button[data-action=run]").click();
})
"""


@contextmanager
def running_app() -> Iterator[str]:
    from web import create_app
    from web.config import WebConfig, sqlite_url
    from web.state import EXTENSION

    with tempfile.TemporaryDirectory() as folder:
        config = WebConfig(
            database_url=sqlite_url(Path(folder) / "bench.sqlite3"),
            problems_dir=ROOT / "problems",
            secret_key=os.urandom(16).hex(),
            judge_seed=int.from_bytes(os.urandom(8), "big"),
            workers=1,
            judge_backend="unsafe-local",  # a loopback benchmark server
        )
        app = create_app(config)
        try:
            with serve_in_thread(app, name="waitress", threads=8) as server:
                yield url(server)
        finally:
            app.extensions[EXTENSION].queue.stop()


def first_result_ms(page: Any, url: str, boots: list[dict[str, Any]]) -> float:
    """Navigation start -> first Run report, clicking Run the moment Python is ready.
    The worker's own record of its start (phases, snapshot or not) goes to `boots`."""
    page.goto(url, wait_until="commit")
    page.wait_for_selector("button[data-action=run]:not([disabled])", timeout=60_000)
    page.evaluate(RUN_AND_WAIT_JS)
    boots.append(json.loads(page.get_attribute(".runtime-text", "data-boot") or "{}"))
    return float(page.evaluate("() => performance.now()"))


def submit_ms(page: Any) -> float:
    count = page.locator(".live").count()
    start = time.perf_counter()
    page.click("button[data-action=submit]")
    page.wait_for_selector(
        f".live >> nth={count} >> .submission[data-verdict]:not([data-verdict=''])",
        timeout=60_000,
    )
    return (time.perf_counter() - start) * 1000


def measure(
    browser: Any, base: str, repeat: int
) -> tuple[dict[str, list[float]], dict[str, list[dict[str, Any]]]]:
    url = f"{base}/problems/{SLUG}"
    results: dict[str, list[float]] = {name: [] for name in GOALS_MS}
    boots: dict[str, list[dict[str, Any]]] = {"cold": [], "warm": []}
    for _ in range(repeat):
        context = browser.new_context()  # a new context starts with an empty cache
        page = context.new_page()
        results["cold"].append(first_result_ms(page, url, boots["cold"]))
        page.wait_for_timeout(1500)  # the snapshot is written in the background
        results["warm"].append(first_result_ms(page, url, boots["warm"]))
        results["rerun starter"].append(float(page.evaluate(RUN_AND_WAIT_JS)))
        replace_code(page, reference_source(SLUG))
        results["rerun reference"].append(float(page.evaluate(RUN_AND_WAIT_JS)))
        context.close()
    context = browser.new_context(base_url=base)  # the e2e steps name paths, not URLs
    page = context.new_page()
    register(page, prefix="bench")
    open_problem(page, SLUG)
    replace_code(page, reference_source(SLUG))
    for _ in range(repeat):
        results["submit"].append(submit_ms(page))
    context.close()
    return results, boots


def table(results: dict[str, list[float]]) -> str:
    rows = [f"| {'measure':<15} | {'median ms':>9} | {'min ms':>8} | {'max ms':>8} | goal |"]
    rows.append("|---|---:|---:|---:|---|")
    for name, values in results.items():
        goal = GOALS_MS[name]
        median = statistics.median(values)
        mark = "" if goal is None else f"≤ {goal:.0f} ms " + ("✓" if median <= goal else "✗")
        rows.append(
            f"| {name:<15} | {median:9.0f} | {min(values):8.0f} | {max(values):8.0f} | {mark} |"
        )
    return "\n".join(rows)


def boot_table(boots: dict[str, list[dict[str, Any]]]) -> str:
    """The worker's start, cold beside restored from the snapshot (medians, ms)."""
    rows = ["| worker start | restored | download | python | judge | total |"]
    rows.append("|---|---|---:|---:|---:|---:|")
    for name, records in boots.items():
        restored = sorted({str(r.get("restored")) for r in records})
        cells = [
            statistics.median(r["phases"][phase] for r in records)
            for phase in ("download", "python", "judge")
        ]
        total = statistics.median(r["ms"] for r in records)
        numbers = " | ".join(f"{c:.0f}" for c in [*cells, total])
        rows.append(f"| {name} | {'/'.join(restored)} | {numbers} |")
    cold, warm = (statistics.median(r["phases"]["python"] for r in boots[k]) for k in boots)
    rows.append(f"\nPython start from the snapshot: {cold / warm:.1f}x faster than cold.")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not (ROOT / "web" / "static" / "dist" / "app.js").is_file():
        print("build the front end first: npm run build --prefix web/frontend", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    with running_app() as base, sync_playwright() as playwright:
        browser = launch(playwright)
        results, boots = measure(browser, base, args.repeat)
        browser.close()
    load = os.getloadavg()
    print(f"{os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(table(results))
    print()
    print(boot_table(boots))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
