"""In the sandbox, a speed problem's submission is stopped while its reference is timed."""

from __future__ import annotations

from pathlib import Path

from conftest import Harness
from problem_factory import PACED_WATCHER, write_paced_problem

from judge.problem.spec import load_problem
from judge.verdict import Verdict


def test_a_sandboxed_submission_cannot_run_while_the_reference_is_timed(
    harness: Harness, tmp_path: Path
) -> None:
    problem = load_problem(write_paced_problem(tmp_path / "problems"))
    report = harness.judge(PACED_WATCHER, problem)
    assert report.verdict is Verdict.AC, report.to_dict()
    said = [float(line.split()[1]) for line in report.stdout.splitlines()]
    assert len(said) == 6, report.stdout  # check, warm-up, then the four timed cases
    assert min(said[2:]) >= 0.25, said
    assert report.speed is not None and report.speed.relative is not None


# Issue 35, section 3: a chain of short-lived processes, each forking the next and exiting
# within milliseconds, each noting when it ran. Stopped process by process (a SIGSTOP to each
# pid found in /proc), a link was often gone before its pid was signalled and its child ran
# on through the reference's timed run (3-4 of 10 windows in the red-team pass); frozen as
# one cgroup, none runs. Each case says the longest stretch in which no link ran.
FORK_CHAIN = """\
import os
import signal
import time

signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps each link that exits
LOG = "/tmp/chain"


def _link():
    while True:
        if os.fork():
            os._exit(0)
        with open(LOG, "a") as f:
            f.write(f"{time.monotonic()}\\n")
        time.sleep(0.002)


open(LOG, "a").close()
if os.fork() == 0:
    _link()

_read = [0, time.monotonic()]  # lines read so far, and when


def total(a, n):
    with open(LOG) as f:
        lines = f.read().split("\\n")
    now = time.monotonic()
    # From the last read, through every link's note since, to now: the longest stretch.
    times = [_read[1], *(float(t) for t in lines[_read[0] : -1]), now]
    _read[:] = [len(lines) - 1, now]
    gaps = [b - a for a, b in zip(times, times[1:])]
    print(f"STOPPED {max(gaps):.3f}", flush=True)
    return a * n
"""


def test_a_chain_of_processes_forking_and_exiting_is_stopped_with_the_job(
    harness: Harness, tmp_path: Path
) -> None:
    problem = load_problem(write_paced_problem(tmp_path / "problems"))
    report = harness.judge(FORK_CHAIN, problem)
    assert report.verdict is Verdict.AC, report.to_dict()
    said = [float(line.split()[1]) for line in report.stdout.splitlines()]
    assert len(said) == 6, report.stdout
    # Each timed case comes right after the reference's 0.3 s run, the job paused meanwhile.
    assert min(said[2:]) >= 0.25, said
