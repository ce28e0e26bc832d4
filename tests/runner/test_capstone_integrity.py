"""Issue 35, section 1: the capstone is judged where the learner cannot reach.

Each engine below is what the red-team pass submitted to the four serving problems on a
main whose runner, pool, budget, bound and trace lived in the learner's process, where each
was AC (the last one scored 1.55x the reference). Their runner now lives in a trusted
driver's process (`[driver] side = "trusted"`, judge/run/hosted_session.py): the engine
holds a stub with the runner's declared attributes and methods, and nothing of the driver
is in its process. Judged in the real sandbox, as the server judges.
"""

from __future__ import annotations

import pytest

from judge.grading.report import Report
from judge.problem.problemset import ProblemSet
from judge.run.judge_source import judge_source
from judge.verdict import Verdict
from runner.launchers.sandbox import SandboxLauncher

pytestmark = pytest.mark.slow
PROBLEMS = ProblemSet()

# Never touches the pool: recomputes every token with the runner's model and writes the
# runner's record of what it computed, so the driver's provenance check is satisfied.
WRITES_THE_RECORD = """\
import torch


class Engine:
    def __init__(self, runner):
        self.runner, self.model = runner, runner._model
        self.requests = {}

    def add_request(self, request_id, prompt_ids, max_new_tokens):
        self.requests[request_id] = (list(prompt_ids), max_new_tokens, [])

    @torch.inference_mode()
    def step(self):
        tokens, finished = {}, []
        for rid, (prompt, wanted, out) in list(self.requests.items()):
            seq = prompt + out
            token = int(self.model(torch.tensor([seq]))[0, -1].argmax())
            self.runner._emitted[(rid, len(seq))] = (token, self.runner.prefix_id(seq))
            out.append(token)
            tokens[rid] = token
            if len(out) == wanted:
                finished.append(rid)
                del self.requests[rid]
        return tokens, finished
"""

# Raises the trace's bound on time to first token in the driver's frame, and the step's
# budget on the runner, then batches statically (serve-continuous's declared wrong engine).
RAISE_THE_LIMITS = """
import sys


def _raise_the_limits(runner):
    frame = sys._getframe()
    while frame is not None:
        args = frame.f_locals.get("args")
        if isinstance(args, dict) and "ttft_bound" in args:
            args["ttft_bound"] = 10**6
        frame = frame.f_back
    runner.max_tokens_per_step = 10**6
"""

# Widens the pool sixteen times, then never preempts (serve-paged's declared wrong engine).
WIDEN_THE_POOL = """

def _widen_the_pool(runner):
    import torch

    runner.num_blocks *= 16
    for name in ("_k", "_v"):
        pool = getattr(runner, name)
        setattr(runner, name, torch.zeros((pool.shape[0], runner.num_blocks, *pool.shape[2:])))
    runner._holds = runner._holds * 16
"""

# Reads every request of the trace, the ones still to come included, from the driver.
READS_THE_FUTURE = """
import gc
import sys


def _the_future():
    frame = sys._getframe()
    while frame is not None:
        args = frame.f_locals.get("args")
        if isinstance(args, dict) and "requests" in args:
            return args["requests"]
        frame = frame.f_back
    for thing in gc.get_objects():
        if isinstance(thing, dict) and "requests" in thing and "ttft_bound" in thing:
            return thing["requests"]
    raise RuntimeError("no future in sight")
"""


@pytest.fixture
def launcher(warm_launcher: SandboxLauncher) -> SandboxLauncher:
    """The suite's warm worker (tests/runner/conftest.py): one of this module's own would
    import torch and load the models again."""
    return warm_launcher


def _judge(slug: str, source: str, launcher: SandboxLauncher) -> Report:
    return judge_source(PROBLEMS.get(slug), source, launcher=launcher)


def _first_message(report: Report) -> str:
    failed = report.first_failure
    return failed.message if failed is not None else ""


@pytest.mark.parametrize(
    "slug", ["serve-static", "serve-continuous", "serve-paged", "serve-engine"]
)
def test_an_engine_that_writes_the_runners_record_is_never_accepted(
    slug: str, launcher: SandboxLauncher
) -> None:
    """There is no model, pool or record in the engine's process to use or write."""
    report = _judge(slug, WRITES_THE_RECORD, launcher)
    assert report.verdict is Verdict.RE, report.to_dict()
    assert "AttributeError" in _first_message(report) and "_model" in _first_message(report)
    assert report.speed is None


def _with(prelude: str, wrong: str, call: str, slug: str) -> str:
    """A declared wrong engine of `slug`, with `prelude` and its `call` first in __init__."""
    source = (PROBLEMS.get(slug).path / "solutions" / "wrong" / wrong).read_text(encoding="utf-8")
    marker = "        self.runner = runner\n"
    assert marker in source
    return prelude + source.replace(marker, marker + f"        {call}\n", 1)


def test_raising_the_bound_and_the_budget_leaves_static_batching_wrong(
    launcher: SandboxLauncher,
) -> None:
    """The bound is the driver's and the budget the runner's, both in the trusted process:
    the engine's copies change nothing it is judged by."""
    source = _with(
        RAISE_THE_LIMITS, "static_batching.py", "_raise_the_limits(runner)", "serve-continuous"
    )
    report = _judge("serve-continuous", source, launcher)
    assert report.verdict in (Verdict.WA, Verdict.RE), report.to_dict()


def test_a_pool_widened_in_the_engines_process_is_not_the_runners(
    launcher: SandboxLauncher,
) -> None:
    source = _with(WIDEN_THE_POOL, "no_preemption.py", "_widen_the_pool(runner)", "serve-paged")
    report = _judge("serve-paged", source, launcher)
    assert report.verdict is Verdict.RE, report.to_dict()
    assert "_k" in _first_message(report) or "outside the pool" in _first_message(report)


def test_the_engine_never_sees_a_request_before_it_arrives(launcher: SandboxLauncher) -> None:
    """No frame or object of the driver is in the engine's process: the trace's future is
    nowhere to read, and no speed is recorded."""
    reference = PROBLEMS.get("serve-engine").reference_source()
    marker = "    def __init__(self, runner):\n"
    assert marker in reference
    source = READS_THE_FUTURE + reference.replace(
        marker, marker + "        self.future = _the_future()\n", 1
    )
    report = _judge("serve-engine", source, launcher)
    assert report.verdict is Verdict.RE, report.to_dict()
    assert "no future in sight" in _first_message(report)
    assert report.speed is None
