"""How the Transformer attends: rotary positions, the mask over cached and new tokens, and
scaled dot-product attention with GQA through a KV cache.

Shape legend as in mini_llm/model.py: B batch, T new tokens this call, N = B*T rows, S cached
+ new tokens, nh query heads, nkv key/value heads, hd head dim.

This is a module of its own, apart from the weights it reads (`model.Attention`), because it
is a part a learner may be asked to write: a problem that asks for the attention layer runs
its jobs without this module, and the model there refuses to run a forward pass (its weights
still load, so the problem's cases can read them).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

from mini_llm.errors import CacheError

if TYPE_CHECKING:
    from mini_llm.config import ModelConfig
    from mini_llm.model import Attention, Cache


class Positions:
    """Where the T new tokens of each row sit: `start..end` for every row, or a (B, T) table."""

    __slots__ = ("end", "start", "table")

    def __init__(self, start: int, end: int, table: torch.Tensor | None) -> None:
        self.start, self.end, self.table = start, end, table


class Context:
    """What every layer of one forward pass shares: the rotary factors of the new tokens and
    the boolean mask (B, 1, T, S), or None where SDPA's own causal rule (or none) is right."""

    __slots__ = ("mask", "rope")

    def __init__(self, rope: tuple[torch.Tensor, torch.Tensor], mask: torch.Tensor | None) -> None:
        self.rope, self.mask = rope, mask


class RotaryTables:
    """cos/sin tables for rotary position embeddings, computed once in fp32 and grown on demand."""

    def __init__(self, head_dim: int, theta: float) -> None:
        self.head_dim, self.theta = head_dim, theta
        # One tuple, replaced whole: a thread reading it never sees a new cos beside an old sin.
        self._tables = (torch.empty(0), torch.empty(0))

    def _build(self, length: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        exponents = torch.arange(0, self.head_dim, 2, device=device).float() / self.head_dim
        inv_freq = 1.0 / (self.theta**exponents)  # (hd/2,)
        freqs = torch.outer(torch.arange(length, device=device).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)  # (length, hd): halves layout, as in HF
        sin = emb.sin()
        # Fold rotate_half's minus sign into the table: rotate_half(x) * sin
        # == x.roll(hd/2) * [-sin, sin], which saves a negation per call.
        sin[:, : self.head_dim // 2] *= -1
        self._tables = (emb.cos(), sin)
        return self._tables

    def __call__(
        self, positions: Positions, dtype: torch.dtype, device: torch.device
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """cos and signed sin, shaped (B or 1, T, 1, hd) to broadcast over q/k (B, T, heads, hd)."""
        cos_all, sin_all = self._tables
        if cos_all.shape[0] < positions.end or cos_all.device != device:
            cos_all, sin_all = self._build(max(positions.end, 2 * cos_all.shape[0], 256), device)
        if positions.table is None:  # every row at the same positions: a slice, no gather
            start, T = positions.start, positions.end - positions.start
            cos, sin = cos_all[start : start + T], sin_all[start : start + T]
            return cos.to(dtype)[None, :, None], sin.to(dtype)[None, :, None]
        cos, sin = cos_all[positions.table], sin_all[positions.table]  # (B, T, hd)
        return cos.to(dtype)[:, :, None], sin.to(dtype)[:, :, None]


_tables: dict[tuple[int, float], RotaryTables] = {}
_tables_lock = threading.Lock()


def rotary_tables(head_dim: int, theta: float) -> RotaryTables:
    """The shared tables for (head_dim, theta): every model with those settings uses one."""
    key = (head_dim, theta)
    with _tables_lock:
        found = _tables.get(key)
        if found is None:
            found = _tables[key] = RotaryTables(head_dim, theta)
        return found


def apply_rope(x: torch.Tensor, cos: torch.Tensor, signed_sin: torch.Tensor) -> torch.Tensor:
    """Rotate pairs (i, i + hd/2) of x (B, T, heads, hd) by the angle of each position.

    With x = [x1, x2]: out = [x1 cos - x2 sin, x2 cos + x1 sin] = x * cos + [x2, x1] * [-sin, sin].
    """
    swapped = x.roll(x.shape[-1] // 2, dims=-1)  # [x2, x1]
    # Not torch.addcmul: it rounds once where the reference rounds twice, which shows in bf16.
    return x * cos + swapped * signed_sin


def prepare(
    cfg: ModelConfig,
    past: list[int],
    T: int,
    attention_mask: torch.Tensor | None,
    dtype: torch.dtype,
    device: torch.device,
) -> Context:
    """The rotary factors and mask of one forward pass of T new tokens after `past` cached ones."""
    positions, mask = positions_and_mask(past, T, attention_mask, device)
    rope = rotary_tables(cfg.head_dim, cfg.rope_theta)(positions, dtype, device)
    return Context(rope, mask)


def attend(
    attn: Attention, x: torch.Tensor, B: int, ctx: Context, cache: Cache | None
) -> torch.Tensor:
    """One layer's attention: x (N, D) -> (N, D), appending the new keys and values to `cache`."""
    N = x.shape[0]
    T = N // B
    nh, nkv, hd = attn.nh, attn.nkv, attn.hd
    qkv = attn.wqkv(x).view(B, T, nh + 2 * nkv, hd)  # heads side by side
    if attn.q_norm is not None and attn.k_norm is not None:
        # Qwen3 normalises each head before RoPE, with separate weights for q and k.
        q = apply_rope(attn.q_norm(qkv[:, :, :nh]), *ctx.rope)
        k = apply_rope(attn.k_norm(qkv[:, :, nh : nh + nkv]), *ctx.rope)
    else:
        # q and k heads are adjacent in qkv: rotate them in one call, then split the views.
        q, k = apply_rope(qkv[:, :, : nh + nkv], *ctx.rope).split([nh, nkv], 2)
    q, k = q.transpose(1, 2), k.transpose(1, 2)  # (B, nh, T, hd), (B, nkv, T, hd)
    v = qkv[:, :, nh + nkv :].transpose(1, 2)  # (B, nkv, T, hd)
    if cache is not None:
        k, v = cache.update(attn.layer, k, v)  # (B, nkv, S, hd)
    # A fresh sequence without padding needs only the causal rule; one decode token with
    # equal histories may see every key (mask None); anything else gets the explicit mask.
    causal = ctx.mask is None and T > 1
    y = F.scaled_dot_product_attention(
        q, k, v, attn_mask=ctx.mask, is_causal=causal, enable_gqa=nh != nkv
    )  # (B, nh, T, hd)
    return attn.wo(y.transpose(1, 2).reshape(N, nh * hd))


def positions_and_mask(
    past: list[int], T: int, attention_mask: torch.Tensor | None, device: torch.device
) -> tuple[Positions, torch.Tensor | None]:
    """Positions of the new tokens and the boolean attention mask (B, 1, T, S) or None.

    None means "no mask needed": either a fresh causal sequence (SDPA's is_causal) or one new
    token per sequence that may see every cached key.
    """
    S = max(past) + T
    if attention_mask is None and min(past) == max(past) and (T == 1 or past[0] == 0):
        return Positions(past[0], S, None), None
    # Index of each new token on the key axis (B, T); without padding it is also its position.
    slots = torch.tensor(past, device=device)[:, None] + torch.arange(T, device=device)
    keys = torch.arange(S, device=device)
    mask = keys <= slots[..., None]  # (B, T, S) causal: a token sees itself and what precedes it
    positions = slots
    if attention_mask is not None:
        if attention_mask.shape != (len(past), S):
            raise CacheError(
                f"attention_mask must have shape {(len(past), S)} (batch, cached + new tokens), "
                f"got {tuple(attention_mask.shape)}"
            )
        real = attention_mask.to(device=device, dtype=torch.bool)
        # A padding query still sees itself, so its softmax row is never empty (no NaN).
        mask &= real[:, None, :] | (keys == slots[..., None])
        # Padding does not advance the position: count the real tokens before each slot.
        positions = (real.long().cumsum(-1) - 1).clamp(min=0).gather(1, slots)
    return Positions(0, S, positions), mask[:, None]
