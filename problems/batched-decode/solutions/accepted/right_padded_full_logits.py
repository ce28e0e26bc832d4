"""Accepted, and slower than the reference: right padding (each row's first token read at its
own last real slot), logits for every prompt position, and finished rows decoded to the end."""

import torch

from mini_llm import KVCache


def batched_greedy(model, prompts, max_new_tokens, stop_tokens):
    lengths = [len(p) for p in prompts]
    width = max(lengths)
    ids = torch.tensor([p + [0] * (width - len(p)) for p in prompts])  # (B, L)
    mask = torch.tensor([[1] * n + [0] * (width - n) for n in lengths])  # (B, L)
    cache = KVCache(model.cfg.num_hidden_layers)
    rows = torch.arange(len(prompts))
    logits = model(ids, cache, mask)[rows, torch.tensor(lengths) - 1]  # (B, V)
    out, done = [[] for _ in prompts], [False] * len(prompts)
    for step in range(max_new_tokens):
        nxt = logits.argmax(-1)
        for b, token in enumerate(nxt.tolist()):
            if not done[b]:
                out[b].append(token)
                done[b] = token in stop_tokens
        if step == max_new_tokens - 1:
            break
        mask = torch.cat([mask, torch.ones(len(prompts), 1, dtype=mask.dtype)], dim=1)
        logits = model(nxt[:, None], cache, mask)[:, -1]
    return out
