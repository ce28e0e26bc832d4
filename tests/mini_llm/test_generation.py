"""generate(): greedy and seeded sampling, stop tokens, batching, argument checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from mini_llm import GenerationArgumentError, KVCache, Transformer, generate, sample

PROMPTS = [[5, 77, 120, 9, 300, 42, 18], [3, 14], [200, 100, 50, 25, 12]]


@pytest.fixture(scope="module")
def model(tiny_qwen3: Path) -> Transformer:
    return Transformer.from_pretrained(tiny_qwen3)


def manual_greedy(model: Transformer, prompt: list[int], n: int) -> list[int]:
    """The simplest possible loop: full recompute every step, no cache."""
    ids = torch.tensor([prompt])
    with torch.no_grad():
        for _ in range(n):
            nxt = model(ids)[:, -1].argmax(-1, keepdim=True)
            ids = torch.cat([ids, nxt], dim=1)
    return ids[0, len(prompt) :].tolist()


def test_greedy_with_cache_equals_full_recompute_loop(model: Transformer) -> None:
    assert generate(model, [PROMPTS[0]], 16, stop_tokens=())[0] == manual_greedy(
        model, PROMPTS[0], 16
    )


def test_batched_prompts_of_different_lengths_equal_each_alone(model: Transformer) -> None:
    alone = [generate(model, [p], 12, stop_tokens=())[0] for p in PROMPTS]
    together = generate(model, PROMPTS, 12, stop_tokens=())
    assert together == alone


def test_batched_sampling_with_equal_lengths_is_seeded(model: Transformer) -> None:
    prompts = [PROMPTS[0], PROMPTS[0][::-1]]
    args: dict[str, Any] = {"temperature": 1.0, "top_k": 50, "top_p": 0.9, "stop_tokens": ()}
    first = generate(model, prompts, 10, seed=123, **args)
    assert generate(model, prompts, 10, seed=123, **args) == first
    assert generate(model, prompts, 10, seed=124, **args) != first


def test_top_k_one_is_greedy(model: Transformer) -> None:
    greedy = generate(model, [PROMPTS[2]], 10, stop_tokens=())
    assert (
        generate(model, [PROMPTS[2]], 10, temperature=0.7, top_k=1, seed=0, stop_tokens=())
        == greedy
    )


def test_tiny_top_p_is_greedy(model: Transformer) -> None:
    greedy = generate(model, [PROMPTS[1]], 10, stop_tokens=())
    assert (
        generate(model, [PROMPTS[1]], 10, temperature=1.5, top_p=1e-6, seed=5, stop_tokens=())
        == greedy
    )


def test_generation_stops_at_a_stop_token_and_keeps_it(model: Transformer) -> None:
    free = generate(model, [PROMPTS[0]], 12, stop_tokens=())[0]
    stop = free[4]
    first = free.index(stop)
    assert generate(model, [PROMPTS[0]], 12, stop_tokens=[stop])[0] == free[: first + 1]


def test_a_finished_row_stops_while_others_continue(model: Transformer) -> None:
    free = generate(model, PROMPTS[:2], 10, stop_tokens=())
    stop = free[0][2]
    if stop in free[1]:
        pytest.skip("token also appears in the other row; the seeded model makes this unlikely")
    out = generate(model, PROMPTS[:2], 10, stop_tokens=[stop])
    assert out[0] == free[0][: free[0].index(stop) + 1]
    assert out[1] == free[1]


def test_max_new_tokens_bounds_the_output(model: Transformer) -> None:
    assert [len(o) for o in generate(model, PROMPTS, 3, stop_tokens=())] == [3, 3, 3]
    assert generate(model, PROMPTS, 0) == [[], [], []]


def test_prompt_tensor_is_accepted(model: Transformer) -> None:
    as_list = generate(model, [PROMPTS[0]], 5, stop_tokens=())
    assert generate(model, torch.tensor(PROMPTS[0]), 5, stop_tokens=()) == as_list


def test_sampled_tokens_stay_in_the_top_k() -> None:
    logits = torch.randn(4, 50)
    allowed = logits.topk(5, dim=-1).indices
    gen = torch.Generator().manual_seed(0)
    for _ in range(20):
        token = sample(logits, temperature=2.0, top_k=5, generator=gen)
        assert (allowed == token[:, None]).any(-1).all()


def test_top_p_keeps_the_smallest_set_reaching_p() -> None:
    logits = torch.log(torch.tensor([[0.5, 0.3, 0.15, 0.05]]))
    gen = torch.Generator().manual_seed(0)
    seen = {int(sample(logits, 1.0, top_p=0.7, generator=gen)) for _ in range(200)}
    assert seen == {0, 1}


def test_handbook_style_decode_loop_matches_generate(model: Transformer) -> None:
    cache = KVCache(model.cfg.num_hidden_layers)
    with torch.no_grad():
        nxt = model(torch.tensor([PROMPTS[0]]), cache)[:, -1].argmax(-1)
        tokens = [int(nxt)]
        for _ in range(7):
            nxt = model(nxt[:, None], cache)[:, -1].argmax(-1)
            tokens.append(int(nxt))
    assert tokens == generate(model, [PROMPTS[0]], 8, stop_tokens=())[0]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"temperature": -1.0}, "temperature"),
        ({"temperature": float("nan")}, "temperature"),
        ({"top_k": -3}, "top_k"),
        ({"top_k": 2.5}, "top_k"),
        ({"top_p": 0.0}, "top_p"),
        ({"top_p": 1.5}, "top_p"),
        ({"max_new_tokens": -1}, "max_new_tokens"),
        ({"prompts": []}, "empty"),
        ({"prompts": [[1, 2], []]}, "prompt 1 is empty"),
        ({"prompts": [[1, 384]]}, "384"),
        ({"prompts": [[1, -2]]}, "-2"),
    ],
)
def test_bad_generate_arguments_are_refused(
    model: Transformer, kwargs: dict[str, Any], message: str
) -> None:
    call: dict[str, Any] = {"prompts": [[1, 2, 3]], "max_new_tokens": 4} | kwargs
    with pytest.raises(GenerationArgumentError, match=message):
        generate(model, **call)
