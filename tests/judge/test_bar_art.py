"""A failing scheduler, fragmentation or kv-bytes-per-token case carries bars of what its
state counts, and `judge run` draws them as text art (issue 12, section 2).

Their states hold counts, not block ids, so before no pool was drawn and the learner read
`[7]['contiguous']['external']: values differ` with nothing to see; now the pool's parts
(used, wasted, free) and the request queues stand expected beside got.
"""

from __future__ import annotations

from pathlib import Path

from judge.grading.report import CaseResult, Report
from judge.pictures import bar_art
from judge.pictures.case_pictures import picture, summary_lines
from judge.problem.spec import load_problem
from judge.run.judge_source import judge_source
from judge.verdict import Verdict

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"


def _sched(op: str, free: int, running: list[int], waiting: list[int]) -> dict[str, object]:
    result = {"scheduled": [], "preempted": [], "finished": []}
    state = {"running": running, "waiting": waiting, "num_free_blocks": free}
    return {"op": op, "result": result, "state": state}


SCHED_ARGS = {"num_blocks": 4, "block_size": 2, "requests": [[0, 0, 3, 1], [1, 0, 3, 1]]}
SCHED_EXPECTED = [_sched("step()", 2, [0], [1]), _sched("step()", 0, [0, 1], [])]
SCHED_GOT = [SCHED_EXPECTED[0], _sched("step()", 1, [0], [1])]


def _first_failure(report: Report) -> CaseResult:
    return next(c for c in report.cases if c.public and c.verdict is not Verdict.AC)


def test_the_scheduler_bars_of_a_small_state_are_exact() -> None:
    shown = picture(SCHED_ARGS, SCHED_EXPECTED, SCHED_GOT, 1)
    assert summary_lines(shown, "en") == [
        '  after step 1 (step()), in blocks; "!" marks a part that differs:',
        "    pool",
        "      expected  [################################]  ! used 4, ! free 0;"
        " ! running [0 1]; ! waiting []; preempted []",
        "      got       [########################........]  ! used 3, ! free 1;"
        " ! running [0]; ! waiting [1]; preempted []",
        "    #: used; .: free",
    ]


def test_the_bars_speak_chinese_and_keep_their_columns() -> None:
    lines = summary_lines(picture(SCHED_ARGS, SCHED_EXPECTED, SCHED_GOT, 1), "zh")
    assert lines[0] == "  第 1 步（step()）之后，单位：块；“!” 标出不同的部分："
    # A CJK label takes two columns, so both bars start in the same column.
    assert lines[2].startswith("      期望  [####")
    assert lines[3].startswith("      实际  [####")
    assert lines[4] == "    #: 已用; .: 空闲"


def test_a_scheduler_trail_keeps_every_step_up_to_the_difference() -> None:
    shown = bar_art.trace_trail(SCHED_ARGS, SCHED_EXPECTED, SCHED_GOT, 1)
    assert shown is not None
    assert (shown.subject, shown.first, shown.step, len(shown.expected)) == ("scheduler", 0, 1, 2)
    assert shown.differs == ("pool.used", "pool.free", "pool.running", "pool.waiting")
    assert bar_art.BarTrail.from_dict(shown.to_dict()) == shown


def test_a_wrong_coalescing_shows_external_waste_the_reference_does_not_have() -> None:
    source = (PROBLEMS / "fragmentation/solutions/wrong/no_coalesce.py").read_text()
    failed = _first_failure(judge_source(load_problem(PROBLEMS / "fragmentation"), source))
    assert failed.name == "external-waste" and failed.input is not None
    assert summary_lines(failed.input.picture, "en") == [
        '  after step 7 (finish id=2), in token slots; "!" marks a part that differs:',
        "    contiguous",
        "      expected  [#+++++++........................]  used 10, internal waste 54,"
        " ! external waste 0, ! largest hole 192",
        "      got       [#+++++++~~~~~~~~~~~~~~~~........]  used 10, internal waste 54,"
        " ! external waste 128, ! largest hole 64",
        "    paged",
        "      expected  [#####+..........................]  used 40, internal waste 8, free 208",
        "      got       [#####+..........................]  used 40, internal waste 8, free 208",
        "    #: used; +: internal waste; ~: external waste; .: largest hole; .: free",
    ]


def test_a_kv_size_that_forgets_gqa_stands_beside_the_k_and_v_it_should_be() -> None:
    source = (PROBLEMS / "kv-bytes-per-token/solutions/wrong/forgets_gqa.py").read_text()
    report = judge_source(load_problem(PROBLEMS / "kv-bytes-per-token"), source)
    failed = _first_failure(report)
    assert failed.name == "qwen3-0.6b-bf16" and failed.input is not None
    assert summary_lines(failed.input.picture, "en") == [
        '  in bytes per token; "!" marks a part that differs:',
        "    KV per token",
        "      expected  [KKKKKKKKVVVVVVVV                ]  K (keys) 57344, V (values) 57344"
        " = total 114688",
        "      got       [================================]  ! total 229376",
        "    28 layers x 2 (K + V) x 8 KV heads x 128 head dim x 2 bytes = 114688",
        "    K: K (keys); V: V (values); =: total",
    ]
    again = _first_failure(Report.from_dict(report.to_dict()))
    assert again.input is not None and again.input.picture == failed.input.picture


def test_the_expected_kv_bar_writes_its_total_beside_the_got_total() -> None:
    """Pins the issue "kv-bytes' expected bar has no total": the expected row listed K and
    V alone, so its total had to be read from the formula line under the bars."""
    config = {"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 8}
    shown = bar_art.kv_bytes({"config": config, "kv_dtype": "fp8"}, 32, 40)
    assert shown is not None
    en, zh = (bar_art.art_lines(shown.to_dict(), lang) for lang in ("en", "zh"))
    assert en[2].endswith("K (keys) 16, V (values) 16 = total 32")
    assert en[3].endswith("! total 40")  # the got side is a total already: written once
    assert zh[2].endswith("K（键） 16, V（值） 16 = 总计 32")


def test_an_mla_config_splits_into_latent_and_rope() -> None:
    args = {"config": {"num_hidden_layers": 2, "kv_lora_rank": 4, "qk_rope_head_dim": 2}}
    shown = bar_art.kv_bytes({**args, "kv_dtype": "fp8"}, 12, 24)
    assert shown is not None
    assert shown.expected[0][0].parts == (("latent", 8), ("rope", 4))
    lines = bar_art.art_lines(shown.to_dict(), "en")
    assert lines[-2] == "    2 layers x (4 latent + 2 rope) x 1 bytes = 12"


def test_what_a_submission_returns_never_breaks_the_bars() -> None:
    broken = [SCHED_EXPECTED[0], {"op": "step()", "state": {"num_free_blocks": -1}}]
    assert picture(SCHED_ARGS, SCHED_EXPECTED, broken, 1) is None
    assert picture(SCHED_ARGS, SCHED_EXPECTED, SCHED_GOT[:1], 1) is None
    frag = {"pool_tokens": 64, "block_size": 16, "events": []}
    assert picture(frag, [{"op": "x", "paged": {}}], [{"op": "x"}], 0) is None
    kv = {"config": {"num_hidden_layers": 1, "num_attention_heads": 1, "hidden_size": 2}}
    for got in (None, 1.5, True, -4, "8"):
        assert picture({**kv, "kv_dtype": "fp8"}, 4, got, None) is None
    assert picture({**kv, "kv_dtype": "int3"}, 4, 8, None) is None
    assert summary_lines({"kind": "bars", "step": "x"}, "en") == []
