"""A speed problem's run, scored: the timed cases' rates, the impossible ones refused.

Kept apart from judge/problem/speed_spec.py (the value objects) so the report's types load without
the scoring; both are imported only for problems with a [speed] table.
"""

from __future__ import annotations

from judge.grading.report import CaseResult
from judge.messages import say
from judge.problem.cases import Case
from judge.problem.speed_spec import (
    MAX_RELATIVE_SPREAD,
    SpeedResult,
    SpeedSpec,
    bandwidth_ceiling,
    hardware,
    impossible,
    paired_score,
    quartiles,
    reference_pace,
    score,
)
from judge.verdict import Verdict


def score_run(
    spec: SpeedSpec,
    cases: list[Case],
    graded: list[CaseResult],
    env: dict[str, str],
    paced: dict[str, float] | None = None,
    pace_key: tuple[str, ...] = (),
    spread_limit: float | None = None,
) -> tuple[list[CaseResult], SpeedResult | None]:
    """The graded cases (an impossibly fast timed case turned WA) and the score, or None
    when a timed case is not AC (a run is scored whole or not at all). `paced` holds the
    reference's seconds on each timed case, measured just before the submission's (pacer.py):
    given for every timed case, the score is paired (see judge/problem/speed_spec.py), its
    reference rate kept under `pace_key`, and scored unless its ratios spread past `spread_limit`
    (None: the judge's own, MAX_RELATIVE_SPREAD)."""
    # The job's own device: a GPU run is held to the GPU's copy bandwidth, a CPU run to memcpy.
    device = env.get("device", "cpu")
    ceiling = bandwidth_ceiling(device=device)
    if any(_too_fast(case, result, ceiling) for case, result in zip(cases, graded, strict=True)):
        # Measured once per process, perhaps while the machine was busy: before refusing,
        # measure again now, just after these repetitions ran (the higher figure is kept).
        ceiling = bandwidth_ceiling(remeasure=True, device=device)
    out: list[CaseResult] = []
    rates: list[float] = []
    for case, result in zip(cases, graded, strict=True):
        timed = case.timed
        if timed is None or result.verdict is not Verdict.AC:
            out.append(result)
            continue
        seconds = result.time_ms / 1000
        if impossible(timed, seconds, ceiling):
            out.append(_impossible(result, timed.min_bytes / max(seconds, 1e-9), ceiling))
            continue
        rates.append(timed.work / seconds)
        out.append(_timed(result, timed.work / seconds, spec.unit))
    timed_cases = [c for c in cases if c.timed is not None]
    if not timed_cases or len(rates) != len(timed_cases):
        return out, None
    where = hardware(env.get("launcher", ""), device)
    if paced is None or any(c.name not in paced for c in timed_cases):
        return out, score(spec, rates, where)
    ratios, reference_rates = [], []
    for case, result in zip(cases, graded, strict=True):
        if case.timed is not None:
            ratios.append(paced[case.name] / max(result.time_ms / 1000, 1e-9))
            reference_rates.append(case.timed.work / max(paced[case.name], 1e-9))
    _q1, measured, _q3 = quartiles(reference_rates)
    limit = MAX_RELATIVE_SPREAD if spread_limit is None else spread_limit
    return out, paired_score(spec, ratios, reference_pace(pace_key, measured), where, limit)


def _too_fast(case: Case, result: CaseResult, ceiling: float) -> bool:
    timed = case.timed
    if timed is None or result.verdict is not Verdict.AC:
        return False
    return impossible(timed, result.time_ms / 1000, ceiling)


def _timed(result: CaseResult, rate: float, unit: str) -> CaseResult:
    return CaseResult(
        name=result.name,
        public=result.public,
        verdict=result.verdict,
        time_ms=result.time_ms,
        message=f"{rate:,.1f} {unit}",
        got=result.got,
        expected=result.expected,
    )


def _impossible(result: CaseResult, bytes_per_s: float, ceiling: float) -> CaseResult:
    return CaseResult.saying(
        say("case.too_fast", rate=f"{bytes_per_s / 1e9:,.0f}", ceiling=f"{ceiling / 1e9:,.0f}"),
        name=result.name,
        public=result.public,
        verdict=Verdict.WA,
        time_ms=result.time_ms,
    )
