"""Accepted, and slower than the reference: a growing cache (no size given), the prefill's
logits for every position, a fresh tensor and a Python list lookup each step. Still one
new token per step, so well inside the CPU rule."""

import torch

from mini_llm import KVCache


def generate(model, prompt, max_new_tokens, stop_tokens):
    out = []
    cache = KVCache(model.cfg.num_hidden_layers)
    with torch.no_grad():
        logits = model(torch.tensor([list(prompt)]), cache)  # (1, P, V): every position
        while len(out) < max_new_tokens:
            token = int(torch.argmax(logits[0, -1]).item())
            out.append(token)
            if token in list(stop_tokens):
                break
            logits = model(torch.tensor([[token]], dtype=torch.long), cache)
    return out
