"""Each stored submission is judged on hidden inputs of its own, and sees nothing of them
(issue 20, section 3).

With one secret seed for every submission of a problem, what a hidden case showed (the
index of a mismatch, an exception's class, its time) added up over submissions to the
hidden inputs themselves, which could then be hard-coded. Now every submission's row
carries a seed drawn when it was created: two submissions of the same code meet different
hidden cases, a rejudge or a retry meets the same ones again, and a row from before the
seed column is judged as it always was. The hidden inputs are read here the way an
administrator sees them: the code prints its arguments, and what hidden cases print is
withheld from the learner but kept for admins.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from quiz_factory import RIGHT, write_quiz
from web_helpers import (
    SECRET_SEED,
    Account,
    make_config,
    make_user,
    page_login,
    state,
    submit,
    wait_judged,
)

from judge.problem.cases import build_cases
from web import create_app
from web.judging import core_seam, jobs
from web.store.db import transaction
from web.store.models import Submission

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database

PRINTS_ITS_ARGS = "def add(a, b):\n    print('ARGS', a, b)\n    return a + b\n"
ARGS = re.compile(r"ARGS (-?\d+) (-?\d+)")


def _hidden_args(client: FlaskClient, root: Account, sid: int) -> list[tuple[int, int]]:
    """The arguments the judge gave the hidden cases of submission `sid`, in order."""
    view = client.get(f"/api/submissions/{sid}", headers=root.auth).json
    assert view["verdict"] == "AC", view
    return [(int(a), int(b)) for a, b in ARGS.findall(view["withheld_stdout"])]


def _seed_of(app: Flask, sid: int) -> int | None:
    with state(app).sessions() as db:
        return db.get(Submission, sid).hidden_seed


def test_two_submissions_of_the_same_code_meet_different_hidden_cases(
    app: Flask, client: FlaskClient
) -> None:
    ada, bob = make_user(client, "ada"), make_user(client, "bob")
    root = make_user(client, "root", admin=True)
    first, second = submit(client, ada, PRINTS_ITS_ARGS), submit(client, bob, PRINTS_ITS_ARGS)
    wait_judged(app)
    seen_first, seen_second = _hidden_args(client, root, first), _hidden_args(client, root, second)
    assert len(seen_first) == len(seen_second) == 3
    assert not set(seen_first) & set(seen_second)  # nothing one learned recurs in the other
    problem = state(app).catalog.get("add-two")
    shared = [c.args for c in build_cases(problem, SECRET_SEED) if not c.public]
    assert [(a["a"], a["b"]) for a in shared] not in (seen_first, seen_second)  # type: ignore[index]


def test_a_rejudge_meets_the_same_hidden_cases_again(app: Flask, client: FlaskClient) -> None:
    ada, root = make_user(client, "ada"), make_user(client, "root", admin=True)
    sid = submit(client, ada, PRINTS_ITS_ARGS)
    wait_judged(app)
    before, seed = _hidden_args(client, root, sid), _seed_of(app, sid)
    assert seed is not None
    response = client.post("/api/admin/problems/add-two/rejudge", json={}, headers=root.auth)
    assert response.json["requeued"] == 1
    wait_judged(app)
    with state(app).sessions() as db:
        assert db.get(Submission, sid).attempts == 2  # judged again, not left as it was
    assert _hidden_args(client, root, sid) == before
    assert _seed_of(app, sid) == seed


class _Recording:
    """The app's judge, recording each seed it is given; with `fail_first`, its first run
    fails as a crashed judging process would."""

    def __init__(self, inner: core_seam.Judge, fail_first: bool = False) -> None:
        self.inner, self.fail_first, self.seeds = inner, fail_first, []  # type: list[int]

    def run(self, problem, code, seed, progress=None):  # type: ignore[no-untyped-def]
        self.seeds.append(seed)
        if self.fail_first and len(self.seeds) == 1:
            raise RuntimeError("the judging process died")
        return self.inner.run(problem, code, seed, progress)

    def ready_seed(self, problem):  # type: ignore[no-untyped-def]
        return None

    def close(self) -> None:
        pass


def test_a_retry_after_the_judge_failed_meets_the_same_hidden_cases(
    tmp_path: Path, db_template: Path, problems_root: Path
) -> None:
    app = create_app(make_config(tmp_path, db_template, problems_root, start_workers=False))
    try:
        client = app.test_client()
        ada, root = make_user(client, "ada"), make_user(client, "root", admin=True)
        sid = submit(client, ada, PRINTS_ITS_ARGS)
        st = state(app)
        flaky = _Recording(st.judge, fail_first=True)
        queued: list[int] = []
        ctx = jobs.JobContext(
            st.sessions, st.catalog, SECRET_SEED, flaky, 3, lambda i, _delay: queued.append(i)
        )
        jobs.run_job(ctx, sid)  # IE on the first try: put back, to be retried
        assert queued == [sid]
        jobs.run_job(ctx, sid)
        assert flaky.seeds == [_seed_of(app, sid)] * 2
        problem = st.catalog.get("add-two")
        expected = [c.args for c in build_cases(problem, flaky.seeds[0]) if not c.public]
        assert _hidden_args(client, root, sid) == [(a["a"], a["b"]) for a in expected]  # type: ignore[index]
    finally:
        state(app).close()


def test_a_quiz_sheet_is_judged_on_its_rows_seed_as_code_is(
    tmp_path: Path, db_template: Path
) -> None:
    """A quiz draws its hidden expression points from the seed: each sheet its own."""
    root = tmp_path / "problems"
    write_quiz(root, slug="quiz")
    app = create_app(make_config(tmp_path, db_template, root, start_workers=False))
    try:
        client = app.test_client()
        ada, bob = make_user(client, "ada"), make_user(client, "bob")
        sheet = json.dumps(RIGHT)
        ids = [submit(client, who, sheet, problem="quiz") for who in (ada, bob)]
        st = state(app)
        recording = _Recording(st.judge)
        ctx = jobs.JobContext(st.sessions, st.catalog, SECRET_SEED, recording, 3, lambda *_: None)
        for sid in ids:
            jobs.run_job(ctx, sid)
        seeds = [_seed_of(app, sid) for sid in ids]
        assert recording.seeds == seeds and len(set(seeds)) == 2 and SECRET_SEED not in seeds
        views = [client.get(f"/api/submissions/{sid}", headers=ada.auth).json for sid in ids]
        assert [v["verdict"] for v in views] == ["AC", "AC"]
    finally:
        state(app).close()


def test_a_row_from_before_the_seed_column_is_judged_as_before(
    app: Flask, client: FlaskClient
) -> None:
    """A NULL seed (rows stored before migration 0011) keeps the server's secret seed, so a
    rejudge of an old submission meets the cases it met then."""
    ada, root = make_user(client, "ada"), make_user(client, "root", admin=True)
    sid = submit(client, ada, PRINTS_ITS_ARGS)
    wait_judged(app)
    with transaction(state(app).sessions) as db:
        db.get(Submission, sid).hidden_seed = None
    client.post("/api/admin/problems/add-two/rejudge", json={}, headers=root.auth)
    wait_judged(app)
    problem = state(app).catalog.get("add-two")
    expected = [c.args for c in build_cases(problem, SECRET_SEED) if not c.public]
    assert _hidden_args(client, root, sid) == [(a["a"], a["b"]) for a in expected]  # type: ignore[index]
    assert _seed_of(app, sid) is None


def test_the_seed_is_in_nothing_anyone_reads(app: Flask, client: FlaskClient) -> None:
    ada, root = make_user(client, "ada"), make_user(client, "root", admin=True)
    sid = submit(client, ada, PRINTS_ITS_ARGS)
    wait_judged(app)
    seed = str(_seed_of(app, sid))
    assert len(seed) > 6
    views = [
        client.get(f"/api/submissions/{sid}", headers=ada.auth).get_data(as_text=True),
        client.get(f"/api/submissions/{sid}", headers=root.auth).get_data(as_text=True),
        client.get("/api/submissions?problem=add-two", headers=ada.auth).get_data(as_text=True),
    ]
    assert all(seed not in text for text in views)
    assert json.loads(views[0])["seed"] == "secret"


# A submission that knows each hidden case's `a` tries to show it back three ways.
SPELLS = (
    "import time\n"
    "NAMES = ['KeyError', 'ValueError', 'TypeError', 'IndexError']\n"
    "def add(a, b):\n"
    "    if a >= 0:\n"
    "        time.sleep((a % 8) * 0.025)\n"
    "        raise type(NAMES[a % 4], (Exception,), {})()\n"
    + "".join(f"    if a % 20 == {i}:\n        raise ValueError()\n" for i in range(20))
)


def test_through_the_api_a_hidden_case_shows_its_verdict_and_a_coarse_time_only(
    app: Flask, client: FlaskClient
) -> None:
    ada = make_user(client, "ada")
    sid = submit(client, ada, SPELLS)
    wait_judged(app)
    view = client.get(f"/api/submissions/{sid}", headers=ada.auth).json
    hidden = [c for c in view["cases"] if not c["public"]]
    assert len(hidden) == 3 and all(c["verdict"] == "RE" for c in hidden)
    step = 200.0  # a tenth of the fixture problem's 2 s per case
    assert all(c["time_ms"] % step == 0 for c in hidden) and view["time_ms"] % step == 0
    for case in hidden:
        assert set(case) == {"name", "public", "verdict", "time_ms", "message", "message_key",
                             "message_args"}  # fmt: skip
        assert (case["message_key"], case["message_args"]) == ("hidden.runtime_error", {})
    public = [c for c in view["cases"] if c["public"]]
    assert all(c["line"] and c["traceback"] and "input" in c for c in public)


def test_a_stored_hidden_case_with_a_line_is_shown_without_it(
    app: Flask, client: FlaskClient
) -> None:
    """A report stored by an older judge (or a buggy one) may carry a hidden case's line and
    traceback; the submission chose both, so the API leaves them out."""
    ada = make_user(client, "ada")
    sid = submit(client, ada, PRINTS_ITS_ARGS)
    wait_judged(app)
    leaky = {"name": "random-0", "public": False, "verdict": "RE", "time_ms": 1.5,
             "message": "boom", "line": 42, "traceback": "line 42"}  # fmt: skip
    report = {"problem": "add-two", "version": "v", "verdict": "RE", "cases": [leaky]}
    with transaction(state(app).sessions) as db:
        db.get(Submission, sid).report_json = json.dumps(report)
    (case,) = client.get(f"/api/submissions/{sid}", headers=ada.auth).json["cases"]
    assert "line" not in case and "traceback" not in case


def test_the_submission_page_shows_a_hidden_cases_time_as_a_bound(
    app: Flask, client: FlaskClient
) -> None:
    ada = make_user(client, "ada")
    sid = submit(client, ada, PRINTS_ITS_ARGS)
    wait_judged(app)
    page_login(client, "ada")
    page = client.get(f"/submissions/{sid}").get_data(as_text=True)
    rows = re.findall(r"<tr><td>(hidden-random-\d+)</td>.*?<td>([^<]*ms)</td>", page, re.S)
    assert len(rows) == 3 and all(time == "≤ 200 ms" for _, time in rows), rows


class _WithReadySeeds(_Recording):
    """The app's judge with seeds made ready ahead (runner.seedstock), handed out in turn."""

    def __init__(self, inner: core_seam.Judge, ready: list[int]) -> None:
        super().__init__(inner)
        self.ready, self.asked = ready, 0

    def ready_seed(self, problem):  # type: ignore[no-untyped-def]
        self.asked += 1
        return self.ready.pop(0) if self.ready else None


def test_a_first_judging_takes_a_ready_seed_and_keeps_it_for_retries_and_rejudges(
    tmp_path: Path, db_template: Path, problems_root: Path
) -> None:
    app = create_app(make_config(tmp_path, db_template, problems_root, start_workers=False))
    try:
        client = app.test_client()
        ada, root = make_user(client, "ada"), make_user(client, "root", admin=True)
        sid = submit(client, ada, PRINTS_ITS_ARGS)
        drawn = _seed_of(app, sid)
        st = state(app)
        judge = _WithReadySeeds(st.judge, [424242, 777])
        ctx = jobs.JobContext(st.sessions, st.catalog, SECRET_SEED, judge, 3, lambda i, d: None)
        jobs.run_job(ctx, sid)
        # The ready seed replaced the one drawn with the row, before anything was judged.
        assert drawn != 424242 and _seed_of(app, sid) == 424242
        assert judge.seeds == [424242]
        problem = st.catalog.get("add-two")
        expected = [
            (c.args["a"], c.args["b"]) for c in build_cases(problem, 424242) if not c.public
        ]  # type: ignore[index]
        assert _hidden_args(client, root, sid) == expected
        # A rejudge is not a first judging: it keeps the stored seed, asks for none.
        rejudge = "/api/admin/problems/add-two/rejudge"
        assert client.post(rejudge, json={}, headers=root.auth).status_code < 300
        asked = judge.asked
        jobs.run_job(ctx, sid)
        assert judge.asked == asked and judge.seeds == [424242, 424242]
        assert _seed_of(app, sid) == 424242 and judge.ready == [777]
    finally:
        state(app).close()
