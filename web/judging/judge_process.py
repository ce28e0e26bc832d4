"""The sandboxed judge in a process of its own, for a server that judges on its embedded
queue: the web process serves pages and never imports torch.

Judging a torch-tier problem loads its cases.py in the trusted process (the cases and the
learner's own input are built there, the reference's answers are kept there, runner.refcache),
and with it torch and mini_llm: a server that held the runner itself grew from about 80 MB
to over a gigabyte after a few torch runs. Here the runner (runner.api.Runner: its warm
sandboxed workers, reference cache and seed stock) lives in one child process, started as
`python -m web.judging.judge_process` (never a fork of a threaded server), and the
server's judging threads call it over one socket: each call is a numbered request; the
child answers each from a thread of its own, with the judging's progress as it moves and
then the result (a report as a dict, decoded once here). Both ends are trusted code; the
learner's code runs in the runner's sandbox below the child, as before.

The child exits when the server does, even after a kill -9 (it watches the server's pid,
as the unsafe-local pool's processes do); bubblewrap's --die-with-parent then ends the
sandboxed workers below it. If the child dies, every call in flight raises `JudgeGone`
(the submission is retried as an IE, a run reports that the judge failed) and the next
call starts a new child.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from judge.errors import SourceError
from judge.grading.report import Report
from judge.problem.device import DevicePolicy
from judge.problem.spec import ProblemSpec
from judge.run.phase import Phase

log = logging.getLogger(__name__)
# The folder holding the `web` package, for the child's `python -m`.
ROOT = Path(__file__).resolve().parents[2]

# Requests the child answers at once: every judging thread and run slot of a server, with
# room to spare (a call beyond it waits in the child for a thread, not in the pipe).
CHILD_THREADS = 32


class JudgeGone(RuntimeError):
    """The judge's process ended while a call was in flight (or could not start)."""


@dataclass
class _Call:
    """One request in flight: where its answer lands, and who hears its progress."""

    progress: Callable[[Phase], None] | None
    done: threading.Event = field(default_factory=threading.Event)
    outcome: tuple[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class RunnerSettings:
    """What the child builds its runner from (passed to it once, at start)."""

    workers: int
    problems_dir: Path
    ready_seeds: int
    device: DevicePolicy
    speed_spread_limit: float | None = None


class JudgeProcess:
    """The Judge protocol (web.judging.core_seam) over a runner in a child process."""

    def __init__(self, settings: RunnerSettings) -> None:
        self._settings = settings
        self._lock = threading.Lock()  # starting the child; sending on its pipe
        self._calls: dict[int, _Call] = {}
        self._next_id = 0
        self._conn: Connection | None = None
        self._process: Any = None
        self._closed = False
        self._start()  # a runner that cannot start fails the server's start, not a job

    # The Judge protocol.

    def run(
        self,
        problem: ProblemSpec,
        code: str,
        seed: int,
        progress: Callable[[Phase], None] | None = None,
    ) -> Report:
        data = self._call("run", (problem, code, seed), progress)
        return Report.from_dict(data)

    def try_input(self, problem: ProblemSpec, args: object, code: str | None) -> dict[str, Any]:
        result: dict[str, Any] = self._call("try_input", (problem, args, code))
        return result

    def ready_seed(self, problem: ProblemSpec) -> int | None:
        try:
            seed: int | None = self._call("ready_seed", (problem,))
        except JudgeGone:
            return None  # the submission's judging draws a fresh seed and finds out itself
        return seed

    def seeds_ready(self, problem: ProblemSpec) -> int:
        """Hidden seeds the runner's stock holds ready for `problem` (benchmarks wait on it)."""
        count: int = self._call("seeds_ready", (problem,))
        return count

    def close(self) -> None:
        with self._lock:
            self._closed = True
            conn, process = self._conn, self._process
        if conn is not None:
            try:
                with self._lock:
                    conn.send((0, "close", ()))
            except OSError:
                pass
        if process is not None:
            try:
                process.wait(60)  # it lets the jobs it runs finish, then exits
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if conn is not None:
            conn.close()

    @property
    def pid(self) -> int | None:
        """The child's pid (tests and the doctor look at it), or None before it started."""
        return None if self._process is None else int(self._process.pid)

    # The pipe.

    def _call(
        self, op: str, args: tuple[Any, ...], progress: Callable[[Phase], None] | None = None
    ) -> Any:
        call = _Call(progress)
        with self._lock:
            if self._closed:
                raise JudgeGone("the judge is closed")
            if self._conn is None:
                self._start_locked()
            assert self._conn is not None
            self._next_id += 1
            call_id = self._next_id
            self._calls[call_id] = call
            try:
                self._conn.send((call_id, op, args))
            except (OSError, ValueError) as exc:
                self._calls.pop(call_id, None)
                raise JudgeGone(f"the judge's process is gone: {exc}") from None
        call.done.wait()
        assert call.outcome is not None
        kind, value = call.outcome
        if kind == "result":
            return value
        if kind == "source":
            raise SourceError(value)
        if kind == "gone":
            raise JudgeGone(value)
        raise RuntimeError(f"the judge failed: {value}")

    def _start(self) -> None:
        with self._lock:
            self._start_locked()

    def _start_locked(self) -> None:
        # A plain child (`python -m` this module), not multiprocessing's spawn: spawn runs
        # the server's __main__ again, and a script that builds the app unguarded would
        # start a server in the child.
        ours, theirs = socket.socketpair()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        with theirs:
            process = subprocess.Popen(
                [sys.executable, "-m", __name__, str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=env,
                cwd=ROOT,
            )
        conn = Connection(ours.detach())
        try:
            conn.send(self._settings)
            ready = conn.recv()  # the runner built, or why not
        except (EOFError, OSError):
            conn.close()
            process.wait()
            raise JudgeGone(f"the judge's process exited at start ({process.returncode})") from None
        if ready != ("ready", None):
            conn.close()
            process.wait(10)
            raise RuntimeError(f"the judge's process did not start: {ready[1]}")
        self._conn, self._process = conn, process
        threading.Thread(
            target=self._read, args=(conn, process), name="judge-process-reader", daemon=True
        ).start()

    def _read(self, conn: Connection, process: Any) -> None:
        """Deliver the child's answers and progress until its pipe closes."""
        while True:
            try:
                call_id, kind, value = conn.recv()
            except (EOFError, OSError):
                break
            call = self._calls.get(call_id)
            if call is None:
                continue
            if kind == "progress":
                if call.progress is not None:
                    try:
                        call.progress(value)
                    except Exception:  # a progress writer's failure is not the judging's
                        log.exception("writing progress failed")
                continue
            self._calls.pop(call_id, None)
            call.outcome = (kind, value)
            call.done.set()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        with self._lock:
            if self._conn is conn:
                self._conn, self._process = None, None
            lost = list(self._calls.values())
            self._calls.clear()
        if lost and not self._closed:
            log.error(
                "the judge's process exited (%s) with %d calls in flight",
                process.returncode,
                len(lost),
            )
        for call in lost:
            call.outcome = ("gone", f"the judge's process exited ({process.returncode})")
            call.done.set()


def serve(conn: Connection, server_pid: int) -> None:
    """The child: build the runner from the settings sent first, then answer requests
    until told to close or the server is gone."""
    from runner.api import Runner  # here, not in the server: it is what loads torch
    from web.judging.server_watch import watch_server

    watch_server(server_pid)
    settings: RunnerSettings = conn.recv()
    try:
        runner = Runner(
            pool_size=settings.workers,
            problems_root=settings.problems_dir,
            ready_seeds=settings.ready_seeds,
            device=settings.device,
            speed_spread_limit=settings.speed_spread_limit,
        )
    except Exception as exc:
        conn.send(("failed", f"{type(exc).__name__}: {exc}"))
        return
    send_lock = threading.Lock()

    def send(message: tuple[int, str, Any]) -> None:
        with send_lock:
            conn.send(message)

    def answer(call_id: int, op: str, args: tuple[Any, ...]) -> None:
        try:
            if op == "run":
                problem, code, seed = args
                report = runner.judge(
                    problem, code, seed=seed, progress=lambda p: send((call_id, "progress", p))
                )
                result: Any = dict(report.to_dict(admin=True))
            elif op == "try_input":
                result = runner.try_input(*args).to_dict()
            elif op == "ready_seed":
                result = runner.ready_seed(*args)
            elif op == "seeds_ready":
                result = runner.stock.ready(*args)
            else:
                raise ValueError(f"unknown request {op!r}")
        except SourceError as exc:
            send((call_id, "source", str(exc)))
        except Exception as exc:
            log.exception("the judge's %s request failed", op)
            send((call_id, "failed", f"{type(exc).__name__}: {exc}"))
        else:
            send((call_id, "result", result))

    conn.send(("ready", None))
    with ThreadPoolExecutor(CHILD_THREADS, thread_name_prefix="judge") as threads:
        while True:
            try:
                call_id, op, args = conn.recv()
            except (EOFError, OSError):
                break
            if op == "close":
                break
            threads.submit(answer, call_id, op, args)
    runner.close()


if __name__ == "__main__":
    serve(Connection(int(sys.argv[1])), os.getppid())
