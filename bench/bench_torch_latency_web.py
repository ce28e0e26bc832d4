"""Submit to verdict on every torch-tier problem over the web path, split into its phases.

The real platform runs in this process as a server does by default: the app from
`web.create_app`, waitress on a loopback port, the embedded queue, the sandboxed judge with
its warm workers and the seed stock (one ready seed per problem), except that the runner is
kept in this process (`runner_in_server`), where the timing hooks reach it; a server keeps it
in a child process (web/judging/judge_process.py), which adds a pipe's round trip per call.
A learner registers, takes an API token and submits the problem's reference.py over HTTP
`--n` times per problem, and polls the submission every 50 ms until it sees the verdict.

Each submission's wait is split at timestamps taken in this process (one clock): the HTTP
submit, the worker's claim, the judge's progress (judge/run/phase.py, as the lease receives
it), the submission's job being launched and acknowledging its load, and the poll that
first sees the verdict. The timing hooks wrap the judging functions without changing what
they do:

- queue: Submit until a worker has claimed the row (the POST included);
- prep: the claim until the reference's calibration or the job's launch (with a ready seed
  only the seed's row update and the runner's idle gate; with a fresh one, building the
  seed's cases and the reference's answers); a wait at the gate over 0.5 s (a speed
  problem's judging waits there for a step of the seed stock to end) is said under the row;
- calib: the CPU-rule reference job (a CPU-rule problem with no calibration yet);
- fork: launching the job: the warm worker's forks into the job's namespaces, the handshake,
  the cgroup (the launcher's `launch` call);
- start: the launched job until it acknowledged the load (its limits and filter applied,
  the submission imported, for a hosted problem the driver's side ready);
- setup+1st: the first case, including the model's set-up;
- cases: the other correctness cases;
- timed: the warm-up and the timed repetitions, each after the reference timed in the
  parent (judge/run/pacer.py); speed problems only;
- report: the report written and stored until a poll reads the verdict;
- 1st seen: Submit until a poll first reads the judge's progress (or the verdict, when the
  judging ended before the lease's next progress write: it writes about once a second).

Each problem is submitted once first on a fresh seed (the first submission a worker meets
on a problem: its `fresh` columns), which starts the stock for it; before each measured
submission the bench waits until the stock is idle with a seed ready for every problem,
as on an idle server. Medians are printed.

    python bench/bench_torch_latency_web.py [--n 2] [--problems attention-decode]
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from devtools.threaded_server import serve_in_thread  # noqa: E402
from judge.kinds.registry import kind_of  # noqa: E402
from judge.problem.problemset import ProblemSet  # noqa: E402
from judge.problem.spec import ProblemSpec  # noqa: E402
from judge.run.phase import Phase, Stage  # noqa: E402
from judge.run.session import Session  # noqa: E402
from runner.api import Runner  # noqa: E402
from runner.launchers.sandbox import SandboxLauncher  # noqa: E402
from web import create_app  # noqa: E402
from web.config import RateLimit, WebConfig, sqlite_url  # noqa: E402
from web.judging import jobs  # noqa: E402
from web.judging.lease import Lease  # noqa: E402
from web.state import EXTENSION  # noqa: E402

POLL_S = 0.05
PASSWORD = "correct-horse"
COLUMNS = (
    "queue",
    "prep",
    "calib",
    "fork",
    "start",
    "setup+1st",
    "cases",
    "timed",
    "report",
    "total",
    "1st seen",
)
CASE_STAGES = (Stage.CASE, Stage.WARM_UP, Stage.TIMED)
AFTER_CASES = (Stage.WARM_UP, Stage.TIMED, Stage.REPORTING)


class Timeline:
    """Timestamps (time.perf_counter) per submission id, recorded by the hooks."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._events: dict[int, list[tuple[float, str, Phase | None]]] = {}
        self._local = threading.local()

    def mark(self, submission_id: int | None, what: str, phase: Phase | None = None) -> None:
        now = time.perf_counter()
        if submission_id is None:
            return
        with self._lock:
            self._events.setdefault(submission_id, []).append((now, what, phase))

    def events(self, submission_id: int) -> list[tuple[float, str, Phase | None]]:
        with self._lock:
            return list(self._events.get(submission_id, []))

    @property
    def current(self) -> int | None:
        """The submission the calling thread is judging, if any."""
        return getattr(self._local, "submission", None)

    @current.setter
    def current(self, submission_id: int | None) -> None:
        self._local.submission = submission_id


Undo = list[Callable[[], None]]


def _patch(owner: Any, name: str, make: Callable[[Any], Any], undo: Undo) -> None:
    original = getattr(owner, name)
    setattr(owner, name, make(original))
    undo.append(lambda: setattr(owner, name, original))


@contextmanager
def instrumented(timeline: Timeline) -> Iterator[None]:
    """Timing hooks around the judging path; each calls the original and returns its value."""
    undo: Undo = []

    def claim(original: Any) -> Any:
        def wrapped(ctx: Any, submission_id: int) -> Any:
            got = original(ctx, submission_id)
            if got is not None:
                timeline.mark(submission_id, "claimed")
            return got

        return wrapped

    def judge(original: Any) -> Any:
        def wrapped(ctx: Any, claim: Any, progress: Any) -> Any:
            timeline.current = claim.submission_id
            try:
                return original(ctx, claim, progress)
            finally:
                timeline.current = None

        return wrapped

    def store(original: Any) -> Any:
        def wrapped(ctx: Any, claim: Any, outcome: Any) -> Any:
            try:
                return original(ctx, claim, outcome)
            finally:
                timeline.mark(claim.submission_id, "stored")

        return wrapped

    def progress(original: Any) -> Any:
        def wrapped(self: Lease, phase: Phase) -> None:
            timeline.mark(timeline.current, "progress", phase)
            original(self, phase)

        return wrapped

    def launch(original: Any) -> Any:
        def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
            timeline.mark(timeline.current, "launch")
            try:
                return original(self, *args, **kwargs)
            finally:
                timeline.mark(timeline.current, "launched")

        return wrapped

    def exchange(original: Any) -> Any:
        def wrapped(self: Session, *args: Any, **kwargs: Any) -> Any:
            got = original(self, *args, **kwargs)
            if not getattr(self, "_bench_loaded", False):  # a session's first exchange: the load
                self._bench_loaded = True  # type: ignore[attr-defined]
                timeline.mark(timeline.current, "loaded")
            return got

        return wrapped

    _patch(jobs, "_claim", claim, undo)
    _patch(jobs, "_judge", judge, undo)
    _patch(jobs, "_store", store, undo)
    _patch(Lease, "progress", progress, undo)

    def gate_passed(original: Any) -> Any:
        def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
            timeline.mark(timeline.current, "gate")  # inside the runner's IdleGate.busy()
            return original(self, *args, **kwargs)

        return wrapped

    _patch(Runner, "_judge", gate_passed, undo)
    _patch(SandboxLauncher, "launch", launch, undo)
    _patch(Session, "_exchange", exchange, undo)
    try:
        yield
    finally:
        for step in reversed(undo):
            step()


@dataclass
class Submitted:
    """One submission seen from the learner's side (perf_counter seconds)."""

    submission_id: int
    submitted: float
    progress_seen: float | None = None
    verdict_seen: float = 0.0
    verdict: str = ""


def split(timeline: Timeline, sub: Submitted) -> dict[str, float]:
    """The submission's wait, phase by phase (seconds); the phases add up to `total`."""
    events = timeline.events(sub.submission_id)

    def first(test: Callable[[str, Phase | None], bool], after: float = 0.0) -> float | None:
        return next((t for t, what, p in events if t >= after and test(what, p)), None)

    claimed = first(lambda w, p: w == "claimed") or sub.submitted
    calib = first(lambda w, p: p is not None and p.stage is Stage.CALIBRATING)
    case0 = first(lambda w, p: p is not None and p.stage in CASE_STAGES and p.done == 0)
    if case0 is None:
        raise RuntimeError(f"submission {sub.submission_id} never ran a case: {events}")
    launches = [t for t, what, _ in events if what == "launch" and t <= case0]
    launch = launches[-1] if launches else case0
    launched = first(lambda w, p: w == "launched", launch) or launch
    loaded = first(lambda w, p: w == "loaded", case0) or case0
    case1 = first(lambda w, p: p is not None and p.done >= 1, case0) or loaded
    cases_end = first(lambda w, p: p is not None and p.stage in AFTER_CASES, case0) or case1
    reporting = first(lambda w, p: p is not None and p.stage is Stage.REPORTING, case0)
    reporting = reporting or cases_end
    calib_start = calib if calib is not None and calib < launch else launch
    gate = first(lambda w, p: w == "gate") or claimed
    seen = sub.verdict_seen
    return {
        "queue": claimed - sub.submitted,
        "prep": calib_start - claimed,
        "calib": launch - calib_start,
        "fork": launched - launch,
        "start": loaded - launched,
        "setup+1st": case1 - loaded,
        "cases": cases_end - case1,
        "timed": reporting - cases_end,
        "report": seen - reporting,
        "total": seen - sub.submitted,
        "1st seen": (sub.progress_seen or seen) - sub.submitted,
        # Part of `prep`: the claim until the judging passed the runner's idle gate (a speed
        # problem's judging waits there for a step of the seed stock under way to end).
        "gate": gate - claimed,
    }


class Learner:
    """One account talking to the server over HTTP with an API token."""

    def __init__(self, port: int, username: str) -> None:
        self._connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self._headers = {"Content-Type": "application/json"}
        account = {"username": username, "password": PASSWORD}
        status, body = self.request("POST", "/api/register", account)
        assert status == 201, (status, body)
        status, body = self.request("POST", "/api/token", account)
        assert status == 201, (status, body)
        self._headers["Authorization"] = f"Bearer {body['token']}"

    def request(self, method: str, url: str, body: object = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body)
        self._connection.request(method, url, body=data, headers=self._headers)
        response = self._connection.getresponse()
        return response.status, json.loads(response.read() or b"null")

    def submit(self, slug: str, code: str, timeout: float) -> Submitted:
        """POST the code, then GET the submission every POLL_S until its verdict shows."""
        submitted = time.perf_counter()
        status, body = self.request("POST", "/api/submissions", {"problem": slug, "code": code})
        assert status == 202, (status, body)
        sub = Submitted(int(body["id"]), submitted)
        deadline = submitted + timeout
        while time.perf_counter() < deadline:
            status, view = self.request("GET", f"/api/submissions/{sub.submission_id}")
            now = time.perf_counter()
            assert status == 200, (status, view)
            if view.get("progress") is not None and sub.progress_seen is None:
                sub.progress_seen = now
            if view["status"] == "done":
                sub.verdict_seen, sub.verdict = now, str(view["verdict"])
                return sub
            time.sleep(POLL_S)
        raise SystemExit(f"submission {sub.submission_id} had no verdict after {timeout:.0f} s")


def wait_stock_idle(app: Any, problems: list[ProblemSpec], timeout: float) -> float:
    """Wait until the seed stock has a seed ready for each of `problems` (so it is idle);
    returns the seconds waited."""
    judge = app.extensions[EXTENSION].judge
    start = time.monotonic()
    while any(judge.seeds_ready(p) < 1 for p in problems):
        if time.monotonic() - start > timeout:
            short = [p.slug for p in problems if judge.seeds_ready(p) < 1]
            raise SystemExit(f"the seed stock had no seed ready after {timeout:.0f} s: {short}")
        time.sleep(0.2)
    return time.monotonic() - start


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def row(slug: str, measured: list[dict[str, float]], fresh: dict[str, float]) -> str:
    cells = [f"{median([m[c] for m in measured]):{max(len(c), 5)}.2f}" for c in COLUMNS]
    return f"{slug:18} " + " ".join(cells) + f" | {fresh['total']:11.2f} {fresh['1st seen']:8.2f}"


def said(phases: dict[str, float]) -> str:
    return ", ".join(f"{name} {phases[name]:.2f}" for name in (*COLUMNS, "gate"))


def header() -> str:
    names = " ".join(f"{c:>{max(len(c), 5)}}" for c in COLUMNS)
    return f"{'problem':18} {names} | {'fresh total':>11} {'1st seen':>8}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2, help="measured submissions per problem")
    parser.add_argument("--problems", default="", help="comma-separated slugs (default: torch)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per wait")
    parser.add_argument("--each", action="store_true", help="also print every submission")
    args = parser.parse_args()
    problems = ProblemSet(None)
    wanted = [s for s in args.problems.split(",") if s]
    chosen = [problems.get(s) for s in wanted] or [
        p for p in problems.all() if p.tier == "torch" and kind_of(p).runs_code
    ]
    plenty = RateLimit(100_000, 3600.0)
    with tempfile.TemporaryDirectory(prefix="bench-torch-web-") as folder:
        # A server's defaults (two sandboxed workers, one ready seed per problem), with the
        # submission limits lifted: one learner submits every problem several times.
        config = WebConfig(
            database_url=sqlite_url(Path(folder) / "judge.sqlite3"),
            problems_dir=REPO / "problems",
            secret_key="bench",
            judge_seed=1,
            instance_dir=Path(folder),
            submit_per_user=plenty,
            submit_per_ip=plenty,
            # The runner in this process, where the timing hooks reach its inside (a server
            # keeps it in a child process of its own).
            runner_in_server=True,
        )
        timeline = Timeline()
        app = create_app(config)
        try:
            with instrumented(timeline), serve_in_thread(app, name="bench-torch-web") as server:
                learner = Learner(server.effective_port, "bench")
                print(header())
                print("-" * len(header()), flush=True)
                served: list[ProblemSpec] = []
                for problem in chosen:
                    code = problem.reference_source()
                    wait_stock_idle(app, served, args.timeout)
                    cold = "torch" not in sys.modules  # the server's first torch judging
                    first = learner.submit(problem.slug, code, args.timeout)
                    verdicts = {first.verdict}
                    if args.each:
                        print(f"  fresh: {said(split(timeline, first))}", flush=True)
                    served.append(problem)
                    measured = []
                    for k in range(args.n):
                        wait_stock_idle(app, served, args.timeout)
                        again = f"{code}\n# bench submission {k + 1}\n"  # not a repeat
                        sub = learner.submit(problem.slug, again, args.timeout)
                        verdicts.add(sub.verdict)
                        measured.append(split(timeline, sub))
                        if args.each:
                            print(f"  ready #{k + 1}: {said(measured[-1])}", flush=True)
                    print(row(problem.slug, measured, split(timeline, first)), flush=True)
                    waited = median([m["gate"] for m in measured])
                    if waited > 0.5:
                        print(
                            f"  (prep: {waited:.2f} s of it waiting at the runner's idle gate"
                            " for a step of the seed stock to end)"
                        )
                    if cold:
                        print("  (fresh: the server process imported torch for it)")
                    if verdicts != {"AC"}:
                        print(f"  the reference was not AC every time: {sorted(verdicts)}")
        finally:
            app.extensions[EXTENSION].close()
    print(
        "seconds; medians of the ready-seed submissions; `fresh` is the first submission to "
        "the problem on this server (no ready seed yet); `1st seen` is Submit to the first "
        "progress (or the verdict) a poll reads"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
