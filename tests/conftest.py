"""Shared fixtures."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import answer_cache
import pytest
from problem_factory import MakeProblem, write_add_problem
from quiz_factory import MakeQuiz, write_quiz

# Real Redis and PostgreSQL servers (tests/services.py), for every test that asks.
from services import postgres_server, postgres_url, redis_server, redis_url

__all__ = ["postgres_server", "postgres_url", "redis_server", "redis_url"]

TESTS = Path(__file__).resolve().parent
# Where a server judges (it computes its answers itself, as in production): no memo there.
SERVERS = (TESTS / "web", TESTS / "cluster", TESTS / "bench")
ANSWERS = answer_cache.AnswerCache()


# The judge's modules that imported `build_cases` by name (runner.refcache, the server's, is
# not one of them: a server builds its own cases).
BUILDERS = ("judge.problem.cases", "judge.kinds.code_proof", "judge.run.judge_source")


@pytest.fixture(autouse=True)
def _answers_once_per_run(request: pytest.FixtureRequest) -> Iterator[None]:
    """The reference's answers and the cases of a seed, computed once per test run
    (tests/answer_cache.py)."""
    path = Path(str(request.node.path))
    # Only where the test's module brought the judge in already: importing it here would
    # change what a test of imports sees.
    judge_source = sys.modules.get("judge.run.judge_source")
    cases = sys.modules.get("judge.problem.cases")
    if (
        judge_source is None
        or cases is None
        or not answer_cache.enabled()
        or any(path.is_relative_to(s) for s in SERVERS)
    ):
        yield
        return
    build = cases.build_cases
    builders = [sys.modules.get(name) for name in BUILDERS]
    # A test module, or the suite's helper, that imported it by name.
    builders += [getattr(request, "module", None), sys.modules.get("built_cases")]
    patched = [m for m in builders if m is not None and getattr(m, "build_cases", None) is build]
    original = judge_source.expected_observations
    judge_source.expected_observations = ANSWERS.wrap(original)
    memo = ANSWERS.wrap_build(build)
    for module in patched:
        module.build_cases = memo  # type: ignore[attr-defined]
    try:
        yield
    finally:
        judge_source.expected_observations = original
        for module in patched:
            module.build_cases = build  # type: ignore[attr-defined]


@pytest.fixture(autouse=True, scope="session")
def _spec_cache_of_the_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The command line's spec cache (judge/problem/spec_cache.py), for every `judge`
    started by a test, in this run's own folder rather than the user's."""
    patch = pytest.MonkeyPatch()
    patch.setenv("JUDGE_SPEC_CACHE", str(tmp_path_factory.mktemp("spec-cache")))
    yield
    patch.undo()


@pytest.fixture(autouse=True, scope="session")
def _no_answers_kept_between_runs() -> Iterator[None]:
    """The command line's saved answers (judge/run/answer_cache.py) are off for the suite:
    a test that patches the library or the reference in-process changes no file stamp, and
    must not be judged with answers an earlier test computed. Its own tests turn it on."""
    patch = pytest.MonkeyPatch()
    patch.setenv("JUDGE_ANSWER_CACHE", "")
    yield
    patch.undo()


@pytest.fixture
def make_problem(tmp_path: Path) -> MakeProblem:
    """make_problem(files={...}, per_case=1.0, total=5.0, slug="add") -> the problem folder.

    `files` overrides or adds files (None deletes one); the root holds only this problem."""

    def make(
        files: dict[str, str | None] | None = None,
        per_case: float = 2.0,
        total: float = 10.0,
        slug: str = "add",
        toml: str | None = None,
    ) -> Path:
        return write_add_problem(tmp_path / "problems", files, per_case, total, slug, toml)

    return make


@pytest.fixture
def make_quiz(tmp_path: Path) -> MakeQuiz:
    """make_quiz(files={...}) -> a quiz folder (tests/quiz_factory.py), alone in its root."""

    def make(files: dict[str, str | None] | None = None, slug: str = "quiz") -> Path:
        return write_quiz(tmp_path / "quizzes", files, slug)

    return make
