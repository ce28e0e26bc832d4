"""On a CUDA device (chosen by the caller) mini_llm gives the CPU's results. Skipped without one."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from mini_llm import KVCache, PagedKVCache, Transformer, generate

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]


def test_fp32_logits_on_cuda_equal_cpu(tiny_qwen3: Path) -> None:
    cpu = Transformer.from_pretrained(tiny_qwen3)
    gpu = Transformer.from_pretrained(tiny_qwen3, device="cuda")
    ids = torch.randint(0, 384, (2, 15))
    with torch.no_grad():
        # TF32 matmuls are off by default in PyTorch, so fp32 stays close.
        assert (gpu(ids.cuda()).cpu() - cpu(ids)).abs().max().item() < 1e-3


def test_incremental_and_paged_on_cuda_equal_full(tiny_qwen3: Path) -> None:
    model = Transformer.from_pretrained(tiny_qwen3, device="cuda")
    ids = torch.randint(0, 384, (2, 11), device="cuda")
    paged = PagedKVCache.for_model(
        model.cfg, 16, block_size=4, device="cuda", block_order=[*range(15, -1, -1)]
    )
    with torch.no_grad():
        full = model(ids)
        for cache in (KVCache(model.cfg.num_hidden_layers), paged):
            steps = [model(ids[:, :5], cache)] + [
                model(ids[:, t : t + 1], cache) for t in range(5, 11)
            ]
            assert (torch.cat(steps, dim=1) - full).abs().max().item() < 1e-4


def test_bf16_greedy_generate_runs_on_cuda(tiny_qwen3: Path) -> None:
    model = Transformer.from_pretrained(tiny_qwen3, dtype=torch.bfloat16, device="cuda")
    prompts = [[5, 77, 120, 9], [3, 14]]
    together = generate(model, prompts, 8, stop_tokens=())
    assert [len(t) for t in together] == [8, 8]
    sampled = generate(model, prompts, 8, temperature=0.8, top_p=0.9, seed=1, stop_tokens=())
    assert sampled == generate(
        model, prompts, 8, temperature=0.8, top_p=0.9, seed=1, stop_tokens=()
    )
