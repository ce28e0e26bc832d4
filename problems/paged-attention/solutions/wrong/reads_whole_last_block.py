# expect: WA at case attend-partial-last-blocks
# differs: 2 lines
# Attends to every slot of the last block, the unfilled ones (garbage) included.
"""Reference: the write path through a slot mapping, and decode attention through block tables."""

import torch


def write_kv(k_pool, v_pool, slot_mapping, k, v):
    """Store token i's k[i], v[i] (n_kv, d_h) at slot slot_mapping[i]; slot -1 is padding."""
    block_size = k_pool.shape[1]  # pools: (num_blocks, block_size, n_kv, d_h)
    keep = slot_mapping >= 0
    slots = slot_mapping[keep]  # (T',)
    blocks, offsets = slots // block_size, slots % block_size
    k_pool[blocks, offsets] = k[keep]
    v_pool[blocks, offsets] = v[keep]


def paged_decode_attention(q, k_pool, v_pool, block_tables, context_lens, scale):
    """softmax(scale * q K^T) V per sequence, K and V read through its block table."""
    batch, q_heads, _ = q.shape  # (B, Hq, D)
    block_size, kv_heads = k_pool.shape[1], k_pool.shape[2]
    group = q_heads // kv_heads
    out = torch.empty_like(q)
    for b in range(batch):
        held = -(-int(context_lens[b]) // block_size)
        pos = torch.arange(held * block_size)  # (n,): whole blocks
        blocks = block_tables[b, pos // block_size].long()  # (n,) physical block of each token
        k = k_pool[blocks, pos % block_size].repeat_interleave(group, dim=1)  # (n, Hq, D)
        v = v_pool[blocks, pos % block_size].repeat_interleave(group, dim=1)  # (n, Hq, D)
        scores = torch.einsum("hd,nhd->hn", q[b], k) * scale  # (Hq, n)
        out[b] = torch.einsum("hn,nhd->hd", torch.softmax(scores, dim=-1), v)  # (Hq, D)
    return out
