"""Submissions through real Celery workers: judged once each, routed by capability, and a
task delivered twice still stores one verdict."""

from __future__ import annotations

import json
import signal

from cluster_harness import MARKS, SLOW, Cluster, register, submit, wait_for
from problem_factory import GOOD, WRONG

from web.judging.celery_queue import TASK_JUDGE, make_celery

pytestmark = MARKS


def test_submissions_through_two_workers_are_each_judged_once(cluster: Cluster) -> None:
    cluster.start_worker("a")
    cluster.start_worker("b")
    client = cluster.app()
    people = [register(client, name) for name in ("ada", "bob", "cyd")]
    ids = {}
    for n, who in enumerate(people):
        for code in (WRONG, SLOW if n == 0 else GOOD, GOOD + f"# again {n}\n"):
            ids[submit(client, who, code)] = who.username
    rows = cluster.wait_judged(list(ids))
    assert sorted(r.verdict for r in rows.values()) == ["AC"] * 6 + ["WA"] * 3
    judgings = cluster.judgings()
    assert {sid: len(judgings.get(sid, [])) for sid in ids} == dict.fromkeys(ids, 1)
    assert {worker for records in judgings.values() for _, worker in records} <= {"a", "b"}
    # Each solved one problem once: 100 points each, the wrong first try a penalty only.
    assert [(points, solved) for _, points, solved in cluster.standings()] == [(100, 1)] * 3
    board = client.get("/api/leaderboard").json["entries"]
    assert sorted(e["user"] for e in board) == ["ada", "bob", "cyd"]


def test_a_task_delivered_twice_stores_one_verdict(cluster: Cluster) -> None:
    cluster.start_worker("a", concurrency=2)
    client = cluster.app()
    ada = register(client, "ada")
    sid = submit(client, ada, SLOW)
    celery = make_celery(cluster.config())
    try:
        celery.send_task(TASK_JUDGE, args=[sid], queue="cpu")  # the same id again, at once
        celery.send_task(TASK_JUDGE, args=["not an id"], queue="cpu")  # not ours: dropped
    finally:
        celery.close()
    rows = cluster.wait_judged([sid])
    assert rows[sid].verdict == "AC"
    wait_for(lambda: "dropping a judge task" in cluster.worker_log("a"), 30, "the bad task")
    assert cluster.judgings() == {sid: [(1, "a")]}
    assert rows[sid].attempts == 1


def test_a_gpu_submission_never_runs_on_a_worker_without_a_gpu(cluster: Cluster) -> None:
    import redis

    cluster.start_worker("cpu-only")
    client = cluster.app()
    ada = register(client, "ada")
    on_gpu = submit(client, ada, GOOD, problem="add-on-gpu")
    celery = make_celery(cluster.config())
    try:  # a misrouted copy lands on the cpu queue: the worker must send it back, not judge
        celery.send_task(TASK_JUDGE, args=[on_gpu], queue="cpu")
    finally:
        celery.close()
    after = submit(client, ada, GOOD)
    cluster.wait_judged([after])
    wait_for(lambda: "sent back to its queue" in cluster.worker_log("cpu-only"), 30, "send back")
    assert cluster.rows([on_gpu])[on_gpu].status == "queued"
    with redis.Redis.from_url(cluster.redis.url) as broker:
        assert broker.llen("gpu") >= 1  # waiting for a worker with a GPU
    assert on_gpu not in cluster.judgings()


def test_a_run_started_on_one_server_is_judged_by_a_worker_and_seen_from_another(
    cluster: Cluster,
) -> None:
    cluster.start_worker("a")
    one, two = cluster.app(), cluster.app()
    assert one.application.extensions["judge_platform"].judge is None  # no sandbox here
    ada = register(one, "ada")
    started = one.post("/api/problems/add-torch/run", json={"code": GOOD}, headers=ada.auth)
    assert started.status_code == 202, started.json
    url = started.json["url"]
    views: list[dict[str, object]] = []

    def done() -> bool:
        views[:] = [two.get(url, headers=ada.auth).json]
        return views[0]["status"] == "done"

    wait_for(done, 120, "the run judged")
    report = views[0]["report"]
    assert isinstance(report, dict) and report["verdict"] == "AC"
    assert cluster.judgings() == {}  # a run is never a submission


def test_a_verdict_judged_by_a_worker_reaches_a_page_open_on_another_server(
    cluster: Cluster,
) -> None:
    cluster.start_worker("a")
    one, two = cluster.app(), cluster.app()
    ada = register(one, "ada")
    sid = submit(one, ada, SLOW)
    # The learner's page streams from the other server process: it reads the database.
    response = two.get(f"/api/submissions/{sid}/events", headers=ada.auth, buffered=False)
    events: list[str] = []
    progress: list[object] = []
    for chunk in response.response:  # type: ignore[attr-defined]
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        for line in text.splitlines():
            if line.startswith("event: "):
                events.append(line.removeprefix("event: "))
            elif line.startswith("data: ") and line != "data: {}":
                progress.append(json.loads(line.removeprefix("data: ")).get("progress"))
        if "done" in events or "timeout" in events:
            break
    response.close()
    assert events[-1] == "done", events
    assert "status" in events  # queued or running came first
    # Five cases of half a second each: the page saw "case n of 5" while it ran.
    assert any(isinstance(p, dict) and p["total"] == 5 for p in progress), progress


def test_an_admin_sees_each_worker_with_its_hardware_and_protections(cluster: Cluster) -> None:
    from sqlalchemy import update

    from web.store.models import User

    cluster.start_worker("a")
    client = cluster.app()
    root = register(client, "root")
    with cluster.engine.begin() as db:
        db.execute(update(User).where(User.username == "root").values(is_admin=True))
    (worker,) = client.get("/api/admin/workers", headers=root.auth).json["workers"]
    assert (worker["name"], worker["queues"], worker["alive"]) == ("a", ["cpu"], True)
    assert "namespaces" in worker["protections"] and "seccomp" in worker["protections"]
    assert worker["cpus"] >= 1 and worker["cpu"]
    assert client.get("/api/admin/workers", headers=register(client, "ada").auth).status_code == 403
    cluster.signal_worker("a", signal.SIGTERM)  # a warm shutdown says it stopped
    cluster.workers["a"].wait(60)
    (gone,) = client.get("/api/admin/workers", headers=root.auth).json["workers"]
    assert gone["alive"] is False and gone["stopped_at"] is not None


def test_a_worker_judges_each_submission_on_its_own_seed_and_a_rejudge_on_the_same(
    cluster: Cluster,
) -> None:
    """Issue 20: the Celery path judges on the seed stored with the row (a 63-bit BIGINT on
    PostgreSQL): the same code from two learners meets different hidden inputs, and the
    rejudge of one meets its own again. Read as an admin reads them: what the hidden cases
    printed is kept for admins."""
    from sqlalchemy import update

    from web.store.models import User

    cluster.start_worker("a")
    client = cluster.app()
    ada, bob, root = (register(client, name) for name in ("ada", "bob", "root"))
    with cluster.engine.begin() as db:
        db.execute(update(User).where(User.username == "root").values(is_admin=True))
    prints = "def add(a, b):\n    print('ARGS', a, b)\n    return a + b\n"
    first, second = submit(client, ada, prints), submit(client, bob, prints)
    rows = cluster.wait_judged([first, second])

    def hidden_output(sid: int) -> str:
        view = client.get(f"/api/submissions/{sid}", headers=root.auth).json
        assert view["verdict"] == "AC" and str(rows[sid].hidden_seed) not in json.dumps(view)
        return str(view["withheld_stdout"])

    assert None not in (rows[first].hidden_seed, rows[second].hidden_seed)
    before = {sid: hidden_output(sid) for sid in (first, second)}
    assert before[first].count("ARGS") == 3 and before[first] != before[second]
    rejudged = client.post("/api/admin/problems/add-two/rejudge", json={}, headers=root.auth)
    assert rejudged.json["requeued"] == 2
    again = cluster.wait_judged([first, second])
    assert {sid: row.attempts for sid, row in again.items()} == {first: 2, second: 2}
    assert {sid: hidden_output(sid) for sid in (first, second)} == before
