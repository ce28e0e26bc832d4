"""Choosing the next token from logits: greedy, or seeded sampling with temperature/top-k/top-p."""

from __future__ import annotations

import math

import torch

from mini_llm.errors import GenerationArgumentError


def check_sampling_args(temperature: float, top_k: int, top_p: float) -> None:
    """Raise GenerationArgumentError unless the sampling settings are meaningful."""
    if not isinstance(temperature, int | float) or not math.isfinite(temperature):
        raise GenerationArgumentError(f"temperature must be a finite number, got {temperature!r}")
    if temperature < 0:
        raise GenerationArgumentError(f"temperature must be >= 0 (0 is greedy), got {temperature}")
    if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 0:
        raise GenerationArgumentError(f"top_k must be an integer >= 0 (0 is off), got {top_k!r}")
    if not isinstance(top_p, int | float) or not 0 < top_p <= 1:
        raise GenerationArgumentError(f"top_p must be in (0, 1], got {top_p!r}")


def sample(
    logits: torch.Tensor,
    temperature: float = 0.0,
    top_k: int = 0,
    top_p: float = 1.0,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """logits (B, V) -> token ids (B,). temperature 0 is greedy (argmax)."""
    check_sampling_args(temperature, top_k, top_p)
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = logits.float() / temperature
    if top_k:
        kth = logits.topk(min(top_k, logits.shape[-1]), dim=-1).values[:, -1:]  # (B, 1)
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p < 1:
        logits = _top_p_filter(logits, top_p)
    probs = torch.softmax(logits, dim=-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)


def _top_p_filter(logits: torch.Tensor, top_p: float) -> torch.Tensor:
    """Keep the smallest set of most likely tokens whose probabilities sum to at least top_p."""
    sorted_logits, order = logits.sort(dim=-1, descending=True)
    probs = torch.softmax(sorted_logits, dim=-1)
    # A token is dropped when the tokens ranked above it already reach top_p; the top one stays.
    mass_before = probs.cumsum(dim=-1) - probs
    drop_sorted = mass_before >= top_p
    drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)  # back to vocab order
    return logits.masked_fill(drop, float("-inf"))
