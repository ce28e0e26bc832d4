"""With a KV cache, step-by-step logits equal a full recompute (the handbook's check)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from mini_llm import CacheError, KVCache, Transformer


@pytest.fixture(scope="module")
def model(tiny_qwen3: Path) -> Transformer:
    return Transformer.from_pretrained(tiny_qwen3)


def run_chunks(
    model: Transformer, ids: torch.Tensor, chunks: list[int], cache: KVCache
) -> torch.Tensor:
    outs, start = [], 0
    for size in chunks:
        outs.append(model(ids[:, start : start + size], cache))
        start += size
    return torch.cat(outs, dim=1)


@pytest.mark.parametrize("batch", [1, 3])
def test_prefill_then_decode_equals_full_recompute(model: Transformer, batch: int) -> None:
    ids = torch.randint(0, 384, (batch, 14))
    with torch.no_grad():
        full = model(ids)
        cache = KVCache(model.cfg.num_hidden_layers)
        incremental = run_chunks(model, ids, [5] + [1] * 9, cache)
    assert (full - incremental).abs().max().item() < 1e-4
    assert cache.length == 14
    assert tuple(cache.k[0].shape) == (batch, 2, 14, 32)
    assert tuple(cache.v[1].shape) == (batch, 2, 14, 32)


@pytest.mark.parametrize("batch", [1, 2])
def test_chunked_prefill_equals_full_recompute(model: Transformer, batch: int) -> None:
    """5 tokens, then 3, then one at a time: positions must come from the cache length."""
    ids = torch.randint(0, 384, (batch, 12))
    with torch.no_grad():
        full = model(ids)
        incremental = run_chunks(model, ids, [5, 3, 1, 1, 1, 1], KVCache(2))
    assert (full - incremental).abs().max().item() < 1e-4


def test_cache_grows_past_its_initial_capacity(model: Transformer) -> None:
    ids = torch.randint(0, 384, (1, 20))
    with torch.no_grad():
        full = model(ids)
        cache = KVCache(2, max_len=4)  # forces several doublings
        incremental = run_chunks(model, ids, [3] + [1] * 17, cache)
    assert (full - incremental).abs().max().item() < 1e-4
    assert cache.length == 20


def test_cached_keys_are_the_ones_a_full_pass_computes(model: Transformer) -> None:
    ids = torch.randint(0, 384, (2, 9))
    one_shot, stepwise = KVCache(2), KVCache(2)
    with torch.no_grad():
        model(ids, one_shot)
        run_chunks(model, ids, [4, 5], stepwise)
    for layer in range(2):
        assert torch.allclose(one_shot.k[layer], stepwise.k[layer], atol=1e-5)
        assert torch.allclose(one_shot.v[layer], stepwise.v[layer], atol=1e-5)


def test_changing_batch_size_mid_sequence_is_refused(model: Transformer) -> None:
    cache = KVCache(2)
    with torch.no_grad():
        model(torch.zeros(2, 3, dtype=torch.long), cache)
        with pytest.raises(CacheError, match="batch"):
            model(torch.zeros(1, 1, dtype=torch.long), cache)


def test_attention_mask_of_wrong_width_is_refused(model: Transformer) -> None:
    with pytest.raises(CacheError, match="attention_mask"):
        model(torch.zeros(1, 3, dtype=torch.long), attention_mask=torch.ones(1, 4))


def test_last_only_returns_the_last_positions_logits(model: Transformer) -> None:
    ids = torch.randint(0, 384, (2, 7))
    with torch.no_grad():
        full, last = model(ids), model(ids, last_only=True)
    assert last.shape == (2, 1, 384)
    assert torch.allclose(last, full[:, -1:], atol=1e-5)
