"""The worker side: claim once, retry internal errors a bounded number of times, and
pick up rows a crash left behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from problem_factory import GOOD, write_web_problem
from sandbox_host import needs_sandbox
from web_helpers import make_config, make_user, state, submit, wait_judged

from web import create_app
from web.judging import jobs
from web.store.db import transaction
from web.store.models import Submission

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database


def test_a_failing_judge_is_retried_then_stored_as_ie_never_wa(
    tmp_path: Path, db_template: Path
) -> None:
    root = tmp_path / "problems"
    # The reference itself crashes: the judge cannot compute expected values.
    write_web_problem(root, "broken", reference="def add(a, b):\n    raise RuntimeError('bug')\n")
    app = create_app(make_config(tmp_path, db_template, root, max_job_attempts=2))
    try:
        client = app.test_client()
        ada = make_user(client, "ada")
        sid = submit(client, ada, GOOD, problem="broken")
        wait_judged(app)
        view = client.get(f"/api/submissions/{sid}", headers=ada.auth).json
        assert (view["status"], view["verdict"], view["points"]) == ("done", "IE", 0)
        assert "internal_error" not in view  # the traceback is for administrators
        with state(app).sessions() as db:
            assert db.get(Submission, sid).attempts == 2
        assert client.get("/api/leaderboard").json["entries"] == []
    finally:
        state(app).close()


def test_rows_left_running_by_a_crash_are_judged_on_start(
    tmp_path: Path, db_template: Path, problems_root: Path
) -> None:
    config = make_config(tmp_path, db_template, problems_root, start_workers=False)
    first = create_app(config)
    client = first.test_client()
    ada = make_user(client, "ada")
    sid = submit(client, ada, GOOD)
    with transaction(state(first).sessions) as db:  # as if a worker died mid-job
        db.get(Submission, sid).status = "running"
    state(first).close()
    second = create_app(config.with_(start_workers=True))
    try:
        wait_judged(second)
        with state(second).sessions() as db:
            row = db.get(Submission, sid)
            assert (row.status, row.verdict) == ("done", "AC")
    finally:
        state(second).close()


def test_a_submission_queued_twice_is_judged_once(
    tmp_path: Path, db_template: Path, problems_root: Path
) -> None:
    app = create_app(make_config(tmp_path, db_template, problems_root, start_workers=False))
    try:
        client = app.test_client()
        ada = make_user(client, "ada")
        sid = submit(client, ada, GOOD)
        st = state(app)
        ctx = jobs.JobContext(st.sessions, st.catalog, 7, st.judge, 3, requeue=lambda _id: None)
        jobs.run_job(ctx, sid)
        jobs.run_job(ctx, sid)  # already done: the claim fails, nothing runs
        with st.sessions() as db:
            row = db.get(Submission, sid)
            assert (row.attempts, row.verdict) == (1, "AC")
    finally:
        state(app).close()


def test_a_stored_verdict_updates_the_board_in_the_same_transaction(
    app,
    client,  # type: ignore[no-untyped-def]
) -> None:
    ada = make_user(client, "ada")
    submit(client, ada, GOOD)
    wait_judged(app)
    entries = client.get("/api/leaderboard").json["entries"]
    assert [(e["user"], e["points"], e["solved"]) for e in entries] == [("ada", 100, 1)]


def test_an_unknown_judge_backend_is_refused_at_start(
    tmp_path: Path, db_template: Path, problems_root: Path
) -> None:
    config = make_config(tmp_path, db_template, problems_root, judge_backend="cloud")
    with pytest.raises(
        ValueError, match="judge backend 'cloud' must be one of sandbox, unsafe-local"
    ):
        create_app(config)


@pytest.mark.sandbox
@needs_sandbox
def test_the_sandbox_backend_judges_through_the_runner(
    tmp_path: Path, db_template: Path, problems_root: Path
) -> None:
    """Skips only without bubblewrap or user namespaces: a runner that fails to import
    fails here (it used to be an importorskip, which made that a silent skip)."""
    config = make_config(tmp_path, db_template, problems_root, judge_backend="sandbox", workers=1)
    app = create_app(config)
    try:
        client = app.test_client()
        ada = make_user(client, "ada")
        sid = submit(client, ada, GOOD)
        wait_judged(app)
        view = client.get(f"/api/submissions/{sid}", headers=ada.auth).json
        assert (view["verdict"], view["environment"]["launcher"]) == ("AC", "sandbox")
    finally:
        state(app).close()


def test_a_killed_judge_process_is_replaced_and_the_job_retried(
    app,  # type: ignore[no-untyped-def]
    client,  # type: ignore[no-untyped-def]
) -> None:
    import os
    import signal

    ada = make_user(client, "ada")
    submit(client, ada, GOOD)
    wait_judged(app)  # the pool's processes are up now
    for pid in _pool_processes(os.getpid()):  # no job is running: only the pool is killed
        os.kill(pid, signal.SIGKILL)
    sid = submit(client, ada, GOOD + "# again\n")  # the same code again would be a repeat
    wait_judged(app)
    with state(app).sessions() as db:
        row = db.get(Submission, sid)
        assert (row.verdict, row.attempts) == ("AC", 2)  # one IE try, then a fresh pool


def _pool_processes(parent: int) -> list[int]:
    """The judging pool's processes: children of `parent` started by multiprocessing's
    spawn (not its resource tracker), read from /proc."""
    import os

    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmdline = f.read()
            except OSError:
                continue
            if ppid == parent and b"spawn_main" in cmdline:
                found.append(int(entry))
    return found
