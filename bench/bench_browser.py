"""Browser timings against the running app, in Debian's headless Chromium.

    python bench/bench_browser.py [--repeat 5]

Measures, on the kv-bytes-per-token problem:
  cold      page open -> first Run result, with an empty browser cache
  warm      page open -> first Run result, the browser cache already filled
  rerun     a second Run on the open page (click -> results shown)
  submit    Submit -> verdict shown, for a browser-tier problem
and prints them beside the goals (4 s cold, 1.5 s warm, 150 ms per later Run).
Needs the front end built (npm run build --prefix web/frontend).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SLUG = "kv-bytes-per-token"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
GOALS_MS = {"cold": 4000.0, "warm": 1500.0, "rerun": 150.0, "submit": None}

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
    from waitress.server import create_server

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
        )
        app = create_app(config)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = create_server(app, host="127.0.0.1", port=port, threads=8)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.effective_port}"
        finally:
            server.close()
            app.extensions[EXTENSION].queue.stop()


def first_result_ms(page: Any, url: str) -> float:
    """Navigation start -> first Run report, clicking Run the moment Python is ready."""
    page.goto(url, wait_until="commit")
    page.wait_for_selector("button[data-action=run]:not([disabled])", timeout=60_000)
    page.evaluate(RUN_AND_WAIT_JS)
    return float(page.evaluate("() => performance.now()"))


def put_reference(page: Any) -> None:
    source = (ROOT / "problems" / SLUG / "reference.py").read_text(encoding="utf-8")
    page.click(".cm-content")
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(source)


def submit_ms(page: Any) -> float:
    count = page.locator(".live").count()
    start = time.perf_counter()
    page.click("button[data-action=submit]")
    page.wait_for_selector(
        f".live >> nth={count} >> .submission[data-verdict]:not([data-verdict=''])",
        timeout=60_000,
    )
    return (time.perf_counter() - start) * 1000


def register(page: Any, base: str) -> None:
    page.goto(f"{base}/register")
    page.fill("input[name=username]", f"bench{os.getpid()}")
    page.fill("input[name=password]", "benchmark password 1")
    page.click("#register-form button[type=submit]")
    page.wait_for_url(f"{base}/")


def measure(browser: Any, base: str, repeat: int) -> dict[str, list[float]]:
    url = f"{base}/problems/{SLUG}"
    results: dict[str, list[float]] = {"cold": [], "warm": [], "rerun": [], "submit": []}
    for _ in range(repeat):
        context = browser.new_context()  # a new context starts with an empty cache
        page = context.new_page()
        results["cold"].append(first_result_ms(page, url))
        results["warm"].append(first_result_ms(page, url))
        results["rerun"].append(float(page.evaluate(RUN_AND_WAIT_JS)))
        context.close()
    context = browser.new_context()
    page = context.new_page()
    register(page, base)
    page.goto(url)
    page.wait_for_selector(".workspace .cm-content")
    put_reference(page)
    for _ in range(repeat):
        results["submit"].append(submit_ms(page))
    context.close()
    return results


def table(results: dict[str, list[float]], describe: Callable[[str], str]) -> str:
    rows = [f"| {'measure':<8} | {'median ms':>9} | {'min ms':>8} | {'max ms':>8} | goal |"]
    rows.append("|---|---:|---:|---:|---|")
    for name, values in results.items():
        goal = GOALS_MS[name]
        mark = (
            ""
            if goal is None
            else f"≤ {goal:.0f} ms " + ("✓" if statistics.median(values) <= goal else "✗")
        )
        rows.append(
            f"| {describe(name):<8} | {statistics.median(values):9.0f} | {min(values):8.0f} "
            f"| {max(values):8.0f} | {mark} |"
        )
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
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        results = measure(browser, base, args.repeat)
        browser.close()
    load = os.getloadavg()
    print(f"{os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(table(results, lambda name: name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
