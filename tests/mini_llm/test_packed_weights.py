"""Packed weights (MKL's packed GEMM layout) change speed only, never the numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from mini_llm import KVCache, PackingError, Transformer, generate

needs_mkl = pytest.mark.skipif(
    not torch.backends.mkl.is_available(), reason="this PyTorch build has no MKL"
)


def decode_logits(model: Transformer, ids: torch.Tensor, steps: int) -> torch.Tensor:
    """Prefill ids (B, T), then feed the greedy token `steps` times; all logits, concatenated."""
    cache = KVCache(model.cfg.num_hidden_layers)
    outs = [model(ids, cache)]
    for _ in range(steps):
        outs.append(model(outs[-1][:, -1:].argmax(-1), cache))
    return torch.cat(outs, dim=1)


@needs_mkl
def test_decode_with_packed_weights_equals_plain_weights(
    tiny_qwen3: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain, packed = Transformer.from_pretrained(tiny_qwen3), Transformer.from_pretrained(tiny_qwen3)
    packed.pack_for_batch(3)
    calls: list[int] = []
    real = torch.ops.mkl._mkl_linear

    def counting(*args: object) -> torch.Tensor:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(torch.ops.mkl, "_mkl_linear", counting)
    ids = torch.randint(0, 384, (3, 9))
    with torch.no_grad():
        expected, got = decode_logits(plain, ids, 6), decode_logits(packed, ids, 6)
    # Every matrix of every decode step (3 rows) went through the packed product.
    matrices = 4 * packed.cfg.num_hidden_layers + 1
    assert len(calls) == 6 * matrices
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-5)


@needs_mkl
def test_other_batch_sizes_fall_back_to_plain_weights(tiny_qwen3: Path) -> None:
    plain, packed = Transformer.from_pretrained(tiny_qwen3), Transformer.from_pretrained(tiny_qwen3)
    packed.pack_for_batch(8)
    prompts = [[5, 77, 120, 9, 300, 42], [18, 3, 250]]
    assert generate(packed, prompts, 10, stop_tokens=()) == generate(
        plain, prompts, 10, stop_tokens=()
    )


@needs_mkl
def test_packing_refuses_bf16_weights_and_bad_row_counts(tiny_qwen3: Path) -> None:
    with pytest.raises(PackingError, match="fp32 weights on the CPU"):
        Transformer.from_pretrained(tiny_qwen3, dtype=torch.bfloat16).pack_for_batch(4)
    model = Transformer.from_pretrained(tiny_qwen3)
    for rows in (0, -2, 2.0):
        with pytest.raises(PackingError, match="positive int"):
            model.pack_for_batch(rows)  # type: ignore[arg-type]


@needs_mkl
def test_moving_or_casting_the_model_drops_the_stale_packed_copy(tiny_qwen3: Path) -> None:
    model = Transformer.from_pretrained(tiny_qwen3)
    model.pack_for_batch(2)
    model.to(torch.bfloat16)
    assert model.lm_head.packed is None
    reference = Transformer.from_pretrained(tiny_qwen3, dtype=torch.bfloat16)
    ids = torch.randint(0, 384, (2, 1))
    with torch.no_grad():
        torch.testing.assert_close(model(ids), reference(ids), rtol=0, atol=0)
