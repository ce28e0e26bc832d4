# expect: WA at case gqa-qwen3-0.6b-heads
# differs: 2 lines
# Tiles the KV heads (h -> h % Hkv) instead of grouping them (h -> h // group).
import math

import torch


def decode_attention(q, k_cache, v_cache):
    """softmax(q K^T / sqrt(D)) V for one new token, query head h reading KV head h // group."""
    _, hq, d = q.shape  # (B, Hq, D)
    hkv = k_cache.shape[1]
    group = hq // hkv
    k = k_cache.repeat(1, group, 1, 1)  # (B, Hq, T, D)
    v = v_cache.repeat(1, group, 1, 1)  # (B, Hq, T, D)
    scores = torch.einsum("bhd,bhtd->bht", q, k) / math.sqrt(d)  # (B, Hq, T)
    weights = torch.softmax(scores, dim=-1)
    return torch.einsum("bht,bhtd->bhd", weights, v)  # (B, Hq, D)
