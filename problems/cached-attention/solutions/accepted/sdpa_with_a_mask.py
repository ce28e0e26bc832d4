"""Accepted: torch's SDPA with an explicit mask over cached and new keys, GQA by SDPA's own
enable_gqa, RoPE from angles computed by position, the heads kept as (B, T, heads, d_h)."""

import torch
import torch.nn.functional as F


def attention_forward(x, weights, cache_k, cache_v, config):
    B, T, _ = x.shape
    nh, nkv, hd = config["num_heads"], config["num_kv_heads"], config["head_dim"]
    start = cache_k.shape[2]
    q = (x @ weights["q_proj"].T).view(B, T, nh, hd)
    k = (x @ weights["k_proj"].T).view(B, T, nkv, hd)
    v = (x @ weights["v_proj"].T).view(B, T, nkv, hd)
    if "q_norm" in weights:
        eps = config["rms_norm_eps"]
        q = q * torch.rsqrt(q.pow(2).mean(-1, keepdim=True) + eps) * weights["q_norm"]
        k = k * torch.rsqrt(k.pow(2).mean(-1, keepdim=True) + eps) * weights["k_norm"]
    positions = torch.arange(start, start + T).float()
    inv_freq = 1.0 / (config["rope_theta"] ** (torch.arange(0, hd, 2).float() / hd))
    angles = torch.outer(positions, inv_freq)  # (T, hd/2)
    cos = torch.cat([angles, angles], dim=-1).cos()[None, :, None]  # (1, T, 1, hd)
    sin = torch.cat([angles, angles], dim=-1).sin()[None, :, None]

    def rotate(u):
        half = u.shape[-1] // 2
        return u * cos + torch.cat([-u[..., half:], u[..., :half]], dim=-1) * sin

    q, k = rotate(q).transpose(1, 2), rotate(k).transpose(1, 2)  # (B, heads, T, hd)
    keys = torch.cat([cache_k, k], dim=2)
    values = torch.cat([cache_v, v.transpose(1, 2)], dim=2)
    mask = torch.arange(start + T)[None, :] <= torch.arange(start, start + T)[:, None]  # (T, S)
    y = F.scaled_dot_product_attention(q, keys, values, attn_mask=mask, enable_gqa=nh != nkv)
    out = y.transpose(1, 2).reshape(B, T, nh * hd) @ weights["o_proj"].T
    return out, keys, values
