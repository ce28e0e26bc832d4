"""The Python API and CLI entry points the web app, the workers and `judge` use."""

from __future__ import annotations

import json
import time

import pytest

from judge.errors import SourceError, UnknownProblem
from judge.problem.spec import ProblemSpec
from runner import api, cli, doctor
from runner.launchers.sandbox import SandboxLauncher


@pytest.fixture(scope="module")
def runner():  # type: ignore[no-untyped-def]
    with api.Runner(pool_size=1) as r:
        yield r


def test_runner_judges_a_torch_problem_warm_with_cached_references(runner) -> None:  # type: ignore[no-untyped-def]
    problem = runner.problems.get("attention-decode")
    first = runner.judge("attention-decode", problem.reference_source(), seed=5)
    second = runner.judge(problem, problem.reference_source(), seed=5)
    assert first.verdict.value == second.verdict.value == "AC"
    assert first.seed == "secret"
    assert first.environment["launcher"] == "sandbox"
    assert runner.cache.hits >= 1


@pytest.mark.parametrize("wrong", ["no_scale", "repeat_not_interleave", "forgets_kv_repeat"])
def test_attention_decode_wrong_solutions_get_their_declared_verdicts(runner, wrong) -> None:  # type: ignore[no-untyped-def]
    problem = runner.problems.get("attention-decode")
    declared = {w.path.stem: w.expect for w in problem.wrong_solutions()}
    source = (problem.path / "solutions" / "wrong" / f"{wrong}.py").read_text()
    assert runner.judge(problem, source, seed=11).verdict is declared[wrong]


def test_runner_judges_a_quiz_in_process_without_a_reference_run(runner) -> None:  # type: ignore[no-untyped-def]
    """A quiz has no cases.py to run: its sheets once went to the reference cache and the
    server answered every quiz submission with IE."""
    problem = runner.problems.get("self-test")
    cached = len(runner.cache)
    right = runner.judge(problem, problem.reference_source(), seed=5)
    assert right.verdict.value == "AC" and right.seed == "secret"
    assert right.environment["launcher"] == "quiz" and len(runner.cache) == cached
    wrong = problem.wrong_solutions()[0]
    assert runner.judge(problem, wrong.path.read_text(), seed=5).verdict is wrong.expect


def test_runner_rejects_bad_source_with_a_clear_message(runner) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SourceError, match="NUL byte"):
        runner.judge("attention-decode", "x = 1\0")


def test_runner_rejects_an_unknown_problem(runner) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UnknownProblem, match="no-such-problem"):
        runner.judge("no-such-problem", "x = 1\n")


def test_one_shot_judge_uses_a_fresh_sandbox(add_problem: ProblemSpec) -> None:
    report = api.judge(add_problem, "def add(a, b):\n    return a + b\n", seed=3)
    assert report.verdict.value == "AC"
    assert report.environment["launcher"] == "sandbox"


def test_sandbox_launcher_is_what_judge_run_sandbox_uses() -> None:
    launcher = api.sandbox_launcher()
    try:
        assert isinstance(launcher, SandboxLauncher) and launcher.name == "sandbox"
        assert not launcher.warm
    finally:
        launcher.close()


def test_doctor_reports_every_protection_and_says_ready(capsys) -> None:  # type: ignore[no-untyped-def]
    code = cli.main(["doctor"])
    out = capsys.readouterr().out
    for line in (
        "user namespace",
        "pid namespace",
        "net namespace",
        "seccomp",
        "rlimits",
        "cgroups",
        "GPU device nodes",
        "GPU device memory",
        "server mode",
    ):
        assert line in out
    assert "seccomp             filter" in out
    assert code == 0 and "server mode         ready" in out


def test_doctor_json_is_machine_readable(capsys) -> None:  # type: ignore[no-untyped-def]
    assert doctor.main(["--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["probe"]["uid"] != 0
    assert report["probe"]["ns"]["net"] != report["probe"]["host_ns"]["net"]


def test_server_mode_refuses_shared_namespaces() -> None:
    facts = {"uid": 999, "ns": {n: "same" for n in doctor.NAMESPACES}}
    facts["host_ns"] = dict(facts["ns"])
    assert doctor.server_ready({"probe": facts}) is False
    facts["ns"] = {n: f"own-{n}" for n in doctor.NAMESPACES}
    assert doctor.server_ready({"probe": facts}) is True
    assert doctor.server_ready({"probe": {**facts, "uid": 0}}) is False
    assert doctor.server_ready({"probe": {"error": "bwrap missing"}}) is False


def test_runner_cli_usage(capsys) -> None:  # type: ignore[no-untyped-def]
    assert cli.main([]) == 0
    assert cli.main(["bogus"]) == 2
    assert "usage: judge runner {doctor}" in capsys.readouterr().out


def test_judge_run_sandbox_judges_like_the_server(
    add_problem: ProblemSpec, tmp_path, capsys
) -> None:  # type: ignore[no-untyped-def]
    from practice_judge import main as judge

    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text("def add(a, b):\n    return a + b\n")
    bad.write_text("import socket\nsocket.create_connection(('127.0.0.1', 1), 1)\n")
    root = str(add_problem.path.parent)
    assert judge(["--problems", root, "run", "--sandbox", "add", str(good)]) == 0
    assert judge(["--problems", root, "run", "--sandbox", "--json", "add", str(bad)]) == 1
    out = capsys.readouterr().out
    report = json.loads(out[out.index("{") :])
    assert report["verdict"] == "RE" and report["environment"]["launcher"] == "sandbox"


def test_runner_applies_the_limits_it_is_given(runner, add_problem: ProblemSpec) -> None:  # type: ignore[no-untyped-def]
    from judge.problem.limits import Limits

    slow = "import time\ndef add(a, b):\n    time.sleep(0.3)\n    return a + b\n"
    assert runner.judge(add_problem, slow).verdict.value == "AC"  # the problem allows 1 s
    tight = Limits(time_per_case_s=0.1, total_time_s=2.0, memory_mb=128)
    assert runner.judge(add_problem, slow, limits=tight).verdict.value == "TLE"


def test_runner_tries_a_learners_input_on_a_torch_problem_in_the_sandbox(runner) -> None:  # type: ignore[no-untyped-def]
    """The server's "Try your own input": the reference and the learner's code each run as a
    job on the warm workers, the code graded against the reference's answer."""
    problem = runner.problems.get("attention-decode")
    args = {"batch": 1, "q_heads": 4, "kv_heads": 2, "head_dim": 8, "cached": 5, "seed": 7}
    right = runner.try_input(problem, args, problem.reference_source())
    assert right.answered and right.report is not None
    assert right.report.verdict.value == "AC"
    assert right.report.environment["launcher"] == "sandbox"
    wrong = (problem.path / "solutions" / "wrong" / "no_scale.py").read_text()
    assert runner.try_input(problem, args, wrong).report.verdict.value == "WA"  # type: ignore[union-attr]
    # A torch answer holds tensors: it is compared on the server, never sent as a case.
    assert "case" not in right.to_dict() and right.to_dict()["expected"] is None


def test_runner_refuses_a_learners_input_shaped_unlike_a_public_case(runner) -> None:  # type: ignore[no-untyped-def]
    tried = runner.try_input("block-table", {"num_blocks": 4}, None)
    assert tried.refused is not None and tried.report is None
    assert "block_size" in tried.refused.en


def test_a_server_runner_keeps_a_seed_ready_and_judges_with_it_without_computing() -> None:
    with api.Runner(pool_size=1, ready_seeds=1) as runner:
        problem = runner.problems.get("attention-decode")
        assert runner.ready_seed(problem) is None  # the first submission pays, as before
        deadline = time.monotonic() + 120
        while runner.stock.ready(problem) < 1:
            assert time.monotonic() < deadline, "no seed was made ready"
            time.sleep(0.05)
        seed = runner.ready_seed(problem)
        assert seed is not None
        misses = runner.cache.misses
        report = runner.judge(problem, problem.reference_source(), seed=seed)
        assert report.verdict.value == "AC" and runner.cache.misses == misses
        assert runner.ready_seed("self-test") is None  # a quiz runs no reference


def test_a_fresh_seed_says_it_prepares_its_cases_before_they_run(runner) -> None:  # type: ignore[no-untyped-def]
    from judge.run.phase import Phase, Stage

    problem = runner.problems.get("attention-decode")
    seen: list[Phase] = []
    report = runner.judge(problem, problem.reference_source(), seed=9191, progress=seen.append)
    assert report.verdict.value == "AC"
    stages = [p.stage for p in seen]
    assert stages[0] is Stage.PREPARING and stages[-1] is Stage.REPORTING
    assert Stage.CASE in stages and Stage.CALIBRATING not in stages  # no CPU rule here
    again: list[Phase] = []
    runner.judge(problem, problem.reference_source(), seed=9191, progress=again.append)
    assert again[0].stage is Stage.CASE  # the cached seed prepares nothing
