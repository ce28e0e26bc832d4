"""generate(): prefill the prompts, then decode one token per step through the KV cache."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import torch

from mini_llm.errors import GenerationArgumentError
from mini_llm.kv_cache import KVCache
from mini_llm.model import Transformer
from mini_llm.sampling import check_sampling_args, sample


@torch.inference_mode()
def generate(
    model: Transformer,
    prompts: Sequence[Sequence[int]] | torch.Tensor,
    max_new_tokens: int,
    *,
    temperature: float = 0.0,
    top_k: int = 0,
    top_p: float = 1.0,
    stop_tokens: Iterable[int] | None = None,
    seed: int | None = None,
) -> list[list[int]]:
    """Continue each prompt; return the new tokens of each (a stop token ends and is kept).

    Prompts of different lengths are decoded together: they are left-padded and an attention
    mask hides the padding, so each result equals that prompt decoded alone.
    `stop_tokens=None` uses the config's eos ids; pass () to never stop early.
    `seed` makes sampling reproducible (it is unused when temperature is 0).
    """
    rows = _check_prompts(prompts, model.cfg.vocab_size)
    check_sampling_args(temperature, top_k, top_p)
    if not isinstance(max_new_tokens, int) or max_new_tokens < 0:
        raise GenerationArgumentError(f"max_new_tokens must be an int >= 0, got {max_new_tokens!r}")
    stops = set(model.cfg.eos_token_ids if stop_tokens is None else stop_tokens)
    device = model.embed.weight.device
    generator = torch.Generator(device=device).manual_seed(seed) if seed is not None else None

    ids, mask = _left_pad(rows, device)  # (B, L) each
    ragged = bool((mask == 0).any())
    cache = KVCache(model.cfg.num_hidden_layers, max_len=ids.shape[1] + max_new_tokens)
    out: list[list[int]] = [[] for _ in rows]
    done = [False] * len(rows)
    if max_new_tokens == 0:
        return out
    logits = model(ids, cache, mask if ragged else None, last_only=True)[:, -1]  # (B, V)
    for step in range(max_new_tokens):
        nxt = sample(logits, temperature, top_k, top_p, generator)  # (B,)
        for b, token in enumerate(nxt.tolist()):
            if not done[b]:
                out[b].append(token)
                done[b] = token in stops
        if all(done) or step == max_new_tokens - 1:
            break
        if ragged:
            mask = torch.cat([mask, mask.new_ones(len(rows), 1)], dim=1)
        # Finished rows keep decoding (their output is no longer recorded) so the batch stays whole.
        logits = model(nxt[:, None], cache, mask if ragged else None)[:, -1]
    return out


def _check_prompts(prompts: Sequence[Sequence[int]] | torch.Tensor, vocab: int) -> list[list[int]]:
    if isinstance(prompts, torch.Tensor):
        if prompts.dim() not in (1, 2):
            raise GenerationArgumentError(
                f"prompt tensor must be 1-D or 2-D, got {prompts.dim()}-D"
            )
        prompts = prompts.reshape(-1, prompts.shape[-1]).tolist()
    rows = [list(p) for p in prompts]
    if not rows:
        raise GenerationArgumentError("prompts is empty")
    for i, row in enumerate(rows):
        if not row:
            raise GenerationArgumentError(f"prompt {i} is empty")
        bad = [t for t in row if not isinstance(t, int) or not 0 <= t < vocab]
        if bad:
            raise GenerationArgumentError(
                f"prompt {i} holds token {bad[0]!r}, outside the vocabulary [0, {vocab})"
            )
    return rows


def _left_pad(rows: list[list[int]], device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-align the prompts so every sequence's next token lands in the same column."""
    width = max(len(r) for r in rows)
    ids = torch.zeros(len(rows), width, dtype=torch.long, device=device)
    mask = torch.zeros(len(rows), width, dtype=torch.long, device=device)
    for b, row in enumerate(rows):
        ids[b, width - len(row) :] = torch.tensor(row, device=device)
        mask[b, width - len(row) :] = 1
    return ids, mask
