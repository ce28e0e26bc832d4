"""A problem whose driver is trusted (`[driver] side = "trusted"`): its cases.py runs in a
trusted child, the learner's code in the job, and the two meet only through calls the
parent carries (judge/run/remote.py, judge/run/hosted_session.py).

The synthetic problem here is a ledger: the driver keeps a Ledger (the rules: a limit, the
record of what was written), hands it to the learner's Box, and reports what the ledger
recorded. Nothing the learner's process does can reach the ledger itself.
"""

from __future__ import annotations

import os
import textwrap

import pytest
from problem_factory import TOML, MakeProblem

from judge.errors import SpecError
from judge.problem.spec import DriverSide, load_problem
from judge.run.judge_source import judge_source
from judge.run.remote import Channel, ProtocolViolation, remote_error
from judge.verdict import Verdict

LEDGER_TOML = (
    TOML.format(slug="ledger", per_case=3.0, total=20.0)
    .replace('names = ["add"]', 'names = ["Box"]')
    .replace('kind = "value"', 'kind = "exact"')
    + '\n[driver]\nside = "trusted"\n'
)

LEDGER_CASES = """
class Ledger:
    remote_attributes = ("limit",)
    remote_methods = ("record",)

    def __init__(self, limit):
        self.limit, self.seen = limit, []

    def record(self, value):
        if type(value) is not int or value > self.limit:
            raise ValueError(f"{value!r} is over the limit {self.limit}")
        self.seen.append(value)
        return len(self.seen)


def public_cases():
    return [
        {"name": "three", "args": {"n": 3, "limit": 10}},
        {"name": "five", "args": {"n": 5, "limit": 20}},
    ]


def generated_cases(rng):
    return [{"name": "random-0", "args": {"n": rng.randint(1, 6), "limit": 12}}]


def run(sub, args):
    ledger = Ledger(args["limit"])
    box = sub.Box(ledger)
    answers = [box.put(i) for i in range(args["n"])]
    return {"answers": [sorted(a.items()) for a in answers], "seen": ledger.seen}
"""

BOX = """
class Box:
    def __init__(self, ledger):
        self.ledger = ledger

    def put(self, value):
        return {value: self.ledger.record(value * 2)}
"""


@pytest.fixture
def ledger(make_problem: MakeProblem):  # type: ignore[no-untyped-def]
    folder = make_problem(
        slug="ledger",
        toml=LEDGER_TOML,
        files={
            "cases.py": LEDGER_CASES,
            "reference.py": BOX,
            "starter.py": "class Box:\n    pass\n",
            "solutions/wrong/minus.py": None,
            "solutions/wrong/crash.py": None,
        },
    )
    return load_problem(folder)


def judged(problem, source: str):  # type: ignore[no-untyped-def]
    return judge_source(problem, textwrap.dedent(source))


def test_the_driver_reports_what_its_own_objects_recorded(ledger) -> None:  # type: ignore[no-untyped-def]
    assert ledger.driver is DriverSide.TRUSTED and ledger.hosted
    report = judged(ledger, BOX)
    assert report.verdict is Verdict.AC, report.to_dict()
    assert [c.name for c in report.cases] == ["three", "five", "public-random-0"]


def test_the_job_never_sees_the_drivers_objects_only_their_declared_surface(ledger) -> None:  # type: ignore[no-untyped-def]
    """The stub has the ledger's declared attribute and method, and nothing else: not its
    record, not the driver's frames, not cases.py; writing to the stub changes nothing
    the driver reports."""
    probe = """
import gc
import sys


class Box:
    def __init__(self, ledger):
        assert not hasattr(ledger, "seen"), "the record reached the job"
        assert [n for n in vars(ledger) if not n.startswith("_")] == ["limit", "record"]
        self.ledger = ledger

    def put(self, value):
        ledger = self.ledger
        assert not any(type(o).__name__ == "Ledger" for o in gc.get_objects())
        assert not hasattr(sys.modules.get("cases"), "Ledger"), "cases.py ran in the job"
        frame = sys._getframe()
        while frame is not None:  # the case's arguments are nowhere on the job's stack
            for local in frame.f_locals.values():
                assert not (isinstance(local, dict) and "limit" in local), frame.f_code.co_name
            frame = frame.f_back
        ledger.limit = 10**9  # a copy: the driver's limit stays
        ledger.seen = [0] * 99
        return {value: ledger.record(value * 2)}
"""
    report = judged(ledger, probe)
    assert report.verdict is Verdict.AC, report.to_dict()


def test_a_limit_raised_in_the_job_is_still_enforced_by_the_driver(ledger) -> None:  # type: ignore[no-untyped-def]
    """The limit is a rule the driver keeps: a bigger copy in the job changes nothing."""
    cheat = BOX.replace(
        "        self.ledger = ledger",
        "        self.ledger = ledger\n        ledger.limit = 10**9",
    ).replace("value * 2", "value * 100")
    report = judged(ledger, cheat)
    assert report.verdict is Verdict.RE, report.to_dict()
    failed = report.first_failure
    assert failed is not None
    assert "ValueError: 100 is over the limit 10" in failed.message


def test_the_learners_exception_is_re_with_its_own_line(ledger) -> None:  # type: ignore[no-untyped-def]
    crash = BOX.replace(
        "        return {value: self.ledger.record(value * 2)}",
        "        if value == 2:\n            raise KeyError('two')\n"
        "        return {value: self.ledger.record(value * 2)}",
    )
    report = judged(ledger, crash)
    assert report.verdict is Verdict.RE
    failed = report.first_failure
    assert failed is not None and failed.name == "three"
    assert failed.line == 8 and "KeyError: 'two'" in failed.message


def test_a_refused_call_back_can_be_caught_by_the_learners_code(ledger) -> None:  # type: ignore[no-untyped-def]
    """The driver's refusal arrives as an exception of the same name, which the learner's
    engine may handle as it would in one process."""
    careful = BOX.replace(
        "        return {value: self.ledger.record(value * 2)}",
        "        try:\n            self.ledger.record(10**6)\n        except ValueError as exc:\n"
        "            assert 'over the limit' in str(exc)\n"
        "        return {value: self.ledger.record(value * 2)}",
    )
    assert judged(ledger, careful).verdict is Verdict.AC


def test_a_wrong_answer_is_wa_on_the_drivers_observation(ledger) -> None:  # type: ignore[no-untyped-def]
    wrong = BOX.replace("value * 2", "value * 2 + 1")
    report = judged(ledger, wrong)
    assert report.verdict is Verdict.WA


@pytest.mark.parametrize(
    ("body", "verdict"),
    [
        ("        import time\n        time.sleep(60)\n", Verdict.TLE),
        ("        import os\n        os._exit(0)\n", Verdict.RE),
        # a forged frame on the result channel, out of turn
        (
            "        import os, json, struct\n"
            "        h = json.dumps({'type': 'result', 'name': 'three', 'observation': 1}).encode()\n"
            "        os.write(4, struct.pack('>4sI', b'JDG1', len(h)) + h)\n"
            "        import time\n        time.sleep(0.5)\n",
            Verdict.RE,
        ),
    ],
    ids=["sleeps", "exits", "forges-a-frame"],
)
def test_a_job_that_stalls_exits_or_forges_ends_its_case_and_nothing_lingers(
    ledger,  # type: ignore[no-untyped-def]
    body: str,
    verdict: Verdict,
) -> None:
    source = BOX.replace("    def put(self, value):\n", "    def put(self, value):\n" + body)
    before = _children()  # what earlier tests of this worker keep running (a browser, a server)
    report = judged(ledger, source)
    assert report.verdict is verdict, report.to_dict()
    # The driver was ended with the job: no child of this process it started is left.
    assert _children() - before == set()


def _children() -> set[str]:
    return {p for p in os.listdir("/proc") if p.isdigit() and _parent(p) == os.getpid()}


def _parent(pid: str) -> int:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return -1


def test_what_the_learner_prints_during_a_call_is_that_cases_output(ledger) -> None:  # type: ignore[no-untyped-def]
    chatty = BOX.replace(
        "    def put(self, value):\n", "    def put(self, value):\n        print('put', value)\n"
    )
    report = judged(ledger, chatty)
    assert report.verdict is Verdict.AC
    assert report.cases[0].stdout == "put 0\nput 1\nput 2\n"


def test_a_trusted_driver_cannot_have_a_cpu_rule(make_problem: MakeProblem) -> None:
    toml = LEDGER_TOML.replace(
        "memory_mb = 128", "memory_mb = 128\ncpu_vs_reference = 2.5\ncpu_slack_s = 0.25"
    )
    folder = make_problem(slug="ledger", toml=toml)
    with pytest.raises(SpecError, match=r"driver\.side"):
        load_problem(folder)


def test_an_unknown_driver_side_is_refused(make_problem: MakeProblem) -> None:
    folder = make_problem(slug="ledger", toml=LEDGER_TOML.replace('"trusted"', '"parent"'))
    with pytest.raises(SpecError, match=r"driver\.side.*'parent' must be one of"):
        load_problem(folder)


def test_the_channel_refuses_what_the_other_side_may_not_send() -> None:
    """The driver never takes a stub from the job, nor the job a handle from the driver;
    a dict's pairs must be pairs; no call reaches a private method."""
    read_fd, write_fd = os.pipe()
    try:
        driver = Channel(read_fd, write_fd, driver=True)
        host = Channel(read_fd, write_fd, driver=False)
        with pytest.raises(ProtocolViolation):
            driver.incoming({"__stub__": 1, "attributes": {}, "methods": []})
        with pytest.raises(ProtocolViolation):
            host.incoming({"__object__": 1})
        with pytest.raises(ProtocolViolation):
            driver.incoming({"__pairs__": [[1, 2, 3]]})
        assert driver.incoming({"__pairs__": [[1, "a"], [2, "b"]]}) == {1: "a", 2: "b"}
        host.objects[7] = object()
        with pytest.raises(ProtocolViolation, match="private"):
            host._invoke({"target": 7, "method": "__class__", "args": []})
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_a_refusal_keeps_its_exception_name() -> None:
    error = remote_error("PoolError", "block 99 is outside the pool", "RuntimeError")
    assert type(error).__name__ == "PoolError" and str(error) == "block 99 is outside the pool"
    assert isinstance(error, RuntimeError)
    assert type(remote_error("not a name", "x")).__name__ == "RemoteError"
    # A base that is not an Exception class of the standard library is no base.
    assert not isinstance(remote_error("Stop", "x", "KeyboardInterrupt"), KeyboardInterrupt)
    assert not isinstance(remote_error("Odd", "x", "print"), Exception.__class__)
