# expect: WA
# Forgets the 1/sqrt(D) scale: the softmax becomes far too peaked.
import torch


def decode_attention(q, k_cache, v_cache):
    group = q.shape[1] // k_cache.shape[1]
    k = k_cache.repeat_interleave(group, dim=1)
    v = v_cache.repeat_interleave(group, dim=1)
    weights = torch.softmax(torch.einsum("bhd,bhtd->bht", q, k), dim=-1)
    return torch.einsum("bht,bhtd->bhd", weights, v)
