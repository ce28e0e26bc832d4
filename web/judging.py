"""The one place the platform calls the judge core: loading problems, checking source,
judging, and reading a report into the columns the platform stores."""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from judge.errors import SourceError, UnknownProblem
from judge.judging import judge_source
from judge.problemset import ProblemSet
from judge.source import validate_source

__all__ = ["Judge", "Outcome", "ProblemSet", "UnknownProblem", "judge", "make_judge"]

FINAL_VERDICTS = ("AC", "WA", "TLE", "MLE", "OLE", "RE", "CE", "IE")


@dataclass(frozen=True, slots=True)
class Outcome:
    """A judged run, as stored on a submission row."""

    verdict: str
    version: str
    points: int
    passed: int
    total: int
    time_ms: float | None
    report_json: str
    metric: float | None = None
    metric_spread: float | None = None
    hardware: str | None = None


def load_problems(root: Path) -> ProblemSet:
    return ProblemSet(root)


def source_problem(code: str) -> str | None:
    """Why this source may not be stored (non-UTF-8, NUL bytes, too large, empty), or None."""
    try:
        validate_source(code)
    except SourceError as exc:
        return str(exc)
    return None


def load_launcher(spec: str) -> Any:
    """`module:callable` from the config, called once to build a launcher for judge_source."""
    if not spec:
        return None
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"launcher {spec!r} must look like 'package.module:factory'")
    return getattr(importlib.import_module(module_name), attr)()


class Judge(Protocol):
    """Runs one submission and returns the core's report as a dict (admin view)."""

    def run(self, problem: Any, code: str, seed: int) -> dict[str, Any]: ...

    def close(self) -> None: ...


class LocalJudge:
    """The core's judge_source: a child process per submission, or the given launcher."""

    def __init__(self, launcher_spec: str = "") -> None:
        self.launcher = load_launcher(launcher_spec)

    def run(self, problem: Any, code: str, seed: int) -> dict[str, Any]:
        report = judge_source(problem, code, seed=seed, launcher=self.launcher)
        return dict(report.to_dict(admin=True))

    def close(self) -> None:
        close = getattr(self.launcher, "close", None)
        if close is not None:
            close()


class SandboxJudge:
    """The runner's warm sandboxed workers and reference cache (runner.api.Runner)."""

    def __init__(self, workers: int, problems_dir: Path) -> None:
        from runner.api import Runner  # only servers that ask for the sandbox need it

        self.runner = Runner(pool_size=workers, problems_root=problems_dir)

    def run(self, problem: Any, code: str, seed: int) -> dict[str, Any]:
        return dict(self.runner.judge(problem, code, seed=seed).to_dict(admin=True))

    def close(self) -> None:
        self.runner.close()


BACKENDS = ("local", "sandbox")


def make_judge(backend: str, *, launcher: str, workers: int, problems_dir: Path) -> Judge:
    if backend == "local":
        return LocalJudge(launcher)
    if backend == "sandbox":
        return SandboxJudge(workers, problems_dir)
    raise ValueError(f"judge backend {backend!r} must be one of {', '.join(BACKENDS)}")


def judge(engine: Judge, problem: Any, code: str, *, seed: int) -> Outcome:
    try:
        report = engine.run(problem, code, seed)
    except SourceError as exc:
        # Checked before storing, so only a changed limit gets here; the source is at fault.
        report = {"verdict": "CE", "compile_error": {"kind": "source", "message": str(exc)}}
    return outcome_from_report(problem.points, report)


def outcome_from_report(max_points: int, report: dict[str, Any]) -> Outcome:
    verdict = str(report.get("verdict", "IE"))
    if verdict not in FINAL_VERDICTS:
        verdict = "IE"
    speed = report.get("speed") if isinstance(report.get("speed"), dict) else {}
    env = report.get("environment") if isinstance(report.get("environment"), dict) else {}
    return Outcome(
        verdict=verdict,
        version=str(report.get("version", "")),
        points=_points(max_points, verdict, report.get("score")),
        passed=int(report.get("passed", 0)),
        total=int(report.get("total", 0)),
        time_ms=_number(report.get("time_ms")),
        report_json=json.dumps(report, ensure_ascii=False, allow_nan=False),
        metric=_number(speed.get("tokens_per_s")) if verdict == "AC" else None,
        metric_spread=_number(speed.get("spread")),
        hardware=_hardware(env),
    )


def _points(max_points: int, verdict: str, score: Any) -> int:
    # The core scores a run in points: the problem's points on AC, else 0. Clamped so a
    # report can never award more than the problem is worth.
    value = _number(score)
    if verdict != "AC" or value is None:
        return 0
    return max(0, min(max_points, int(value)))


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _hardware(env: dict[str, Any]) -> str | None:
    parts = [str(env[key]) for key in ("device", "gpu", "cpu") if env.get(key)]
    return " / ".join(parts)[:200] or None
