"""The capstone's stages (serve-static, serve-continuous, serve-paged, then serve-engine):
each stage's public traces need what its statement says that stage adds, each stage's
reference decodes every request as if alone, each stage's reference fails the next stage
for the reason that stage's statement gives, and hidden seeds draw fresh traces."""

from __future__ import annotations

import itertools
import random
from types import SimpleNamespace
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from judge.problem.cases import load_module  # noqa: E402
from judge.problem.problemset import ProblemSet  # noqa: E402
from mini_llm import zoo  # noqa: E402
from mini_llm.generation import generate  # noqa: E402
from mini_llm.pool_runner import PoolRunner  # noqa: E402
from mini_llm.serving_trace import replay  # noqa: E402

STAGES = ["serve-static", "serve-continuous", "serve-paged", "serve-engine"]
SET = ProblemSet()


def _load(slug: str) -> tuple[Any, Any, dict[str, dict]]:
    problem = SET.get(slug)
    cases = load_module(problem.cases_source(), "cases", str(problem.path / "cases.py"))
    reference = load_module(problem.reference_source(), "reference", str(problem.path))
    return cases, reference, {c["name"]: c["args"] for c in cases.public_cases()}


# Loaded once: building a public case draws its near ties away with the model.
LOADED = {slug: _load(slug) for slug in STAGES[:3]}
ENGINE = {slug: LOADED[slug][1].Engine for slug in LOADED}
PUBLIC = {slug: LOADED[slug][2] for slug in LOADED}


def blocks_needed(request: dict, block_size: int) -> int:
    return -(-(len(request["prompt"]) + request["max_new_tokens"]) // block_size)


def alone(args: dict) -> list[list[int]]:
    model = zoo.model(args["model"])
    return [
        generate(model, [r["prompt"]], r["max_new_tokens"], stop_tokens=())[0]
        for r in args["requests"]
    ]


def replayed(engine_class: type, args: dict) -> dict:
    runner = PoolRunner(
        zoo.model(args["model"]),
        args["num_blocks"],
        args["block_size"],
        args["max_tokens_per_step"],
    )
    return replay(engine_class(runner), runner, args)


def test_the_stages_are_the_capstone_problems_in_order_with_serve_engine_last() -> None:
    tagged = [p.slug for p in SET.all() if "capstone" in p.tags]
    assert tagged == STAGES


@pytest.mark.parametrize("slug", STAGES[:3])
def test_each_stage_statement_names_its_place_in_the_path(slug: str) -> None:
    """What it builds on and where it leads: every stage names the four stages' problems."""
    problem = SET.get(slug)
    for lang in ("en", "zh"):
        text = problem.statement(lang)
        assert all(f"`{other}`" in text for other in STAGES if other != slug), (slug, lang)


def test_stage_1_traces_come_in_waves_that_the_budget_and_the_pool_hold() -> None:
    for name, args in PUBLIC["serve-static"].items():
        requests, bs = args["requests"], args["block_size"]
        waves: dict[int, list[dict]] = {}
        for r in requests:
            waves.setdefault(r["arrival"], []).append(r)
        starts = sorted(waves)
        for earlier, later in itertools.pairwise(starts):
            longest = max(r["max_new_tokens"] for r in waves[earlier])
            assert later >= earlier + longest, f"{name}: a wave arrives while one still runs"
        for wave in waves.values():
            assert sum(len(r["prompt"]) for r in wave) <= args["max_tokens_per_step"], name
        assert sum(blocks_needed(r, bs) for r in requests) <= args["num_blocks"], name
    assert len({r["arrival"] for r in PUBLIC["serve-static"]["two-waves"]["requests"]}) == 2


def test_stage_2_traces_arrive_staggered_with_prompts_longer_than_the_budget() -> None:
    traces = PUBLIC["serve-continuous"]
    for name, args in traces.items():
        need = sum(blocks_needed(r, args["block_size"]) for r in args["requests"])
        assert need <= args["num_blocks"], f"{name}: stage 2's pool holds everyone"
    long = traces["long-prompts-need-chunks"]
    assert all(len(r["prompt"]) > long["max_tokens_per_step"] for r in long["requests"])
    for name in ("staggered-arrivals", "one-request-a-step"):
        assert len({r["arrival"] for r in traces[name]["requests"]}) > 2, name


def test_stage_3_pools_are_smaller_than_what_the_requests_need_to_their_ends() -> None:
    for name, args in PUBLIC["serve-paged"].items():
        need = sum(blocks_needed(r, args["block_size"]) for r in args["requests"])
        assert args["num_blocks"] < need, name


@pytest.mark.parametrize(
    ("slug", "name"), [(slug, name) for slug in STAGES[:3] for name in PUBLIC[slug]]
)
def test_each_stages_reference_decodes_every_request_as_if_alone(slug: str, name: str) -> None:
    args = PUBLIC[slug][name]
    got = LOADED[slug][0].run(SimpleNamespace(Engine=ENGINE[slug]), args)
    assert (got["faults"], got["latency"]) == ([], "within the bound")
    assert got["tokens"] == alone(args)


def test_stage_1s_static_engine_misses_stage_2s_bound_on_staggered_arrivals() -> None:
    """Right tokens, but a newcomer waits for the running batch's slowest request."""
    args = PUBLIC["serve-continuous"]["staggered-arrivals"]
    got = replayed(ENGINE["serve-static"], args)
    assert got["faults"] == [] and got["tokens"] == alone(args)
    assert got["latency"].startswith("99th-percentile time to first token")
    waited = int(got["latency"].split(" token ")[1].split(" steps")[0])
    assert waited >= 2 * args["ttft_bound"], "a clear margin, not a step or two"


def test_stage_2s_engine_runs_out_of_blocks_on_stage_3s_burst() -> None:
    with pytest.raises(IndexError, match="empty deque"):
        replayed(ENGINE["serve-continuous"], PUBLIC["serve-paged"]["burst-forces-preemption"])


def test_the_last_stages_engine_passes_every_earlier_stage() -> None:
    """The stages are one path: serve-engine's reference is right on every earlier trace."""
    last = SET.get("serve-engine")
    final = load_module(last.reference_source(), "reference", str(last.path)).Engine
    for slug in STAGES[:3]:
        for name, args in PUBLIC[slug].items():
            got = LOADED[slug][0].run(SimpleNamespace(Engine=final), args)
            assert (got["faults"], got["latency"]) == ([], "within the bound"), (slug, name)
            assert got["tokens"] == alone(args), (slug, name)


@pytest.mark.parametrize("slug", STAGES[:3])
def test_hidden_seeds_draw_fresh_traces_of_the_stages_kinds(slug: str) -> None:
    cases = LOADED[slug][0]
    one, two = (cases.generated_cases(random.Random(seed)) for seed in (3, 4))
    assert [c["name"] for c in one] == [c["name"] for c in two]
    assert all(a["args"] != b["args"] for a, b in zip(one, two, strict=True))
    public = {builder for _name, builder, _seed in cases.PUBLIC}
    assert {c["name"].split("-", 2)[2] for c in one} <= public
    assert not any("timed" in c for c in one), "stages are checkpoints, not timed"
