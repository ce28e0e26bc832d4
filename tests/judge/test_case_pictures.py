"""A failing roofline or kv-capacity case carries what its picture needs (issue 12,
section 2): the case's hardware with the learner's points, and the memory split into
weights and KV, expected beside got. Before, such a case carried only its arguments."""

from __future__ import annotations

from pathlib import Path

from judge.grading.report import CaseResult
from judge.pictures.case_pictures import memory, picture, summary_lines
from judge.problem.spec import load_problem
from judge.run.judge_source import judge_source
from judge.verdict import Verdict

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"


def _failure(slug: str, wrong: str, case: str) -> CaseResult:
    source = (PROBLEMS / slug / "solutions" / "wrong" / wrong).read_text(encoding="utf-8")
    report = judge_source(load_problem(PROBLEMS / slug), source)
    found = next(c for c in report.cases if c.name == case)
    assert found.verdict is Verdict.WA
    return found


def test_a_roofline_failure_carries_the_roof_and_both_sets_of_points() -> None:
    failed = _failure("roofline", "time_sum_not_max.py", "llama-3-8b-up-h100-b1-s512")
    assert failed.input is not None
    shown = failed.input.picture
    assert type(shown) is dict and shown["kind"] == "roofline"
    assert (shown["peak_flops_s"], shown["bandwidth_b_s"]) == (989e12, 3.35e12)
    want, got = shown["expected"], shown["got"]
    assert [p["phase"] for p in want] == [p["phase"] for p in got] == ["prefill", "decode"]
    # Adding the two times instead of taking the larger puts prefill under the roof.
    assert abs(want[0]["flops_s"] / 989e12 - 1) < 1e-9
    assert got[0]["flops_s"] < 0.7 * want[0]["flops_s"]
    lines = summary_lines(shown, "en")
    assert lines[0] == "  roofline (peak 989 TFLOP/s, 3.35 TB/s, ridge 295.2 FLOP/byte):"
    assert lines[1].startswith("    prefill  expected I=441.1 at 989 TFLOP/s; got I=441.1 at 592.")


def test_a_capacity_failure_splits_the_memory_into_weights_and_kv() -> None:
    failed = _failure("kv-capacity", "gib_for_gb.py", "capacity-llama-3-8b-h100-4k")
    assert failed.input is not None
    shown = failed.input.picture
    assert type(shown) is dict and shown["kind"] == "memory"
    assert (shown["total"], shown["usable"]) == (80 * 10**9, 72 * 10**9)
    assert shown["expected"] == {
        "weights": 16_060_522_496,
        "kv": 104 * 4096 * 131_072,
        "requests": 104,
    }
    assert type(shown["got"]) is dict and shown["got"]["requests"] != 104


def test_a_decode_step_splits_the_bytes_it_reads() -> None:
    args: dict[str, object] = {"call": "decode_step", "params": {}}
    shown = memory(args, {"bytes_read": 100, "kv_share": 0.25}, {"bytes_read": 80, "kv_share": 2})
    assert shown == {
        "kind": "memory",
        "call": "decode_step",
        "expected": {"weights": 75.0, "kv": 25.0},
        "got": None,
    }


def test_what_a_submission_returns_never_breaks_a_picture() -> None:
    args = {"peak_tflops": 1.0, "bandwidth_tb_s": 1.0}
    want = {"prefill": {"intensity": 2.0, "flops": 4.0, "time_us": 1.0}}
    for got in (None, "x", {"prefill": {"intensity": True}}, {"prefill": {"flops": 10**400}}):
        shown = picture(args, want, got, None)
        assert type(shown) is dict and shown["got"] == []
    assert picture({"call": "max_requests", "params": {"num_gpus": "x"}}, 1, 1, None) is None
