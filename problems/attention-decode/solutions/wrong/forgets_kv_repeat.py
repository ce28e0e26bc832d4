# expect: RE
# Forgets to repeat the KV heads: fine for MHA, a shape error as soon as Hq != Hkv.
import math

import torch


def decode_attention(q, k_cache, v_cache):
    scores = torch.einsum("bhd,bhtd->bht", q, k_cache) / math.sqrt(q.shape[-1])
    return torch.einsum("bht,bhtd->bhd", torch.softmax(scores, dim=-1), v_cache)
