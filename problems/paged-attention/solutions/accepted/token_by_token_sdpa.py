"""Accepted: walks each sequence's tokens one at a time through the block table, then lets
torch's SDPA attend (GQA by repeating the KV heads); writes one token at a time too."""

import torch
import torch.nn.functional as F


def write_kv(k_pool, v_pool, slot_mapping, k, v):
    block_size = k_pool.shape[1]
    for i, slot in enumerate(slot_mapping.tolist()):
        if slot < 0:
            continue  # a padding token: nothing to store
        k_pool[slot // block_size, slot % block_size] = k[i]
        v_pool[slot // block_size, slot % block_size] = v[i]


def paged_decode_attention(q, k_pool, v_pool, block_tables, context_lens, scale):
    batch, q_heads, _ = q.shape
    block_size, kv_heads = k_pool.shape[1], k_pool.shape[2]
    out = torch.empty_like(q)
    for b in range(batch):
        keys, values = [], []
        for p in range(int(context_lens[b])):
            block = int(block_tables[b, p // block_size])
            keys.append(k_pool[block, p % block_size])  # (n_kv, D)
            values.append(v_pool[block, p % block_size])
        k = torch.stack(keys, dim=1).repeat_interleave(q_heads // kv_heads, dim=0)  # (Hq, n, D)
        v = torch.stack(values, dim=1).repeat_interleave(q_heads // kv_heads, dim=0)
        y = F.scaled_dot_product_attention(q[b][:, None], k, v, scale=scale)  # (Hq, 1, D)
        out[b] = y[:, 0]
    return out
