"""Faults in a real Celery deployment. Each ends with every submission judged, exactly one
verdict recorded for it, and standings that count it once."""

from __future__ import annotations

import json
import signal
import urllib.request

from cluster_harness import MARKS, PASSWORD, SLOW, Cluster, register, submit, wait_for
from problem_factory import GOOD
from sqlalchemy import insert

from web.store.db import utcnow
from web.store.models import Submission

pytestmark = MARKS


def _judged_once(cluster: Cluster, ids: list[int]) -> None:
    rows = cluster.wait_judged(ids)
    assert all(r.verdict == "AC" for r in rows.values()), {i: r.verdict for i, r in rows.items()}
    judgings = cluster.judgings()
    assert {sid: len(judgings.get(sid, [])) for sid in ids} == dict.fromkeys(ids, 1)
    for sid in ids:  # the one record is the attempt that holds the row
        assert judgings[sid][0][0] == rows[sid].attempts


def test_a_worker_killed_mid_job_leaves_its_job_to_another(cluster: Cluster) -> None:
    cluster.start_worker("doomed")
    cluster.start_worker("survivor")
    client = cluster.app()
    # Three learners: one account's submissions are judged one at a time (fair judging),
    # and both workers must be judging for one of them to die mid-job.
    learners = [register(client, name) for name in ("ada", "bob", "cat")]
    ids = [submit(client, who, SLOW + f"# {n}\n") for n, who in enumerate(learners)]
    held = cluster.wait_running("doomed")
    cluster.signal_worker("doomed", signal.SIGKILL)
    _judged_once(cluster, ids)
    rows = cluster.rows([held])
    assert rows[held].claimed_by == "survivor" and rows[held].attempts == 2
    assert cluster.standings()[0][1:] == (100, 1)


def test_a_worker_that_hangs_past_its_lease_cannot_overwrite_the_verdict(
    cluster: Cluster,
) -> None:
    cluster.start_worker("sleepy")
    client = cluster.app()
    ada = register(client, "ada")
    sid = submit(client, ada, SLOW)
    cluster.wait_running("sleepy")
    cluster.signal_worker("sleepy", signal.SIGSTOP)  # hangs: no lease renewal, no progress
    try:
        cluster.start_worker("awake")
        rows = cluster.wait_judged([sid])
        assert rows[sid].claimed_by == "awake"
    finally:
        cluster.signal_worker("sleepy", signal.SIGCONT)
    # The sleeper wakes mid-job, finishes it and tries to store: fenced out. It then goes
    # on judging new work as before.
    after = submit(client, ada, GOOD)
    _judged_once(cluster, [sid, after])
    lost = f"submission {sid}: attempt 1 lost its claim"
    wait_for(lambda: lost in cluster.worker_log("sleepy"), 60, "the woken job's fenced store")
    assert cluster.judgings()[sid] == [(2, "awake")]
    assert cluster.rows([sid])[sid].claimed_by == "awake"


def test_redis_restarted_with_jobs_queued_loses_none(cluster: Cluster) -> None:
    cluster.start_worker("a")
    client = cluster.app()
    ada = register(client, "ada")
    ids = [submit(client, ada, SLOW + f"# {n}\n") for n in range(4)]
    cluster.wait_running("a")
    cluster.redis.stop()
    body = {"problem": "add-two", "code": GOOD}
    # Rate limits kept in that Redis fail closed: a clear 503 to retry, nothing stored.
    refused = client.post("/api/submissions", json=body, headers=ada.auth)
    assert (refused.status_code, refused.json["error"]["code"]) == (503, "limits_unavailable")
    # With limits counted elsewhere, a submission is stored while the broker is down, and
    # its message is sent once the broker is back (the sweeper's resend).
    own_limits = cluster.app(ratelimit_url="")
    during = own_limits.post("/api/submissions", json=body, headers=ada.auth)
    assert during.status_code == 202, during.json
    cluster.redis.start()
    _judged_once(cluster, [*ids, during.json["id"]])


def test_the_web_app_restarted_with_jobs_in_flight_loses_none(cluster: Cluster) -> None:
    cluster.start_worker("a", concurrency=2)
    first = cluster.start_server()
    token = _token(first, "ada")
    ids = [_submit_http(first, token, SLOW + f"# {n}\n") for n in range(4)]
    cluster.servers[0].kill()  # kill -9, with jobs queued and running
    cluster.servers[0].wait(30)
    # As if another server had died between storing a row and sending its message.
    with cluster.engine.begin() as db:
        orphan = db.execute(
            insert(Submission)
            .values(
                user_id=1,
                problem_slug="add-two",
                code=GOOD,
                status="queued",
                queued_at=utcnow(),
                created_at=utcnow(),
                attempts=0,
                tries=0,
                points=0,
                passed=0,
                total=0,
            )
            .returning(Submission.id)
        ).scalar_one()
    second = cluster.start_server()
    _judged_once(cluster, [*ids, orphan])
    board = json.loads(urllib.request.urlopen(second + "/api/leaderboard", timeout=10).read())
    assert [(e["user"], e["points"]) for e in board["entries"]] == [("ada", 100)]


def _token(base: str, username: str) -> str:
    body = {"username": username, "password": PASSWORD}
    _post(base + "/api/register", body)
    return str(_post(base + "/api/token", body)["token"])


def _submit_http(base: str, token: str, code: str) -> int:
    body = {"problem": "add-two", "code": code}
    return int(_post(base + "/api/submissions", body, token)["id"])


def _post(url: str, body: dict[str, str], token: str | None = None) -> dict[str, object]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        result: dict[str, object] = json.loads(response.read())
        return result
