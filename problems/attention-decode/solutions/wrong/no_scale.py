# expect: WA at case mha-tiny
# differs: 3 lines
# Forgets the 1/sqrt(D) scale: the softmax becomes far too peaked.
import torch


def decode_attention(q, k_cache, v_cache):
    """softmax(q K^T / sqrt(D)) V for one new token, query head h reading KV head h // group."""
    _, hq, _ = q.shape  # (B, Hq, D)
    hkv = k_cache.shape[1]
    group = hq // hkv
    k = k_cache.repeat_interleave(group, dim=1)  # (B, Hq, T, D)
    v = v_cache.repeat_interleave(group, dim=1)  # (B, Hq, T, D)
    scores = torch.einsum("bhd,bhtd->bht", q, k)  # (B, Hq, T)
    weights = torch.softmax(scores, dim=-1)
    return torch.einsum("bht,bhtd->bhd", weights, v)  # (B, Hq, D)
