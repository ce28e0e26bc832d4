# expect: WA at case quantize-per-token-head
# differs: 1 line
# Mistake: ignores dim and takes one amax over the whole tensor (what vLLM's
# calculate_kv_scales does for its per-tensor k_scale): a quiet head then shares the
# loud head's scale and sinks into the subnormals.
"""FP8 E4M3 KV cache: quantize with scales, dequantize, attend over it, count its bytes."""

import math

import torch

FP8 = torch.float8_e4m3fn
FP8_MAX = 448.0  # largest finite E4M3 value (0x7E); the "fn" format has no infinity
SCALE_BYTES = 4  # every scale is stored as float32

# kv_format -> (bytes per cached element, who owns a scale)
FORMATS = {
    "bf16": (2, None),
    "fp8-per-tensor": (1, "layer"),
    "fp8-per-head": (1, "head"),
    "fp8-per-token-head": (1, "token"),
}


def quantize(x, dim=None, scale=None):
    """Symmetric FP8 E4M3 quantization of a float32 tensor.

    dim: the dimension(s) whose elements share one scale (None: the whole tensor).
    scale: a given (calibrated, static) scale; used as is, dim is then ignored.
    Returns (q as float8_e4m3fn, scale as float32 with size 1 on the shared dims).
    """
    if scale is None:
        dims = tuple(range(x.dim()))  # one scale for everything, whatever dim says
        amax = x.abs().amax(dim=dims, keepdim=True)
        # Map each group's largest magnitude onto 448: the whole E4M3 range is used and
        # the small values of one group never sink into another group's subnormals.
        scale = amax / FP8_MAX
        # An all-zero group has nothing to scale; 1.0 keeps x / scale finite (0 / 0 is NaN).
        scale = torch.where(amax == 0, torch.ones_like(scale), scale)
    # Clamp before the cast: a static scale can leave values past 448, and not every
    # library saturates on its own (ml_dtypes and older torch releases give NaN there).
    q = (x / scale).clamp(-FP8_MAX, FP8_MAX).to(FP8)  # the cast rounds to nearest, ties to even
    return q, scale.to(torch.float32)


def dequantize(q, scale):
    """x ~= q * scale, in float32 (scale broadcasts over the dims that share it)."""
    return q.to(torch.float32) * scale


def decode_attention_fp8(q, k_fp8, k_scale, v_fp8, v_scale):
    """One decode step over an FP8 cache: dequantize K and V, then GQA attention in float32.

    q: (B, Hq, D) float32; k_fp8, v_fp8: (B, Hkv, T, D) float8_e4m3fn; scales broadcast
    against them. Returns (B, Hq, D) float32.
    """
    k_cache = dequantize(k_fp8, k_scale)  # (B, Hkv, T, D)
    v_cache = dequantize(v_fp8, v_scale)  # (B, Hkv, T, D)
    _, hq, d = q.shape
    group = hq // k_cache.shape[1]
    k = k_cache.repeat_interleave(group, dim=1)  # (B, Hq, T, D): query head h reads h // group
    v = v_cache.repeat_interleave(group, dim=1)  # (B, Hq, T, D)
    scores = torch.einsum("bhd,bhtd->bht", q, k) / math.sqrt(d)  # (B, Hq, T)
    weights = torch.softmax(scores, dim=-1)
    return torch.einsum("bht,bhtd->bhd", weights, v)  # (B, Hq, D)


def kv_memory(num_layers, num_kv_heads, head_dim, kv_format, budget_bytes):
    """Bytes of a KV cache in `kv_format`, scales included, and how many tokens fit.

    Returns {"bytes_per_token", "fixed_bytes", "max_tokens"}, or None for an unknown
    format, a dimension below 1 or a negative budget.
    """
    if kv_format not in FORMATS or min(num_layers, num_kv_heads, head_dim) < 1:
        return None
    if budget_bytes < 0:
        return None
    elem_bytes, owner = FORMATS[kv_format]
    per_layer_token = 2 * num_kv_heads * head_dim * elem_bytes  # K and V of every KV head
    fixed = 0
    if owner == "token":  # each token brings a K scale and a V scale per KV head
        per_layer_token += 2 * num_kv_heads * SCALE_BYTES
    elif owner == "head":  # static: one K and one V scale per KV head, whatever the length
        fixed = num_layers * 2 * num_kv_heads * SCALE_BYTES
    elif owner == "layer":  # static: one K and one V scale per layer
        fixed = num_layers * 2 * SCALE_BYTES
    per_token = num_layers * per_layer_token
    max_tokens = max(0, (budget_bytes - fixed) // per_token)
    return {"bytes_per_token": per_token, "fixed_bytes": fixed, "max_tokens": max_tokens}
