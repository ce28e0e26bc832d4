"""The suite's memo of the reference's answers (tests/answer_cache.py): shared between
workers, keyed by everything the answers depend on, never a substitute for a run that
must happen."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from answer_cache import AnswerCache

from judge.kinds.code_proof import _determinism
from judge.problem.cases import PUBLIC_SEED, build_cases
from judge.problem.problemset import ProblemSet
from judge.run import judge_source
from judge.run.judge_source import TrustedInputs
from judge.wire.tensor import TensorData


class Reference:
    """A stand-in for the reference's run: counts its calls, answers with a tensor."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, problem: object, cases: list, before_case: object = None) -> dict:
        self.calls += 1
        return {c.name: TensorData("int64", (1,), (7).to_bytes(8, "little")) for c in cases}


def _problem(root: Path, tier: str = "torch") -> SimpleNamespace:
    folder = root / "problems" / "demo"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cases.py").write_text("CASES = 1\n", encoding="utf-8")
    return SimpleNamespace(path=folder, tier=tier)


CASES = [SimpleNamespace(name="one", args=[1, 2]), SimpleNamespace(name="two", args=[3])]


def test_a_second_worker_reads_the_answers_the_first_computed(tmp_path: Path) -> None:
    problem, reference = _problem(tmp_path), Reference()
    first = AnswerCache(tmp_path / "cache", tmp_path / "problems").wrap(reference)
    second = AnswerCache(tmp_path / "cache", tmp_path / "problems").wrap(reference)
    answers = first(problem, CASES)
    assert second(problem, CASES) == answers
    assert reference.calls == 1
    assert answers["one"] == TensorData("int64", (1,), (7).to_bytes(8, "little"))


def test_a_changed_problem_file_or_other_cases_are_computed_again(tmp_path: Path) -> None:
    problem, reference = _problem(tmp_path), Reference()
    memo = AnswerCache(tmp_path / "cache", tmp_path / "problems").wrap(reference)
    memo(problem, CASES)
    (problem.path / "cases.py").write_text("CASES = 2\n", encoding="utf-8")
    memo(problem, CASES)
    memo(problem, [SimpleNamespace(name="one", args=[1, 3])])
    assert reference.calls == 3


def test_a_torn_entry_is_computed_again(tmp_path: Path) -> None:
    problem, reference = _problem(tmp_path), Reference()
    memo = AnswerCache(tmp_path / "cache", tmp_path / "problems").wrap(reference)
    memo(problem, CASES)
    (entry,) = (tmp_path / "cache").iterdir()
    entry.write_bytes(entry.read_bytes()[:10])
    assert memo(problem, CASES)["two"] is not None
    assert reference.calls == 2


@pytest.mark.parametrize("where", ["browser tier", "outside the problem set"])
def test_only_the_real_sets_torch_problems_are_kept(tmp_path: Path, where: str) -> None:
    reference = Reference()
    if where == "browser tier":
        problem, problems = _problem(tmp_path, tier="browser"), tmp_path / "problems"
    else:
        problem, problems = _problem(tmp_path), tmp_path / "elsewhere"
    memo = AnswerCache(tmp_path / "cache", problems).wrap(reference)
    memo(problem, CASES)
    memo(problem, CASES)
    assert reference.calls == 2
    assert not (tmp_path / "cache").exists()


def test_the_determinism_check_runs_the_reference_even_when_answers_are_memoised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A memo that answered wrongly would be caught: the check's second run is a run."""
    problem = ProblemSet().get("kv-bytes-per-token")
    cases = build_cases(problem, PUBLIC_SEED)
    stale = {case.name: -1 for case in cases}
    monkeypatch.setattr(judge_source, "expected_observations", lambda *a, **k: stale)
    check = _determinism(problem, TrustedInputs(cases, stale))
    assert (check.ok, check.detail) == (False, "two runs differ")


class Builder:
    """A stand-in for build_cases: counts its calls, one case per seed."""

    def __init__(self) -> None:
        self.seeds: list[int | None] = []

    def __call__(self, problem: object, seed: int | None) -> list:
        self.seeds.append(seed)
        return [SimpleNamespace(name=f"case-{seed}", args=[seed])]


def test_a_seeds_cases_are_built_once_and_the_public_seed_is_one_seed(tmp_path: Path) -> None:
    problem, builder = _problem(tmp_path), Builder()
    first = AnswerCache(tmp_path / "cache", tmp_path / "problems").wrap_build(builder)
    second = AnswerCache(tmp_path / "cache", tmp_path / "problems").wrap_build(builder)
    built = first(problem, 5)
    assert second(problem, 5)[0].name == built[0].name == "case-5"
    second(problem, None)
    assert first(problem, PUBLIC_SEED)[0].name == "case-None"  # None reads as the public seed
    second(problem, 6)
    assert builder.seeds == [5, None, 6]
    (problem.path / "cases.py").write_text("CASES = 2\n", encoding="utf-8")
    first(problem, 5)
    assert builder.seeds == [5, None, 6, 5]


def test_cases_and_answers_never_read_each_others_entries(tmp_path: Path) -> None:
    problem, builder, reference = _problem(tmp_path), Builder(), Reference()
    cache = AnswerCache(tmp_path / "cache", tmp_path / "problems")
    built = cache.wrap_build(builder)(problem, 5)
    answers = cache.wrap(reference)(problem, built)
    assert set(answers) == {"case-5"}
    assert cache.wrap_build(builder)(problem, 5)[0].name == "case-5"
    assert len(list((tmp_path / "cache").iterdir())) == 2
