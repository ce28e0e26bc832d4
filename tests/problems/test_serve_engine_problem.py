"""serve-engine: the runner refuses what cannot be computed and records what was computed
wrongly; the driver checks every reported token; the public traces need what their names
say; and the reference's tokens are every request decoded alone."""

from __future__ import annotations

import random
import re
from types import SimpleNamespace
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from judge.problem.cases import load_module  # noqa: E402
from judge.problem.problemset import ProblemSet  # noqa: E402
from mini_llm import serving_trace as TRACE  # noqa: E402
from mini_llm import zoo  # noqa: E402
from mini_llm.generation import generate  # noqa: E402
from mini_llm.pool_runner import PoolError, PoolRunner  # noqa: E402

PROBLEM = ProblemSet().get("serve-engine")
CASES = load_module(PROBLEM.cases_source(), "cases", str(PROBLEM.path / "cases.py"))
REFERENCE = load_module(PROBLEM.reference_source(), "reference", str(PROBLEM.path))
ONE_FORWARD = load_module(
    (PROBLEM.path / "solutions" / "accepted" / "one_forward_per_chunk.py").read_text(),
    "one_forward_per_chunk",
    str(PROBLEM.path),
)
SWAPPING = load_module(
    (PROBLEM.path / "solutions" / "accepted" / "swap_preemption.py").read_text(),
    "swap_preemption",
    str(PROBLEM.path),
)
PUBLIC = {case["name"]: case["args"] for case in CASES.public_cases()}
PROMPT = [5, 6, 7, 8, 9, 10, 11, 12]  # two full blocks of 4


def runner(num_blocks: int = 8, budget: int = 64) -> PoolRunner:
    return PoolRunner(zoo.model("qwen3-gqa"), num_blocks, 4, budget)


def in_step(pool: PoolRunner, chunks: list[Any]) -> list[int]:
    pool.begin_step()
    try:
        return pool.forward(chunks)
    finally:
        pool.end_step()


def alone(args: dict) -> list[list[int]]:
    model = zoo.model(args["model"])
    return [
        generate(model, [r["prompt"]], r["max_new_tokens"], stop_tokens=())[0]
        for r in args["requests"]
    ]


# ---------------------------------------------------------------- the runner


def test_a_chunk_gives_the_greedy_next_token_of_its_sequence() -> None:
    pool = runner()
    (token,) = in_step(pool, [(0, PROMPT, 0, [3, 1])])
    (expected,) = generate(zoo.model("qwen3-gqa"), [PROMPT], 1, stop_tokens=())
    assert [token] == expected
    assert pool.faults == []


def test_a_prompt_prefilled_in_chunks_then_decoded_equals_it_decoded_alone() -> None:
    pool = runner()
    table = [2, 0, 5]
    in_step(pool, [(0, PROMPT[:3], 0, table)])  # a chunk inside the prompt
    (first,) = in_step(pool, [(0, PROMPT[3:], 3, table)])
    (second,) = in_step(pool, [(0, [first], 8, table)])
    (expected,) = generate(zoo.model("qwen3-gqa"), [PROMPT], 2, stop_tokens=())
    assert [first, second] == expected and pool.faults == []


def test_a_block_outside_the_pool_is_refused_by_number() -> None:
    with pytest.raises(PoolError, match=r"block 8 is outside the pool \(blocks 0\.\.7\)"):
        in_step(runner(), [(0, PROMPT, 0, [0, 8])])


def test_a_table_too_short_for_its_chunk_is_refused() -> None:
    with pytest.raises(PoolError, match="need 2 blocks of 4, the table names 1"):
        in_step(runner(), [(0, PROMPT, 0, [0])])


def test_more_tokens_in_a_step_than_its_budget_is_refused() -> None:
    pool = runner(budget=10)
    pool.begin_step()
    pool.forward([(0, PROMPT, 0, [0, 1])])
    with pytest.raises(PoolError, match="this step would process 11 tokens, over its budget of 10"):
        pool.forward([(1, [1, 2, 3], 0, [2])])


def test_a_table_that_names_a_block_twice_is_refused() -> None:
    """A block freed twice and handed out twice: the chunk would overwrite, then read, its
    own earlier positions (a review found such a chunk passing when its token survived)."""
    with pytest.raises(PoolError, match="the block table names block 1 twice"):
        in_step(runner(), [(0, PROMPT, 0, [1, 1])])


def test_forward_outside_a_step_is_refused() -> None:
    with pytest.raises(PoolError, match="from inside the engine's step"):
        runner().forward([(0, PROMPT, 0, [0, 1])])


@pytest.mark.parametrize(
    "chunks",
    [[], [(0, [], 0, [0])], [(0, [1024], 0, [0])], [(0, [1], -1, [0])], [(0, [1], 0, ["a"])]],
    ids=["no-chunks", "no-tokens", "token-past-vocab", "negative-start", "table-not-ints"],
)
def test_malformed_chunks_are_refused_with_a_message(chunks: list[Any]) -> None:
    with pytest.raises(PoolError):
        in_step(runner(), chunks)


def test_sharing_a_full_block_another_request_computed_is_no_fault() -> None:
    pool = runner()
    in_step(pool, [(0, PROMPT, 0, [0, 1])])
    # Request 1 has the same first block: it points at block 0 and computes the rest.
    other = [*PROMPT[:4], 40, 41, 42]
    (token,) = in_step(pool, [(1, other[4:], 4, [0, 2])])
    (expected,) = generate(zoo.model("qwen3-gqa"), [other], 1, stop_tokens=())
    assert [token] == expected and pool.faults == []


def swap(pool: PoolRunner, call: str, pairs: list[Any]) -> None:
    pool.begin_step()
    try:
        getattr(pool, call)(pairs)
    finally:
        pool.end_step()


def test_a_request_swapped_out_and_back_into_other_blocks_decodes_as_if_never_moved() -> None:
    pool = PoolRunner(zoo.model("qwen3-gqa"), 4, 4, 64, host_blocks=2)
    (first,) = in_step(pool, [(0, PROMPT, 0, [0, 1])])
    swap(pool, "swap_out", [(0, 1), (1, 0)])
    in_step(pool, [(1, [90, 91, 92, 93, 94, 95, 96, 97], 0, [0, 1])])  # the pool reused
    swap(pool, "swap_in", [(1, 2), (0, 3)])
    (second,) = in_step(pool, [(0, [first], 8, [2, 3, 0])])
    assert generate(zoo.model("qwen3-gqa"), [PROMPT], 2, stop_tokens=())[0] == [first, second]
    assert pool.faults == []


def test_swapping_in_a_host_block_that_holds_another_requests_kv_is_a_fault() -> None:
    pool = PoolRunner(zoo.model("qwen3-gqa"), 4, 4, 64, host_blocks=2)
    in_step(pool, [(0, PROMPT, 0, [0, 1]), (1, [90, 91, 92, 93], 0, [2])])
    swap(pool, "swap_out", [(2, 0)])  # request 1's block where request 0's first should go
    swap(pool, "swap_in", [(0, 0)])
    in_step(pool, [(0, [77], 8, [0, 1, 3])])
    # Block 0 holds a whole prefix of its own, so the chain breaks where block 1 follows it.
    assert len(pool.faults) == 1 and "request 0 reads position 4" in pool.faults[0]


@pytest.mark.parametrize(
    ("call", "pairs", "why"),
    [
        ("swap_out", [(0, 5)], "blocks are 0..3 (from) and 0..1 (to)"),
        ("swap_in", [(2, 0)], "blocks are 0..1 (from) and 0..3 (to)"),
        ("swap_out", [(0, 1), (1, 1)], "written twice"),
        ("swap_out", [(0, True)], "a pair is (from_block, to_block)"),
        ("swap_in", "01", "a list of (from, to) block pairs"),
    ],
)
def test_a_swap_outside_its_blocks_or_malformed_is_refused(call: str, pairs: Any, why: str) -> None:
    pool = PoolRunner(zoo.model("qwen3-gqa"), 4, 4, 64, host_blocks=2)
    with pytest.raises(PoolError, match=re.escape(why)):
        swap(pool, call, pairs)


def test_a_swap_outside_a_step_or_with_no_host_blocks_is_refused() -> None:
    with pytest.raises(PoolError, match="inside the engine's step"):
        PoolRunner(zoo.model("qwen3-gqa"), 4, 4, 64, host_blocks=2).swap_out([(0, 0)])
    with pytest.raises(PoolError, match="no host blocks"):
        swap(runner(), "swap_out", [(0, 0)])


def test_every_trace_offers_a_swap_space_as_large_as_its_pool() -> None:
    assert all(a["host_blocks"] == a["num_blocks"] for a in PUBLIC.values())


def test_an_engine_that_preempts_by_swapping_answers_as_the_reference_without_recomputing() -> None:
    args = PUBLIC["long-request-among-short-ones"]
    mine = CASES.run(SimpleNamespace(Engine=SWAPPING.Engine), args)
    reference = CASES.run(SimpleNamespace(Engine=REFERENCE.Engine), args)
    assert mine["faults"] == [] and mine["tokens"] == reference["tokens"] == alone(args)
    assert "R" not in "".join(mine["timeline"]["rows"])
    assert "R" in "".join(reference["timeline"]["rows"])


def test_reading_a_block_that_another_request_overwrote_is_a_fault() -> None:
    pool = runner()
    in_step(pool, [(0, PROMPT, 0, [0, 1])])
    in_step(pool, [(1, [90, 91, 92, 93], 0, [1])])  # block 1 handed out again, overwritten
    in_step(pool, [(0, [77], 8, [0, 1, 2])])
    assert len(pool.faults) == 1
    assert "step 2: request 0 reads position 4 from block 1" in pool.faults[0]


def test_two_requests_writing_one_slot_in_one_call_is_a_fault() -> None:
    pool = runner()
    in_step(pool, [(0, [1, 2], 0, [3]), (1, [4, 5], 0, [3])])
    assert "requests 0 and 1 write the same slot (block 3)" in pool.faults[0]


# ---------------------------------------------------------------- the driver


class Liar(REFERENCE.Engine):  # type: ignore[name-defined,misc]
    """The reference, except that it reports request 0's second token as another one."""

    told = 0

    def step(self):  # type: ignore[no-untyped-def]
        produced, finished = super().step()
        if 0 in produced:
            self.told += 1
            if self.told == 2:
                produced[0] = (produced[0] + 1) % 1024
        return produced, finished


class EndsEarly(REFERENCE.Engine):  # type: ignore[name-defined,misc]
    def step(self):  # type: ignore[no-untyped-def]
        produced, finished = super().step()
        return produced, sorted(set(finished) | set(produced))


def test_the_reference_runs_every_public_trace_without_a_fault() -> None:
    for name, args in PUBLIC.items():
        got = CASES.run(SimpleNamespace(Engine=REFERENCE.Engine), args)
        assert (got["faults"], got["latency"]) == ([], "within the bound"), name


def test_a_reported_token_the_runner_did_not_compute_is_a_fault() -> None:
    got = CASES.run(SimpleNamespace(Engine=Liar), PUBLIC["one-request"])
    (fault,) = got["faults"]
    assert fault.startswith("step 1: request 0's token 1 (")
    assert (
        "is not what the runner computed at that position from this request's own prompt and "
        "tokens / 第 1 步：请求 0 的第 1 个 token"
    ) in fault


def test_a_request_reported_finished_before_its_last_token_is_a_fault() -> None:
    got = CASES.run(SimpleNamespace(Engine=EndsEarly), PUBLIC["one-request"])
    (fault,) = got["faults"]
    assert fault.startswith("step 0: request 0 is reported finished with 1 tokens / 第 0 步：")


@pytest.mark.parametrize("odd", [True, 1.0, "7"], ids=["bool", "float", "str"])
def test_a_token_that_is_no_python_int_is_a_fault_that_says_so(odd: object) -> None:
    class Odd(REFERENCE.Engine):  # type: ignore[name-defined,misc]
        def step(self):  # type: ignore[no-untyped-def]
            produced, finished = super().step()
            return {rid: odd for rid in produced}, finished

    got = CASES.run(SimpleNamespace(Engine=Odd), PUBLIC["one-request"])
    (fault,) = got["faults"]
    assert "ids and tokens must be Python ints" in fault and "必须是 Python int" in fault


def test_every_trace_numbers_its_requests_in_arrival_order() -> None:
    traces = list(PUBLIC.values()) + [c["args"] for c in CASES.generated_cases(random.Random(2))]
    for args in traces:
        arrivals = [r["arrival"] for r in args["requests"]]
        assert arrivals == sorted(arrivals)


def test_an_engine_that_never_finishes_is_stopped_with_a_fault() -> None:
    class Idle:
        def __init__(self, runner: PoolRunner) -> None:
            pass

        def add_request(self, *args: object) -> None:
            pass

        def step(self) -> tuple[dict, list]:
            return {}, []

    got = CASES.run(SimpleNamespace(Engine=Idle), PUBLIC["one-request"])
    assert len(got["faults"]) == 1 and "requests [0] have not finished" in got["faults"][0]


# ---------------------------------------------------------------- the traces


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_the_reference_equals_every_request_decoded_alone(name: str) -> None:
    args = PUBLIC[name]
    got = CASES.run(SimpleNamespace(Engine=REFERENCE.Engine), args)
    assert got["tokens"] == alone(args)


def test_a_hidden_trace_of_every_kind_is_decoded_as_each_request_alone() -> None:
    for case in CASES.generated_cases(random.Random(987654321)):
        got = CASES.run(SimpleNamespace(Engine=REFERENCE.Engine), case["args"])
        assert got["faults"] == [] and got["tokens"] == alone(case["args"]), case["name"]


def replayed(name: str) -> PoolRunner:
    """The reference's runner after replaying the public trace `name`."""
    args = PUBLIC[name]
    pool = PoolRunner(
        zoo.model(args["model"]),
        args["num_blocks"],
        args["block_size"],
        args["max_tokens_per_step"],
    )
    TRACE.replay(REFERENCE.Engine(pool), pool, args)
    return pool


def test_the_public_traces_need_what_their_names_say() -> None:
    prompts = {n: [len(r["prompt"]) for r in a["requests"]] for n, a in PUBLIC.items()}
    budget = PUBLIC["long-prompts-need-chunks"]["max_tokens_per_step"]
    assert all(p > budget for p in prompts["long-prompts-need-chunks"][:1])
    records = [r for step in replayed("burst-forces-preemption").steps for r in step]
    starts: dict[int, list[int]] = {}
    for record in records:
        starts.setdefault(record.request, []).append(record.start)
    assert any(s.count(0) > 1 for s in starts.values()), "no request was preempted"
    shared = replayed("shared-prefix").steps
    firsts: dict[int, int] = {}
    for step in shared:
        for record in step:
            firsts.setdefault(record.request, record.start)
    assert sum(start > 0 for start in firsts.values()) >= 3, "later requests share no prefix"


def test_every_timed_trace_is_the_same_work_and_declares_it() -> None:
    timed = [c for c in CASES.generated_cases(random.Random(5)) if "timed" in c]
    assert len(timed) == CASES.REPETITIONS
    weights = sum(p.numel() for p in zoo.model(TRACE.TIMED_MODEL).parameters())
    lm_head = zoo.model(TRACE.TIMED_MODEL).lm_head.weight.numel()  # tied: a second copy
    assert TRACE.TIMED_WEIGHTS in (weights, weights - lm_head)
    shapes = set()
    for case in timed:
        requests = case["args"]["requests"]
        tokens = sum(r["max_new_tokens"] for r in requests)
        assert case["timed"] == {
            "work": tokens,
            "min_bytes": TRACE.TIMED_NEW_TOKENS * TRACE.TIMED_WEIGHTS,
        }
        shapes.add(tuple(sorted(len(r["prompt"]) for r in requests)))
    assert len(shapes) == 1


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_the_bound_is_the_reference_engines_own_time_to_first_token(name: str) -> None:
    """The parent replays the reference's schedule without the model: the same steps as the
    real replay gives, which this checks by replaying it for real."""
    args = PUBLIC[name]
    pool = replayed(name)
    first: dict[int, int] = {}
    for step, records in enumerate(pool.steps):
        for record in records:
            request = args["requests"][record.request]
            if (
                record.start + record.length == len(request["prompt"])
                and record.request not in first
            ):
                first[record.request] = step
    waits = sorted(first[i] - r["arrival"] + 1 for i, r in enumerate(args["requests"]))
    p99 = waits[max(0, -(-99 * len(waits) // 100) - 1)]
    assert args["ttft_bound"] == TRACE.BOUND_FACTOR * p99 + TRACE.BOUND_SLACK


def test_the_timeline_shows_chunks_decodes_waits_and_recomputation_step_by_step() -> None:
    """The picture's data (issue 25): one letter per request and step, from the runner's
    records; the blocks held never exceed the pool."""
    chunked = CASES.run(
        SimpleNamespace(Engine=REFERENCE.Engine), PUBLIC["long-prompts-need-chunks"]
    )
    line = chunked["timeline"]
    assert line["pool"] == PUBLIC["long-prompts-need-chunks"]["num_blocks"]
    assert {len(row) for row in line["rows"]} == {len(line["blocks"])} == {line["steps"]}
    first = line["rows"][0]
    assert first.startswith("PP"), "a prompt over the budget takes several prefill chunks"
    assert first.rstrip().endswith("D") and set(first.strip()) <= {"P", "D", "."}
    assert "." in "".join(line["rows"]), "a request that arrived and did not run waits"
    burst = CASES.run(SimpleNamespace(Engine=REFERENCE.Engine), PUBLIC["burst-forces-preemption"])
    assert "R" in "".join(burst["timeline"]["rows"]), "a preempted request is recomputed"
    assert max(burst["timeline"]["blocks"]) <= burst["timeline"]["pool"]
    # Two correct engines schedule differently; the checker compares all but the timeline.
    other = CASES.run(SimpleNamespace(Engine=ONE_FORWARD.Engine), PUBLIC["burst-forces-preemption"])
    assert {k: v for k, v in other.items() if k != "timeline"} == {
        k: v for k, v in burst.items() if k != "timeline"
    }
    assert PROBLEM.checker.unchecked == ("timeline",)
