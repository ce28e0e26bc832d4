"""Every submission gets a report, never IE for its own fault (issue 10, sections 3, 4, 8).

End to end with the local launcher (a real child process). Each test pins one finding of
the red-team pass: a checker's exception on submitted data, garbage after the last
answer, source too deep to compile, a frame or a stream of frames far larger than the
problem's answers, and hidden inputs printed back to their owner.
"""

from __future__ import annotations

import json
import resource
import tracemalloc

from problem_factory import MakeProblem

from judge.grading.report import Report
from judge.problem.spec import load_problem
from judge.run.judge_source import judge_source
from judge.verdict import Verdict

FLOAT_TOML = """\
slug = "{slug}"
order = 1
chapter = "test"
tier = "browser"
points = 10
tags = ["test"]

[title]
zh = "加法"
en = "Addition"

[limits]
time_per_case_s = {per_case}
total_time_s = {total}
memory_mb = 128

[submission]
names = ["add"]

[checker]
kind = "float"
rel_tol = 1e-9
"""
SECRET_SEED = 987654321
# The factory problem has 2 public and 5 generated cases: on a secret seed those 5 are hidden.
CASES = 7
# The submission's way to its own result pipe: the one write-only pipe past stderr.
FIND_RESULT_FD = """
import fcntl, os, stat
def result_fd():
    for fd in range(3, 64):
        try:
            mode = os.fstat(fd).st_mode
            if stat.S_ISFIFO(mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                return fd
        except OSError:
            pass
    raise RuntimeError("no result pipe")
"""


def judge(make_problem: MakeProblem, source: str, *, toml: str | None = None, **kw) -> Report:
    folder = make_problem(toml=toml.format(slug="add", per_case=2.0, total=10.0) if toml else None)
    return judge_source(load_problem(folder), source, **kw)


def _learner_text(report: Report) -> str:
    return json.dumps(report.to_dict(), ensure_ascii=False)


def test_an_int_too_large_for_a_float_is_wa_with_a_message(make_problem: MakeProblem) -> None:
    """10**400 where a float is expected raised OverflowError out of the float checker."""
    report = judge(make_problem, "def add(a, b):\n    return 10**400\n", toml=FLOAT_TOML)
    assert report.verdict is Verdict.WA
    assert "too large for a float" in report.cases[0].message


def test_garbage_on_the_result_channel_after_the_last_answer_is_re(
    make_problem: MakeProblem,
) -> None:
    """A process that outlives the answers writes non-frames: RE, where it used to be IE."""
    source = (
        FIND_RESULT_FD
        + f"""
import os, time
calls = 0
def add(a, b):
    global calls
    calls += 1
    if calls == {CASES} and os.fork() == 0:
        time.sleep(0.1)
        os.write(result_fd(), b"this is not a judge frame" * 10)
        os._exit(0)
    return a + b
"""
    )
    report = judge(make_problem, source)
    assert report.verdict is Verdict.RE, report.to_dict(admin=True)
    assert report.compile_error is not None
    assert "after its last answer" in str(report.compile_error["message"])
    assert all(c.verdict is Verdict.AC for c in report.cases)


def test_source_nested_too_deeply_to_compile_is_ce_without_judge_internals(
    make_problem: MakeProblem,
) -> None:
    for source in (
        "x = " + "-" * 30000 + "1\ndef add(a, b):\n    return a + b\n",
        "f = " + "lambda: " * 7000 + "0\ndef add(a, b):\n    return a + b\n",
        "x = " + "(" * 5000 + ")" * 5000 + "\n",
    ):
        report = judge(make_problem, source)
        assert report.verdict is Verdict.CE, report.to_dict(admin=True)
        assert report.compile_error is not None
        text = _learner_text(report)
        assert "/judge/" not in text and "Traceback" not in text
        assert "nested too deeply" in text or "too many nested" in text


def test_one_huge_frame_is_ole_and_the_parent_never_buffers_it(make_problem: MakeProblem) -> None:
    """A 256 MiB tensor frame (written raw) for a problem whose answers are ints."""
    source = (
        FIND_RESULT_FD
        + """
import json, os, struct
def add(a, b):
    header = json.dumps({"type": "result", "name": "small", "observation": {"__tensor__": 0},
                         "tensors": [{"dtype": "float32", "shape": [64, 1024, 1024]}]}).encode()
    os.write(result_fd(), b"JDG1" + struct.pack(">I", len(header)) + header)
    chunk = bytes(1 << 20)
    for _ in range(256):
        os.write(result_fd(), chunk)
"""
    )
    tracemalloc.start()
    try:
        report = judge(make_problem, source)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.verdict is Verdict.OLE, report.to_dict(admin=True)
    assert peak < 32 << 20, f"the parent allocated {peak >> 20} MiB"


def test_a_16_mb_json_header_is_ole_without_parsing_it(make_problem: MakeProblem) -> None:
    source = (
        FIND_RESULT_FD
        + """
import json, os, struct
def add(a, b):
    header = json.dumps({"type": "result", "name": "small",
                         "observation": [[i] * 8 for i in range(400000)]}).encode()[: 16 << 20]
    os.write(result_fd(), b"JDG1" + struct.pack(">I", len(header)) + header)
"""
    )
    # Building the 16 MB header takes the child about a second of CPU: on a loaded machine
    # that can pass a 2 s wall limit, and the run was TLE before it could be OLE.
    problem = load_problem(make_problem(per_case=30.0, total=60.0))
    before = resource.getrusage(resource.RUSAGE_SELF)
    report = judge_source(problem, source)
    after = resource.getrusage(resource.RUSAGE_SELF)
    assert report.verdict is Verdict.OLE, report.to_dict(admin=True)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert cpu < 2.0, f"the parent spent {cpu:.1f} s of CPU on one header"


def test_a_stream_of_small_frames_past_the_runs_budget_is_ole(make_problem: MakeProblem) -> None:
    """Frames that each fit, sent ahead without being asked for: the run's total is capped."""
    source = (
        FIND_RESULT_FD
        + """
import json, os, struct
def add(a, b):
    header = json.dumps({"type": "result", "name": "other", "observation": "x" * 500000}).encode()
    frame = b"JDG1" + struct.pack(">I", len(header)) + header
    for _ in range(400):
        os.write(result_fd(), frame)
"""
    )
    tracemalloc.start()
    try:
        report = judge(make_problem, source)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.verdict in (Verdict.OLE, Verdict.RE), report.to_dict(admin=True)
    assert peak < 48 << 20, f"the parent allocated {peak >> 20} MiB"


def test_output_printed_during_hidden_cases_is_withheld_from_the_learner(
    make_problem: MakeProblem,
) -> None:
    """print(args) in hidden cases would hand their owner the secret-seed inputs."""
    source = """
import sys, threading
seen = []
def add(a, b):
    print("ARGS", a, b)
    seen.append((a, b))
    if len(seen) == 3:  # a thread that prints what it saw later, past every case
        threading.Thread(target=lambda: print("LATER", seen), daemon=True).start()
    return a + b
"""
    report = judge(make_problem, source, seed=SECRET_SEED)
    assert report.verdict is Verdict.AC
    learner = report.to_dict()
    assert learner["output_withheld"] is True
    assert learner["stdout"].count("ARGS") == 2  # the two public cases
    assert "LATER" not in learner["stdout"] and "withheld_stdout" not in learner
    admin = report.to_dict(admin=True)
    assert admin["withheld_stdout"].count("ARGS") == 5


def test_output_of_a_public_run_is_shown_in_full(make_problem: MakeProblem) -> None:
    report = judge(make_problem, "def add(a, b):\n    print('ARGS', a, b)\n    return a + b\n")
    assert report.to_dict()["stdout"].count("ARGS") == CASES
    assert "output_withheld" not in report.to_dict()


def test_breaking_the_answer_loop_is_re_without_the_judges_traceback(
    make_problem: MakeProblem,
) -> None:
    """A submission that breaks the child's loop made it print the judge's traceback."""
    source = """
import sys
def boom(*args):
    raise RuntimeError("broken on purpose")
sys.modules["judge.run.child"]._run_case = boom
def add(a, b):
    return a + b
"""
    report = judge(make_problem, source)
    assert report.verdict is Verdict.RE
    text = _learner_text(report)
    assert "Traceback" not in report.stderr and "judge/run/child.py" not in text
    assert "answer loop stopped" in report.stderr


def test_a_deep_and_wide_answer_is_ole_without_costing_the_parent_seconds(
    make_problem: MakeProblem,
) -> None:
    """Half a million nested lists in under 1 MiB of JSON cost the trusted parent about 10 s
    of CPU and 143 MiB per submission (red-team finding): the walk is capped by values."""
    source = """
import judge.run.child as c
def chain(d):
    x = 0
    for _ in range(d):
        x = [x]
    return x
big = [chain(62)] * 8300
c.encode = lambda value, tensors: big
def add(a, b):
    return a + b
"""
    before = resource.getrusage(resource.RUSAGE_SELF)
    tracemalloc.start()
    try:
        report = judge(make_problem, source)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    after = resource.getrusage(resource.RUSAGE_SELF)
    assert report.verdict is Verdict.OLE, report.to_dict(admin=True)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert cpu < 2.0, f"the parent spent {cpu:.1f} s of CPU"
    assert peak < 32 << 20, f"the parent allocated {peak >> 20} MiB"


def test_a_lone_surrogate_in_an_exception_message_is_re_and_every_report_encodes(
    make_problem: MakeProblem,
) -> None:
    """JSON lets a child send "\\ud800"; the stored report (UTF-8) then failed to encode and
    the submission stayed 'running' forever (red-team finding)."""
    report = judge(make_problem, 'def add(a, b):\n    raise ValueError("bad \\ud800 x")\n')
    assert report.verdict is Verdict.RE
    for admin in (False, True):
        json.dumps(report.to_dict(admin=admin), ensure_ascii=False).encode("utf-8")
    assert "bad" in report.cases[0].message


def test_a_line_the_submission_does_not_have_is_not_believed(make_problem: MakeProblem) -> None:
    """The child is untrusted: a forged line number (any int) was shown as it came."""
    source = """
import judge.run.child as c
real = c.encode_frame
def forged(header, tensors=()):
    if header.get("type") == "error":
        header = dict(header, line=10**40)
    return real(header, tensors)
c.encode_frame = forged
def add(a, b):
    raise ValueError("x")
"""
    report = judge(make_problem, source)
    assert report.verdict is Verdict.RE
    assert all(case.line is None for case in report.cases)
