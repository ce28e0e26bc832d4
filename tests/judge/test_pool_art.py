"""A failing paging case carries a picture of its block pool, and `judge run` draws it as
text art (issue 12, section 2).

Before, a learner read `[2]['state']['free_blocks'][0]: values differ` and had to rebuild
the pool in their head from three JSON lists; now the report holds every block's owners,
references, cache mark and place in the free queue, expected beside got.
"""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path

from judge.commands.cli import main
from judge.grading.report import CaseResult, Report
from judge.pictures import pool_art
from judge.pictures.case_pictures import picture, summary_lines
from judge.problem.spec import load_problem
from judge.run.judge_source import judge_source
from judge.verdict import Verdict

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"


def _step(op: str, table: list[int], free: list[int], **more: object) -> dict[str, object]:
    return {"op": op, "result": True, "state": {"block_table": table, "free_blocks": free, **more}}


# Two sequences of one block each, then sequence 0 frees: the reference puts its block at
# the tail of the queue, the mistake at the head.
ARGS = {"num_blocks": 4, "block_size": 2, "ops": [["append", 0, 1], ["append", 1, 1], ["free", 0]]}
EXPECTED = [
    _step("append(seq_id=0, n=1)", [0], [1, 2, 3]),
    _step("append(seq_id=1, n=1)", [1], [2, 3]),
    _step("free(seq_id=0)", [], [2, 3, 0]),
]
GOT = [*EXPECTED[:2], _step("free(seq_id=0)", [], [0, 2, 3])]


def _first_failure(report: Report) -> CaseResult:
    return next(c for c in report.cases if c.verdict not in (Verdict.AC, None))


def test_the_pool_art_of_a_small_state_is_exact() -> None:
    shown = picture(ARGS, EXPECTED, GOT, 2)
    assert summary_lines(shown, "en") == [
        '  block pool after step 2 (free(seq_id=0)); "!" marks a block that differs:',
        "    block          #0     #1     #2     #3",
        "    expected    ! f@2     s1  ! f@0  ! f@1",
        "    got         ! f@0     s1  ! f@1  ! f@2",
        "    free queue, head first: expected [2 3 0]; got [0 2 3]",
        "    sN: held by sequence N; xK: K references; c: cached; f@I: I-th in the free queue",
    ]


def test_the_pool_art_speaks_chinese_and_keeps_its_columns() -> None:
    lines = summary_lines(picture(ARGS, EXPECTED, GOT, 2), "zh")
    assert lines[0] == "  第 2 步（free(seq_id=0)）之后的块池；“!” 标出不同的块："
    # A CJK label takes two columns, so the cells still line up under the block ids.
    assert lines[1] == "    块         #0     #1     #2     #3"
    assert lines[2] == "    期望    ! f@2     s1  ! f@0  ! f@1"


def test_owners_come_from_earlier_steps_and_every_step_up_to_the_difference_is_kept() -> None:
    shown = pool_art.trail(ARGS, EXPECTED, GOT, 2)
    assert shown is not None
    assert (shown.first, shown.step, shown.differs) == (0, 2, (0, 2, 3))
    # Step 1 touched sequence 1 only; block 0 is still sequence 0's, from step 0.
    assert shown.expected[1].blocks[0].owners == (0,)
    assert shown.expected[1].blocks[1].owners == (1,)
    assert shown.ops == tuple(step["op"] for step in EXPECTED)
    assert pool_art.PoolTrail.from_dict(shown.to_dict()) == shown


def test_a_long_trace_carries_only_the_last_frames_before_the_difference() -> None:
    ops = [_step(f"append(seq_id={i % 3}, n=1)", [], [0, 1]) for i in range(30)]
    shown = pool_art.trail({"num_blocks": 2}, ops, ops, 29)
    assert shown is not None
    assert shown.first == 30 - pool_art.MAX_FRAMES
    assert len(shown.expected) == len(shown.ops) == pool_art.MAX_FRAMES


def test_shared_and_cached_blocks_show_their_references_and_mark() -> None:
    expected = [
        _step("allocate(req_id=0, tokens=[1, 2], extra=None)", [0], [1], ref_counts=[1, 0]),
        {
            **_step("allocate(req_id=1, tokens=[1, 2, 3], extra=None)", [0, 1], []),
            "state": {
                "block_table": [0, 1],
                "free_blocks": [],
                "ref_counts": [2, 1],
                "cached_blocks": [0],
            },
        },
    ]
    shown = pool_art.trail({"num_blocks": 2}, expected, expected, 1)
    assert shown is not None
    assert [b.label() for b in shown.expected[-1].blocks] == ["s0+1 c", "s1"]
    assert shown.differs == ()
    # A count that disagrees with the owners is written out: that is the bug to see.
    assert pool_art.Block((0,), 2).label() == "s0 x2"


def test_states_too_incomplete_for_any_picture_get_none() -> None:
    """Scheduler and fragmentation states get bars (test_bar_art.py) only when the case
    carries what the bars need; these carry neither block ids nor those fields."""
    scheduler = [{"op": "step()", "result": {}, "state": {"running": [0], "num_free_blocks": 3}}]
    assert picture({"num_blocks": 8}, scheduler, scheduler, 0) is None
    fragmentation = [{"op": "finish id=1", "paged": {"free_blocks": 3}}]
    assert picture({"pool_tokens": 64}, fragmentation, fragmentation, 0) is None


def test_a_got_state_that_is_not_a_pool_gives_no_picture_and_no_error() -> None:
    broken = [*EXPECTED[:2], {"op": "free(seq_id=0)", "result": [], "state": {"free_blocks": "x"}}]
    assert picture(ARGS, EXPECTED, broken, 2) is None
    assert picture(ARGS, EXPECTED, EXPECTED[:2], 2) is None
    assert picture({**ARGS, "num_blocks": 10**6}, EXPECTED, GOT, 2) is None
    assert summary_lines({"kind": "pool", "step": "x"}, "en") == []


def test_a_wrong_block_table_solution_reports_its_pool_and_survives_the_round_trip() -> None:
    problem = load_problem(PROBLEMS / "block-table")
    wrong = (PROBLEMS / "block-table/solutions/wrong/free_first_block_first.py").read_text()
    report = judge_source(problem, wrong, seed=987654321)  # a secret seed: hidden cases too
    failed = _first_failure(report)
    assert failed.input is not None and type(failed.input.picture) is dict
    assert failed.input.picture["kind"] == "pool"
    assert failed.input.picture["differs"]
    again = _first_failure(Report.from_dict(report.to_dict()))
    assert again.input is not None and again.input.picture == failed.input.picture
    hidden = [c for c in report.cases if not c.public]
    assert hidden and all(c.input is None for c in hidden)


def test_judge_run_prints_the_pool_under_the_failing_case() -> None:
    wrong = PROBLEMS / "block-table/solutions/wrong/free_first_block_first.py"
    out = io.StringIO()
    with redirect_stdout(out):
        main(["--problems", str(PROBLEMS), "run", "block-table", str(wrong), "--lang", "en"])
    text = out.getvalue()
    assert "block pool after step 2 (free(seq_id=1))" in text
    assert "    expected    ! f@4    f@3  ! f@2     s2    f@0    f@1" in text
