# expect: WA at case mha-decode-after-7 step 0 (T=1 after 7)
# differs: 1 line
# Mistake: rotates the chunk's tokens as if they sat at positions 0 .. T-1, forgetting the
# offset of the cached tokens: right for a prefill from empty, wrong for every later call.
"""One attention layer's forward pass over a chunk of new tokens, with a KV cache."""

import math

import torch


def attention_forward(x, weights, cache_k, cache_v, config):
    """x (B, T, D) after `start` cached tokens -> (out (B, T, D), keys, values (B, nkv, S, hd))."""
    B, T, _ = x.shape
    nh, nkv, hd = config["num_heads"], config["num_kv_heads"], config["head_dim"]
    start = cache_k.shape[2]
    q = (x @ weights["q_proj"].T).view(B, T, nh, hd)  # (B, T, nh, hd)
    k = (x @ weights["k_proj"].T).view(B, T, nkv, hd)  # (B, T, nkv, hd)
    v = (x @ weights["v_proj"].T).view(B, T, nkv, hd)
    if "q_norm" in weights:  # Qwen3: RMSNorm over each head, before RoPE
        q = rms_norm(q, weights["q_norm"], config["rms_norm_eps"])
        k = rms_norm(k, weights["k_norm"], config["rms_norm_eps"])
    cos, sin = rope_tables(0, T, hd, config["rope_theta"])  # (T, hd) each
    q = apply_rope(q.transpose(1, 2), cos, sin)  # (B, nh, T, hd)
    k = apply_rope(k.transpose(1, 2), cos, sin)  # (B, nkv, T, hd)
    keys = torch.cat([cache_k, k], dim=2)  # (B, nkv, S, hd), S = start + T
    values = torch.cat([cache_v, v.transpose(1, 2)], dim=2)
    group = nh // nkv  # query head h reads KV head h // group
    k_all = keys.repeat_interleave(group, dim=1)  # (B, nh, S, hd)
    v_all = values.repeat_interleave(group, dim=1)
    scores = q @ k_all.transpose(2, 3) / math.sqrt(hd)  # (B, nh, T, S)
    # Token i of the chunk sits at position start + i and sees keys 0 .. start + i.
    visible = torch.arange(start + T) <= (start + torch.arange(T))[:, None]  # (T, S)
    scores = scores.masked_fill(~visible, float("-inf"))
    y = torch.softmax(scores, dim=-1) @ v_all  # (B, nh, T, hd)
    out = y.transpose(1, 2).reshape(B, T, nh * hd) @ weights["o_proj"].T  # (B, T, D)
    return out, keys, values


def rms_norm(x, weight, eps):
    """x / rms(x) * weight over the last dimension."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rope_tables(start, T, hd, theta):
    """cos and sin (T, hd) for positions start .. start + T - 1, in float32."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, hd, 2).float() / hd))  # (hd/2,)
    angles = torch.outer(torch.arange(start, start + T).float(), inv_freq)  # (T, hd/2)
    emb = torch.cat([angles, angles], dim=-1)  # (T, hd): pairs (i, i + hd/2)
    return emb.cos(), emb.sin()


def apply_rope(x, cos, sin):
    """Rotate each pair (x[i], x[i + hd/2]) of x (B, heads, T, hd) by its position's angle."""
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin
