"""On the real SmolLM2-135M-Instruct checkpoint, mini_llm equals transformers and talks sense."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from mini_llm import KVCache, Transformer, generate
from mini_llm.testing import load_reference, reference_greedy

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def models(smollm2_dir: Path) -> tuple[Transformer, torch.nn.Module]:
    return Transformer.from_pretrained(smollm2_dir), load_reference(smollm2_dir)


def chat_prompt(folder: Path, question: str) -> list[int]:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    messages = [{"role": "user", "content": question}]
    encoded = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
    return list(encoded["input_ids"])


def test_converted_folder_is_a_tied_llama(smollm2_dir: Path) -> None:
    model = Transformer.from_pretrained(smollm2_dir)
    cfg = model.cfg
    assert (cfg.model_type, cfg.num_hidden_layers, cfg.num_key_value_heads) == ("llama", 30, 3)
    assert cfg.tie_word_embeddings and cfg.eos_token_ids == (2,)


def test_logits_match_transformers(models: tuple[Transformer, torch.nn.Module]) -> None:
    ours, ref = models
    ids = torch.randint(0, ours.cfg.vocab_size, (2, 24))
    with torch.no_grad():
        assert (ours(ids) - ref(ids).logits).abs().max().item() <= 1e-4


def test_incremental_equals_full_recompute(models: tuple[Transformer, torch.nn.Module]) -> None:
    ours, _ = models
    ids = torch.randint(0, ours.cfg.vocab_size, (2, 12))
    cache = KVCache(ours.cfg.num_hidden_layers)
    with torch.no_grad():
        full = ours(ids)
        steps = [ours(ids[:, :5], cache), ours(ids[:, 5:8], cache)]
        steps += [ours(ids[:, t : t + 1], cache) for t in range(8, 12)]
    assert (full - torch.cat(steps, dim=1)).abs().max().item() < 1e-3


def test_capital_of_france_is_paris_token_for_token(
    smollm2_dir: Path, models: tuple[Transformer, torch.nn.Module]
) -> None:
    from transformers import AutoTokenizer

    ours, ref = models
    prompt = chat_prompt(smollm2_dir, "What is the capital of France?")
    got = generate(ours, [prompt], max_new_tokens=24)[0]
    assert got == reference_greedy(ref, prompt, max_new_tokens=24)
    text = AutoTokenizer.from_pretrained(smollm2_dir).decode(got, skip_special_tokens=True)
    assert "Paris" in text
    assert got[-1] == 2, "the answer should end with <|im_end|>, the config's eos"


def test_batched_prompts_of_different_lengths_equal_each_alone(
    smollm2_dir: Path, models: tuple[Transformer, torch.nn.Module]
) -> None:
    ours, _ = models
    prompts = [
        chat_prompt(smollm2_dir, "What is the capital of France?"),
        chat_prompt(smollm2_dir, "Name a color."),
    ]
    assert len(prompts[0]) != len(prompts[1])
    alone = [generate(ours, [p], max_new_tokens=12)[0] for p in prompts]
    assert generate(ours, prompts, max_new_tokens=12) == alone
