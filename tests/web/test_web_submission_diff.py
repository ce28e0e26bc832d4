"""The diff of two of your own submissions (GET /api/submissions/<id>/diff?against=<id>):
a line diff with line numbers on each side, a shortest one within a budget of work and
otherwise said to be unaligned; nobody else's code is ever diffed."""

from __future__ import annotations

import resource
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st
from problem_factory import GOOD
from web_helpers import make_config, make_user, state, submit, wait_judged

from web import create_app
from web.attempts.diffs import line_diff

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database

SECOND = "def add(a, b):\n    total = a + b\n    return total\n"


def test_a_line_diff_keeps_both_sides_numbered() -> None:
    diff = line_diff("a\nb\nc\n", "a\nB\nc\nd\n")
    assert diff.aligned
    rows = diff.rows
    assert [(r["op"], r["old"], r["new"], r["text"]) for r in rows] == [
        (" ", 1, 1, "a"),
        ("-", 2, None, "b"),
        ("+", None, 2, "B"),
        (" ", 3, 3, "c"),
        ("+", None, 4, "d"),
    ]


def test_two_of_your_submissions_diff_line_by_line(app: Flask, client: FlaskClient) -> None:
    alice = make_user(client, "alice")
    first, second = submit(client, alice, GOOD), submit(client, alice, SECOND)
    wait_judged(app)
    diff = client.get(f"/api/submissions/{first}/diff?against={second}", headers=alice.auth).json
    assert diff["from"]["id"] == first and diff["to"]["id"] == second
    assert diff["from"]["verdict"] == "AC" and diff["added"] == 2 and diff["removed"] == 1
    assert diff["aligned"] is True and "note" not in diff
    assert {"op": "-", "old": 2, "new": None, "text": "    return a + b"} in diff["lines"]
    assert {"op": "+", "old": None, "new": 3, "text": "    return total"} in diff["lines"]


def test_someone_elses_submission_is_never_diffed(app: Flask, client: FlaskClient) -> None:
    alice, bob = make_user(client, "alice"), make_user(client, "bob")
    mine, theirs = submit(client, alice, GOOD), submit(client, bob, SECOND)
    wait_judged(app)
    refused = client.get(f"/api/submissions/{mine}/diff?against={theirs}", headers=alice.auth)
    assert refused.status_code == 404 and refused.json["error"]["code"] == "unknown_submission"
    assert "total" not in refused.get_data(as_text=True)
    anonymous = client.get(f"/api/submissions/{mine}/diff?against={theirs}")
    assert anonymous.json["error"]["code"] == "login_required"


def test_a_diff_needs_the_other_submission(app: Flask, client: FlaskClient) -> None:
    alice = make_user(client, "alice")
    mine = submit(client, alice, GOOD)
    missing = client.get(f"/api/submissions/{mine}/diff", headers=alice.auth)
    assert missing.status_code == 400 and missing.json["error"]["field"] == "against"


def shortest(a: list[str], b: list[str]) -> int:
    """The fewest lines removed plus added that turn `a` into `b` (n + m - 2 LCS)."""
    lcs = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            lcs[i + 1][j + 1] = lcs[i][j] + 1 if x == y else max(lcs[i][j + 1], lcs[i + 1][j])
    return len(a) + len(b) - 2 * lcs[len(a)][len(b)]


def sides(rows: list[dict[str, Any]]) -> tuple[list[str], list[str], list[int], list[int]]:
    old = [r["text"] for r in rows if r["op"] != "+"]
    new = [r["text"] for r in rows if r["op"] != "-"]
    old_numbers = [r["old"] for r in rows if r["op"] != "+"]
    new_numbers = [r["new"] for r in rows if r["op"] != "-"]
    return old, new, old_numbers, new_numbers


LINES = st.lists(st.sampled_from(["a", "b", "c", "", "    x = 1"]), max_size=30)


@settings(max_examples=300, deadline=None, database=None)
@given(a=LINES, b=LINES, budget=st.sampled_from([0, 3, 400_000]))
def test_every_diff_lists_both_sides_in_order_and_a_shortest_one_within_the_budget(
    a: list[str], b: list[str], budget: int
) -> None:
    text = ["".join(line + "\n" for line in lines) for lines in (a, b)]
    diff = line_diff(*text, max_steps=budget)
    old, new, old_numbers, new_numbers = sides(diff.rows)
    assert (old, new) == (a, b)
    assert old_numbers == list(range(1, len(a) + 1))
    assert new_numbers == list(range(1, len(b) + 1))
    changed = sum(1 for r in diff.rows if r["op"] != " ")
    if budget == 400_000:
        assert diff.aligned and changed == shortest(a, b)
    ops = "".join(r["op"] for r in diff.rows)
    assert "+-" not in ops, "within a change, removals come first"


@contextmanager
def cpu_alarm(seconds: float) -> Iterator[None]:
    """Interrupt the test once the process has used `seconds` of CPU (the quadratic diff
    took 207 s; the test should fail in seconds, not wait for it)."""

    def expire(_signum: int, _frame: object) -> None:
        raise TimeoutError(f"the diff used more than {seconds} s of CPU")

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def fill(pattern: str, size: int = 64 * 1024) -> str:
    """`pattern` repeated into at most `size` bytes of whole lines."""
    text = (pattern * (size // len(pattern) + 1))[:size]
    return text[: text.rfind("\n") + 1]


# Two 64 KiB submissions of repetitive lines: difflib's matcher took minutes on such pairs.
WORST = [
    ("a\n", "a\nb\n"),
    ("x = 1\n", "x = 2\n"),
    ("#\n", "\n#\n"),
    ("a\nb\nc\n", "a\nc\nb\n"),
]


@pytest.fixture
def idle_app(tmp_path: Path, db_template: Path, problems_root: Path) -> Iterator[Flask]:
    """No judging threads: the process's CPU time is the request's."""
    app = create_app(make_config(tmp_path, db_template, problems_root, start_workers=False))
    yield app
    state(app).close()


@pytest.mark.parametrize(("first", "second"), WORST)
def test_a_diff_of_two_large_repetitive_submissions_is_bounded_and_says_so(
    idle_app: Flask, first: str, second: str
) -> None:
    """Regression (issue 22): difflib's SequenceMatcher is quadratic in repeated lines, so
    one diff of two 64 KiB submissions took 207 s of CPU and a few such requests held
    every server thread. CPU time, not wall time: a loaded machine changes it far less."""
    client = idle_app.test_client()
    alice = make_user(client, "alice")
    old, new = submit(client, alice, fill(first)), submit(client, alice, fill(second))
    url = f"/api/submissions/{old}/diff?against={new}"
    with cpu_alarm(20.0):
        started = time.process_time()
        response = client.get(url, headers=alice.auth)
        used = time.process_time() - started
    assert response.status_code == 200
    diff = response.json
    # The regression took 207 s; a bounded diff takes a fraction of a second idle. CPU time
    # still grows on a loaded machine (caches and cores shared with the busy processes: 1.18 s
    # beside two busy loops), so the bound sits far from both: it catches the quadratic
    # matcher, not a slow machine (the diff's speed is bench material, not a test's).
    assert used < 5.0, f"{used:.2f} s of CPU for one diff"
    assert diff["aligned"] is False
    assert str(diff["removed"] + diff["added"]) in diff["note"] and "line them up" in diff["note"]
    old_lines, new_lines, _, _ = sides(diff["lines"])
    assert old_lines == fill(first).splitlines() and new_lines == fill(second).splitlines()
    zh = client.get(url, headers=alice.auth | {"Accept-Language": "zh"}).json
    assert "无法逐行对齐" in zh["note"]


def test_a_large_submission_with_a_few_changes_still_gets_a_shortest_diff(
    idle_app: Flask,
) -> None:
    client = idle_app.test_client()
    alice = make_user(client, "alice")
    lines = [f"    total += {i % 7}" for i in range(4000)]
    changed = list(lines)
    for i in range(0, 4000, 100):
        changed[i] = "    total -= 1"
    old = submit(client, alice, "\n".join(lines) + "\n")
    new = submit(client, alice, "\n".join(changed) + "\n")
    started = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    diff = client.get(f"/api/submissions/{old}/diff?against={new}", headers=alice.auth).json
    assert resource.getrusage(resource.RUSAGE_SELF).ru_utime - started < 5.0
    assert diff["aligned"] is True and (diff["added"], diff["removed"]) == (40, 40)
