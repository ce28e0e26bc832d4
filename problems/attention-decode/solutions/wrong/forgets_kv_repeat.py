# expect: RE at case gqa-qwen3-0.6b-heads
# differs: 3 lines
# Forgets to repeat the KV heads: fine for MHA, a shape error as soon as Hq != Hkv.
import math

import torch


def decode_attention(q, k_cache, v_cache):
    """softmax(q K^T / sqrt(D)) V for one new token, query head h reading KV head h // group."""
    _, hq, d = q.shape  # (B, Hq, D)
    hkv = k_cache.shape[1]
    group = hq // hkv  # noqa: F841 - the mistake: never used
    k = k_cache  # (B, Hkv, T, D)
    v = v_cache  # (B, Hkv, T, D)
    scores = torch.einsum("bhd,bhtd->bht", q, k) / math.sqrt(d)  # (B, Hq, T)
    weights = torch.softmax(scores, dim=-1)
    return torch.einsum("bht,bhtd->bhd", weights, v)  # (B, Hq, D)
