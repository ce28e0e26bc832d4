"""Fixtures for the front-end tests: the built bundle, the real app under waitress on a
free localhost port with a temporary SQLite database, and Debian's headless Chromium
driven by Playwright (never a downloaded browser)."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from devtools.chromium import CHROMIUM, CHROMIUM_ARGS, launch
from devtools.threaded_server import serve_in_thread, url

ROOT = Path(__file__).resolve().parents[3]
FRONTEND = ROOT / "web" / "frontend"
DIST = ROOT / "web" / "static" / "dist"
PROBLEMS = ROOT / "problems"
ARTIFACTS = ROOT / "test-artifacts" / "e2e"
# A known seed, so tests can assert that no route ever shows it.
JUDGE_SEED = 0x5EC12E7_5EED


def npm_command() -> str:
    """npm, after `npm ci` if web/frontend/node_modules is missing."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is not installed: the front end cannot be built (apt-get install npm)")
    if not (FRONTEND / "node_modules").is_dir():
        subprocess.run([npm, "ci", "--prefix", str(FRONTEND)], check=True, capture_output=True)
    return npm


def build_frontend() -> None:
    """The production build into DIST."""
    npm = npm_command()
    env = {**os.environ, "PYTHON": sys.executable}
    done = subprocess.run(
        [npm, "run", "build", "--prefix", str(FRONTEND)],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.fail(f"front-end build failed:\n{done.stdout}\n{done.stderr}")


# Who built DIST last: the test run's id. Each xdist worker has a session of its own, and
# two builds into one folder at once left a worker's live server without a bundle that the
# other build had just removed; so the first worker builds under a lock, the others wait for
# it and then find the marker.
BUILT_BY = ROOT / "test-artifacts" / "frontend-built-by"


@pytest.fixture(scope="session")
def dist() -> Path:
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid-{os.getpid()}"
    BUILT_BY.parent.mkdir(parents=True, exist_ok=True)
    with open(BUILT_BY.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not BUILT_BY.is_file() or BUILT_BY.read_text() != run:
            build_frontend()
            BUILT_BY.write_text(run)
    return DIST


@dataclass(frozen=True, slots=True)
class LiveServer:
    url: str
    app: Any


@pytest.fixture(scope="session")
def live_server(
    dist: Path, tmp_path_factory: pytest.TempPathFactory, db_template: Path
) -> Iterator[LiveServer]:
    """The real platform (app factory, worker pool, waitress) on 127.0.0.1, on the suite's
    store (`db_template` chooses it: tests/web/suite_store.py)."""
    from suite_store import STORE

    from web import create_app
    from web.config import RateLimit, WebConfig

    folder = tmp_path_factory.mktemp("platform")
    # One server for the whole session: every test registers, logs in and submits from the
    # same address, so the production limits (10 registrations an hour per address) would
    # make each test depend on how many ran before it. The limits have their own tests.
    plenty = RateLimit(100_000, 3600.0)
    config = WebConfig(
        register_per_ip=plenty,
        login_per_user=plenty,
        login_per_ip=plenty,
        submit_per_user=plenty,
        submit_per_ip=plenty,
        run_per_user=plenty,
        run_per_ip=plenty,
        database_url=STORE.session_database_url(folder / "judge.sqlite3"),
        problems_dir=PROBLEMS,
        secret_key="e2e-" + os.urandom(16).hex(),
        judge_seed=JUDGE_SEED,
        workers=1,
        judge_backend="unsafe-local",  # a loopback test server; no bubblewrap needed
    )
    app = create_app(config)
    try:
        with serve_in_thread(app, name="waitress", threads=8) as server:
            yield LiveServer(url(server), app)
    finally:
        from web.state import EXTENSION

        # All of it, the pooled connections too (on PostgreSQL an open one warns at exit).
        app.extensions[EXTENSION].close()


ISOLATION_HEADERS = ("cross-origin-opener-policy", "cross-origin-embedder-policy")


def without_isolation(app: Any) -> Any:
    """WSGI middleware dropping COOP/COEP: the page is then not cross-origin isolated,
    cannot share memory with its worker, and Stop must terminate the worker."""

    def wrapped(environ: dict[str, Any], start_response: Any) -> Any:
        def start(status: str, headers: list[tuple[str, str]], *rest: Any) -> Any:
            kept = [(k, v) for k, v in headers if k.lower() not in ISOLATION_HEADERS]
            return start_response(status, kept, *rest)

        return app(environ, start)

    return wrapped


@pytest.fixture(scope="session")
def plain_url(live_server: LiveServer) -> Iterator[str]:
    """The same app (same database) on a second port, without cross-origin isolation."""
    with serve_in_thread(
        without_isolation(live_server.app), name="waitress-plain", threads=4
    ) as server:
        yield url(server)


@pytest.fixture(scope="session")
def playwright() -> Iterator[Any]:
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (no browser is downloaded)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as running:
        yield running


@pytest.fixture(scope="session")
def browser(playwright: Any) -> Iterator[Any]:
    chromium = launch(playwright)
    yield chromium
    chromium.close()


def _locale(request: pytest.FixtureRequest) -> str:
    marker = request.node.get_closest_marker("locale")
    return str(marker.args[0]) if marker else "en-US"


@pytest.fixture(scope="session")
def warm_contexts(
    playwright: Any, live_server: LiveServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """One browser profile per language, kept for the session: a page opened in it finds the
    Python snapshot an earlier page left (Pyodide ready in about a second instead of three
    to five), as a learner's browser does from the second problem on. Each test's page still
    starts with no cookies and no site data but that snapshot (`page`)."""
    contexts: dict[str, Any] = {}

    def context_for(locale: str) -> Any:
        if locale not in contexts:
            context = playwright.chromium.launch_persistent_context(
                str(tmp_path_factory.mktemp(f"profile-{locale}")),
                executable_path=str(CHROMIUM),
                args=list(CHROMIUM_ARGS),
                locale=locale,
                base_url=live_server.url,
                viewport={"width": 1440, "height": 900},
                extra_http_headers={"Accept-Language": locale},
            )
            context.set_default_timeout(20_000)
            contexts[locale] = context
        return contexts[locale]

    yield context_for  # type: ignore[misc]
    for context in contexts.values():
        context.close()


# What a page of the shared profile starts without: every kind of site data but the cache
# that holds Python's snapshot (a copy of what a fresh start builds, keyed by its version).
SITE_DATA = "cookies,local_storage,indexeddb,service_workers,websql,file_systems,shader_cache"


@pytest.fixture()
def page(
    warm_contexts: Any, live_server: LiveServer, request: pytest.FixtureRequest
) -> Iterator[Any]:
    """A page with no cookies and no site data (the Python snapshot aside), in the shared
    profile of the marker's language (`locale`, default en-US)."""
    context = warm_contexts(_locale(request))
    tab = context.new_page()
    cdp = context.new_cdp_session(tab)
    cdp.send("Storage.clearDataForOrigin", {"origin": live_server.url, "storageTypes": SITE_DATA})
    cdp.detach()
    context.clear_cookies()
    context.clear_permissions()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    tab.close()
    assert not errors, f"uncaught errors in the page: {errors}"


@pytest.fixture()
def fresh_page(
    browser: Any, live_server: LiveServer, request: pytest.FixtureRequest
) -> Iterator[Any]:
    """A page in a context of its own, as a first visit: nothing cached, no snapshot."""
    locale = _locale(request)
    context = browser.new_context(
        locale=locale,
        base_url=live_server.url,
        viewport={"width": 1440, "height": 900},
        extra_http_headers={"Accept-Language": locale},
    )
    context.set_default_timeout(20_000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, f"uncaught errors in the page: {errors}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "locale(tag): the browser language for the page fixture")
