"""Helpers that run the transformers reference model on the same folder (the oracle)."""

from __future__ import annotations

from pathlib import Path

import torch


def load_hf(folder: Path, dtype: torch.dtype = torch.float32) -> torch.nn.Module:
    """Qwen3ForCausalLM or LlamaForCausalLM, as config.json says, in eval mode."""
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(folder, dtype=dtype, local_files_only=True)
    return model.eval()


@torch.no_grad()
def hf_greedy(model: torch.nn.Module, prompt: list[int], max_new_tokens: int) -> list[int]:
    """transformers' own greedy generate; returns the new tokens only."""
    ids = torch.tensor([prompt])
    out = model.generate(
        ids,
        attention_mask=torch.ones_like(ids),
        max_new_tokens=max_new_tokens,
        do_sample=False,
    )
    return out[0, len(prompt) :].tolist()
