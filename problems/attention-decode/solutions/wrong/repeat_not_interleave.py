# expect: WA
# Tiles the KV heads (h -> h % Hkv) instead of grouping them (h -> h // group).
import math

import torch


def decode_attention(q, k_cache, v_cache):
    group = q.shape[1] // k_cache.shape[1]
    k = k_cache.repeat(1, group, 1, 1)
    v = v_cache.repeat(1, group, 1, 1)
    scores = torch.einsum("bhd,bhtd->bht", q, k) / math.sqrt(q.shape[-1])
    return torch.einsum("bht,bhtd->bhd", torch.softmax(scores, dim=-1), v)
