"""mini_llm's logits and greedy tokens equal transformers' on the same checkpoint."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from mini_llm import Transformer, generate
from mini_llm.testing import TinyConfig, load_reference, reference_greedy

CONFIGS = {
    "qwen3-untied-hd32-gqa2": TinyConfig(),
    "qwen3-tied-hd16-gqa1": TinyConfig(
        tie_word_embeddings=True, num_key_value_heads=4, head_dim=16, seed=1
    ),
    "qwen3-untied-hd24-gqa4": TinyConfig(num_key_value_heads=1, head_dim=24, seed=2),
    "llama-tied-gqa2": TinyConfig(
        model_type="llama", tie_word_embeddings=True, head_dim=16, seed=3
    ),
    "llama-untied-gqa4-3layers": TinyConfig(
        model_type="llama",
        num_attention_heads=8,
        num_key_value_heads=2,
        head_dim=8,
        num_hidden_layers=3,
        seed=4,
    ),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_fp32_logits_match_transformers(
    name: str, tiny_checkpoint: Callable[[TinyConfig], Path]
) -> None:
    folder = tiny_checkpoint(CONFIGS[name])
    ours, ref = Transformer.from_pretrained(folder), load_reference(folder)
    ids = torch.randint(0, CONFIGS[name].vocab_size, (3, 17))  # batch > 1
    with torch.no_grad():
        expected = ref(ids).logits
        got = ours(ids)
    assert got.shape == expected.shape
    assert (got - expected).abs().max().item() <= 1e-4


def test_bf16_logits_close_with_same_greedy_tokens(tiny_qwen3: Path) -> None:
    """bf16 has 8 mantissa bits: we allow 0.1 absolute on logits of magnitude ~5-10."""
    ours = Transformer.from_pretrained(tiny_qwen3, dtype=torch.bfloat16)
    ref = load_reference(tiny_qwen3, dtype=torch.bfloat16)
    ids = torch.randint(0, 384, (2, 12))
    with torch.no_grad():
        expected, got = ref(ids).logits.float(), ours(ids).float()
    assert (got - expected).abs().max().item() <= 0.1
    assert torch.equal(got.argmax(-1), expected.argmax(-1))


@pytest.mark.parametrize("name", ["qwen3-untied-hd32-gqa2", "llama-tied-gqa2"])
def test_greedy_generate_matches_transformers(
    name: str, tiny_checkpoint: Callable[[TinyConfig], Path]
) -> None:
    folder = tiny_checkpoint(CONFIGS[name])
    ours, ref = Transformer.from_pretrained(folder), load_reference(folder)
    prompt = [5, 77, 120, 9, 300, 42, 18]
    expected = reference_greedy(ref, prompt, max_new_tokens=24)
    got = generate(ours, [prompt], max_new_tokens=24)[0]
    assert got == expected
    assert len(set(got)) > 3, "a degenerate (repeating) tiny model would hide cache bugs"
