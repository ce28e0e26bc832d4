"""The paged KV cache (block pool + block tables) gives the contiguous cache's logits."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from mini_llm import CacheError, KVCache, PagedKVCache, Transformer


@pytest.fixture(scope="module")
def model(tiny_qwen3: Path) -> Transformer:
    return Transformer.from_pretrained(tiny_qwen3)


def shuffled(n: int, seed: int) -> list[int]:
    return torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist()


def decode(model: Transformer, cache: KVCache | PagedKVCache, ids: torch.Tensor) -> torch.Tensor:
    """Prefill 6 tokens, then one token at a time; concatenated logits."""
    with torch.no_grad():
        outs = [model(ids[:, :6], cache)]
        outs += [model(ids[:, t : t + 1], cache) for t in range(6, ids.shape[1])]
    return torch.cat(outs, dim=1)


@pytest.mark.parametrize("batch", [1, 3])
def test_paged_equals_contiguous_with_shuffled_blocks(model: Transformer, batch: int) -> None:
    ids = torch.randint(0, 384, (batch, 19))
    paged = PagedKVCache.for_model(
        model.cfg, num_blocks=32, block_size=4, block_order=shuffled(32, 1)
    )
    expected = decode(model, KVCache(model.cfg.num_hidden_layers), ids)
    got = decode(model, paged, ids)
    assert (got - expected).abs().max().item() < 1e-5
    for table in paged.tables:
        assert table != sorted(table) or len(table) == 1  # really non-contiguous
    assert paged.length == 19
    assert all(len(t) == 5 for t in paged.tables)  # ceil(19 / 4): a block only when needed


def test_decode_with_ragged_lengths_equals_contiguous_per_sequence(model: Transformer) -> None:
    """Two sequences prefilled to different lengths then decoded together in one batch."""
    a, b = torch.randint(0, 384, (1, 9)), torch.randint(0, 384, (1, 4))
    next_tokens = torch.randint(0, 384, (2, 5))
    pool = PagedKVCache.for_model(
        model.cfg, num_blocks=16, block_size=4, block_order=shuffled(16, 3)
    )
    pool.start(2)
    expected = []
    with torch.no_grad():
        for seq, nxt in ((a, next_tokens[0]), (b, next_tokens[1])):
            c = KVCache(model.cfg.num_hidden_layers)
            model(seq, c)
            expected.append(torch.cat([model(nxt[None, i : i + 1], c) for i in range(5)], dim=1))
        for row, seq in enumerate((a, b)):
            with pool.only(row):
                model(seq, pool)
        assert pool.lengths == [9, 4]
        got = torch.cat([model(next_tokens[:, i : i + 1], pool) for i in range(5)], dim=1)
    assert (got - torch.cat(expected)).abs().max().item() < 1e-5


def test_exhausted_pool_raises_and_changes_nothing(model: Transformer) -> None:
    pool = PagedKVCache.for_model(model.cfg, num_blocks=2, block_size=4)
    with torch.no_grad():
        model(torch.zeros(1, 8, dtype=torch.long), pool)
        with pytest.raises(CacheError, match="exhausted"):
            model(torch.zeros(1, 1, dtype=torch.long), pool)
    assert pool.lengths == [8] and len(pool.tables[0]) == 2


def test_release_returns_blocks_last_first(model: Transformer) -> None:
    pool = PagedKVCache.for_model(model.cfg, num_blocks=4, block_size=2)
    with torch.no_grad():
        model(torch.zeros(1, 5, dtype=torch.long), pool)
    assert pool.tables == [[0, 1, 2]]
    pool.release()
    assert list(pool.free_blocks) == [3, 2, 1, 0]


def test_block_order_must_be_a_permutation() -> None:
    with pytest.raises(CacheError, match="permutation"):
        PagedKVCache(1, 1, 2, num_blocks=3, block_order=[0, 0, 1])
