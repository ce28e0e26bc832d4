"""The speed board's acceptance test in real Chromium: a learner submits decode-throughput's
reference through the editor and Submit; the server judges it for real (the queue, the
runner's sandbox, nine timed repetitions on the secret seed), and the problem page's
board and /leaderboard/decode-throughput show the learner's row with the stored score,
its unit, its q1-q3 range and the hardware that measured it. A second learner then submits
a correct, slower solution (each prompt decoded alone): the two real runs are ranked by the
overlap rule from their own stored quartiles, on the board's API and on its page. (That
ranking was tests/web/test_web_speed_ranks.py's, which judged the same reference again.)"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import timed_repetitions

from devtools.threaded_server import serve_in_thread, url
from web.judging.core_seam import hardware_text

from .conftest import JUDGE_SEED, PROBLEMS
from .pages import SUBMIT, open_problem, reference_source, register, replace_code, shoot

pytestmark = [pytest.mark.browser, pytest.mark.sandbox, pytest.mark.slow]
SLUG = "decode-throughput"
# Correct (every row is the batch's greedy continuation, token for token) and slower: eight
# batches of one, so every decode step reads all the weights for a single row.
ONE_BY_ONE = '''import torch

from mini_llm import generate


@torch.inference_mode()
def decode_batch(model, prompts, max_new_tokens):
    """Each prompt decoded on its own, as a batch of one."""
    return [generate(model, [p], max_new_tokens, stop_tokens=())[0] for p in prompts]
'''
# A real submission: a cold sandbox worker imports torch and loads the models, then the
# public cases, a warm-up and nine timed repetitions run (20-40 s on a busy 2-core box).
VERDICT_TIMEOUT_MS = 300_000
# The suite's spread limit (tests/web/web_helpers.py says why): the other worker runs beside.
SPREAD_LIMIT = 0.6


@pytest.fixture(scope="module")
def sandbox_server(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The platform as `judge serve` runs it: the queue judging in the runner's sandbox."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed: no sandboxed judging here")
    from web import create_app
    from web.config import WebConfig, sqlite_url
    from web.state import EXTENSION

    folder = tmp_path_factory.mktemp("speed-board")
    config = WebConfig(
        database_url=sqlite_url(folder / "judge.sqlite3"),
        problems_dir=PROBLEMS,
        secret_key="e2e-" + os.urandom(16).hex(),
        judge_seed=JUDGE_SEED,
        workers=1,
        judge_backend="sandbox",
        ready_seeds=0,  # no seed stock working beside the judgings under test
        speed_spread_limit=SPREAD_LIMIT,
    )
    app = create_app(config)
    try:
        with serve_in_thread(app, name="waitress-speed", threads=4) as server:
            yield url(server)
    finally:
        app.extensions[EXTENSION].close()


def overlap_rank(entry: dict[str, float], others: list[dict[str, float]]) -> int:
    """docs/WEB.md: 1 + the number of entries whose q1 is above this entry's q3."""
    return 1 + sum(1 for other in others if other["q1"] > entry["q3"])


def board_row(page: Any, username: str) -> list[str]:
    """The learner's row of the page's speed board, cell by cell, once scrolled to."""
    row = page.locator(f"#speed-board tbody tr[data-user='{username}']")
    assert row.count() == 1, page.inner_text("#speed-board")
    row.scroll_into_view_if_needed()
    assert row.is_visible()
    return [cell.strip() for cell in row.locator("td").all_inner_texts()]


# A run whose paired ratios spread past the judge's limit is accepted but not recorded, and
# the page asks the learner to submit again (docs/API.md, "unsteady"): on a loaded machine
# (the suite's other worker beside this one) that happens, and the test does what the
# learner is asked to do.
ATTEMPTS = 3


def scored_submission(page: Any) -> tuple[int, dict[str, Any]]:
    """Submit the editor's code until its speed is recorded: its id and its speed."""
    previous, spreads = None, []
    for attempt in range(ATTEMPTS):
        started = time.monotonic()
        page.click(SUBMIT)
        fresh = "" if previous is None else f":not([data-submission='{previous}'])"
        live = page.wait_for_selector(
            f".live .submission[data-verdict]:not([data-verdict='']){fresh}",
            timeout=VERDICT_TIMEOUT_MS,
        )
        print(f"decode-throughput judged in the sandbox in {time.monotonic() - started:.1f} s")
        shoot(page, f"30-speed-submitted-{attempt}")
        assert live.get_attribute("data-verdict") == "AC", live.inner_text()
        sid = int(live.get_attribute("data-submission") or 0)
        view = page.request.get(f"/api/submissions/{sid}").json()
        assert (view["verdict"], view["environment"]["launcher"]) == ("AC", "sandbox"), view
        speed = view["speed"]
        assert speed["spread_limit"] == SPREAD_LIMIT, speed
        if speed["state"] == "scored":
            return sid, speed
        assert speed["relative_spread"] > speed["spread_limit"], speed
        previous = sid
        spreads.append(speed["relative_spread"])
    pytest.fail(f"every run was too unsteady to record (spreads {spreads})")


def test_a_submitted_reference_reaches_the_speed_board_with_its_stored_score(
    browser: Any, sandbox_server: str
) -> None:
    context = browser.new_context(
        base_url=sandbox_server, locale="en-US", viewport={"width": 1440, "height": 900}
    )
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        username = register(page, prefix="speed")
        open_problem(page, SLUG)
        # Before any run the board is there, and empty.
        assert page.locator("#speed-board").count() == 1
        assert page.locator("#speed-board tbody tr[data-user]").count() == 0

        replace_code(page, reference_source(SLUG))
        sid, speed = scored_submission(page)
        assert speed["unit"] == "tokens/s"
        reps = timed_repetitions()
        assert speed["repetitions"] == reps and len(speed["samples"]) == reps
        assert 0 < speed["q1"] <= speed["value"] <= speed["q3"]
        # The page formats a score and its quartiles with one decimal ('%.1f').
        score = f"{speed['value']:.1f} tokens/s"
        spread = f"{speed['q1']:.1f} – {speed['q3']:.1f}"
        iqr = f"{speed['q3'] - speed['q1']:.1f}"
        hardware = hardware_text(speed["hardware"])
        assert hardware and "1 thread" in hardware and "torch " in hardware, hardware
        expected = ["1", username, score, spread, iqr, hardware]

        # The problem page's board (in the statement pane), rendered after the verdict.
        open_problem(page, SLUG)
        assert board_row(page, username) == expected
        shoot(page, "31-speed-problem-page")

        page.goto(f"/leaderboard/{SLUG}")
        assert board_row(page, username) == expected
        assert "rank = 1 + the number of entries" in page.inner_text("#speed-rank-rule")
        shoot(page, "32-speed-board")

        (entry,) = page.request.get(f"/api/leaderboard/{SLUG}").json()["speed"][0]["entries"]
        assert (entry["user"], entry["submission"], entry["rank"]) == (username, sid, 1)
        assert entry["value"] == speed["value"]  # stored as the report's number, not rounded
    finally:
        context.close()
    assert not errors, f"uncaught errors in the page: {errors}"
    ranked_with_a_slower_learner(browser, sandbox_server, username, sid, speed)


def ranked_with_a_slower_learner(
    browser: Any, server: str, first: str, first_id: int, first_speed: dict[str, Any]
) -> None:
    """A second learner's correct, slower run joins the board; both are ranked by the
    overlap rule from their stored quartiles, in the API and on the page alike."""
    context = browser.new_context(
        base_url=server, locale="en-US", viewport={"width": 1440, "height": 900}
    )
    context.set_default_timeout(20_000)
    page = context.new_page()
    try:
        second = register(page, prefix="slow")
        open_problem(page, SLUG)
        replace_code(page, ONE_BY_ONE)
        second_id, second_speed = scored_submission(page)
        ids = {first: first_id, second: second_id}
        speeds = {first: first_speed, second: second_speed}

        board = page.request.get(f"/api/leaderboard/{SLUG}").json()["speed"][0]["entries"]
        assert [e["user"] for e in board] == sorted(speeds, key=lambda w: -speeds[w]["value"])
        for entry in board:
            mine = speeds[entry["user"]]
            assert entry["submission"] == ids[entry["user"]]
            assert (entry["value"], entry["q1"], entry["q3"]) == (
                mine["value"],
                mine["q1"],
                mine["q3"],
            )
            others = [s for who, s in speeds.items() if who != entry["user"]]
            assert entry["rank"] == overlap_rank(mine, others), (entry, speeds)

        # The page shows the same ranks, in board order.
        page.goto(f"/leaderboard/{SLUG}")
        rows = page.locator("#speed-board tbody tr[data-user]")
        shown = [
            (rows.nth(i).get_attribute("data-user"), rows.nth(i).locator("td").first.inner_text())
            for i in range(rows.count())
        ]
        assert shown == [(e["user"], str(e["rank"])) for e in board], shown
        shoot(page, "33-speed-board-two-learners")
        print(
            "decode-throughput on the board:",
            ", ".join(
                f"{e['user']} #{e['rank']} {e['value']:.1f} ({e['q1']:.1f}-{e['q3']:.1f})"
                for e in board
            ),
        )
    finally:
        context.close()
