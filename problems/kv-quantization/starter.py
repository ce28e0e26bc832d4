import torch

FP8 = torch.float8_e4m3fn
FP8_MAX = 448.0


def quantize(x, dim=None, scale=None):
    """x: float32. Returns (q as float8_e4m3fn, scale as float32, size 1 on the shared dims).
    x：float32。返回（float8_e4m3fn 的 q，float32 的 scale，在共享的维度上大小为 1）。"""
    # Your code here: the largest |x| of each group maps to 448; an all-zero group gets 1.0.
    # 在这里写代码：每组中最大的 |x| 映射到 448；全为 0 的组 scale 取 1.0。
    raise NotImplementedError


def dequantize(q, scale):
    """q: float8_e4m3fn, scale: float32 broadcasting against q. Returns float32.
    q：float8_e4m3fn，scale：可与 q 广播的 float32。返回 float32。"""
    raise NotImplementedError


def decode_attention_fp8(q, k_fp8, k_scale, v_fp8, v_scale):
    """q: (B, Hq, D); k_fp8, v_fp8: (B, Hkv, T, D) float8_e4m3fn. Returns (B, Hq, D) float32.
    q：(B, Hq, D)；k_fp8、v_fp8：(B, Hkv, T, D) float8_e4m3fn。返回 (B, Hq, D) float32。"""
    # Your code here: dequantize K and V, then the attention of attention-decode.
    # 在这里写代码：先把 K 和 V 反量化，再做 attention-decode 那道题的注意力。
    raise NotImplementedError


def kv_memory(num_layers, num_kv_heads, head_dim, kv_format, budget_bytes):
    """Returns {"bytes_per_token", "fixed_bytes", "max_tokens"}, or None for invalid input.
    返回 {"bytes_per_token", "fixed_bytes", "max_tokens"}；输入无效时返回 None。"""
    raise NotImplementedError
