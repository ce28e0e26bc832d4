"""Transformer: the Qwen3 / Llama decoder, one file from token ids to logits.

Shape legend: B batch, T new tokens this call, S cached + new tokens, D hidden size,
nh query heads, nkv key/value heads, hd head dim, V vocabulary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import torch
import torch.nn.functional as F
from torch import nn

from mini_llm.config import ModelConfig
from mini_llm.errors import CacheError


class Cache(Protocol):
    """What the model needs from a KV cache (KVCache and PagedKVCache both provide it)."""

    def past_lengths(self, batch: int) -> list[int]: ...

    def update(
        self, layer: int, k: torch.Tensor, v: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]: ...


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Normalise in fp32 and cast back before scaling, as the reference does, so bf16 matches.
        # Written out rather than F.rms_norm: on CPU that decomposes into twice as many ops.
        x32 = x.float()
        normed = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * normed.to(x.dtype)


class Linear(nn.Module):
    """y = x @ W with W stored (in, out), no bias.

    nn.Linear stores (out, in) and multiplies by its transpose. For decode (a few rows of x)
    MKL's matrix-vector path reads the (in, out) layout 10-50% faster on this CPU, and decode
    time is almost all weight reads. The loader transposes Hugging Face's (out, in) tensors.
    """

    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ self.weight


class RotaryEmbedding(nn.Module):
    """cos/sin tables for rotary position embeddings, computed once in fp32 and grown on demand."""

    def __init__(self, head_dim: int, theta: float) -> None:
        super().__init__()
        self.head_dim, self.theta = head_dim, theta
        self._cos = torch.empty(0)
        self._sin = torch.empty(0)

    def _build(self, length: int, device: torch.device) -> None:
        exponents = torch.arange(0, self.head_dim, 2, device=device).float() / self.head_dim
        inv_freq = 1.0 / (self.theta**exponents)  # (hd/2,)
        freqs = torch.outer(torch.arange(length, device=device).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)  # (length, hd): halves layout, as in HF
        sin = emb.sin()
        # Fold rotate_half's minus sign into the table: rotate_half(x) * sin
        # == x.roll(hd/2) * [-sin, sin], which saves a negation per call.
        sin[:, : self.head_dim // 2] *= -1
        self._cos, self._sin = emb.cos(), sin

    def forward(
        self, positions: torch.Tensor, needed: int, dtype: torch.dtype
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """positions (B, T), all < needed -> cos, signed sin (B, 1, T, hd) for apply_rope.

        `needed` comes from the caller's Python ints, so no device sync reads positions.max().
        """
        if self._cos.shape[0] < needed or self._cos.device != positions.device:
            self._build(max(needed, 2 * self._cos.shape[0], 256), positions.device)
        cos = self._cos[positions].to(dtype).unsqueeze(1)
        sin = self._sin[positions].to(dtype).unsqueeze(1)
        return cos, sin


def apply_rope(x: torch.Tensor, cos: torch.Tensor, signed_sin: torch.Tensor) -> torch.Tensor:
    """Rotate pairs (i, i + hd/2) of x (B, h, T, hd) by the angle of each position.

    With x = [x1, x2]: out = [x1 cos - x2 sin, x2 cos + x1 sin] = x * cos + [x2, x1] * [-sin, sin].
    """
    swapped = x.roll(x.shape[-1] // 2, dims=-1)  # [x2, x1]
    return x * cos + swapped * signed_sin


class Attention(nn.Module):
    def __init__(self, cfg: ModelConfig, layer: int) -> None:
        super().__init__()
        self.layer = layer
        self.nh, self.nkv, self.hd = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim
        # One matmul for q, k and v: fewer kernel launches per decode step.
        self.wqkv = Linear(cfg.hidden_size, cfg.q_size + 2 * cfg.kv_size)
        self.wo = Linear(cfg.q_size, cfg.hidden_size)
        self.q_norm = RMSNorm(self.hd, cfg.rms_norm_eps) if cfg.qk_norm else None
        self.k_norm = RMSNorm(self.hd, cfg.rms_norm_eps) if cfg.qk_norm else None
        self.split = [cfg.q_size, cfg.kv_size, cfg.kv_size]

    def forward(
        self,
        x: torch.Tensor,
        rope: tuple[torch.Tensor, torch.Tensor],
        mask: torch.Tensor | None,
        cache: Cache | None,
    ) -> torch.Tensor:
        B, T, _ = x.shape
        q, k, v = self.wqkv(x).split(self.split, dim=-1)
        q = q.view(B, T, self.nh, self.hd)
        k = k.view(B, T, self.nkv, self.hd)
        if self.q_norm is not None and self.k_norm is not None:
            q, k = self.q_norm(q), self.k_norm(k)  # per head, before RoPE (Qwen3)
        q = apply_rope(q.transpose(1, 2), *rope)  # (B, nh, T, hd)
        k = apply_rope(k.transpose(1, 2), *rope)  # (B, nkv, T, hd)
        v = v.view(B, T, self.nkv, self.hd).transpose(1, 2)  # (B, nkv, T, hd)
        if cache is not None:
            k, v = cache.update(self.layer, k, v)  # (B, nkv, S, hd)
        # A fresh sequence without padding needs only the causal rule; one decode token with
        # equal histories may see every key (mask None); anything else gets the explicit mask.
        causal = mask is None and T > 1
        y = F.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, is_causal=causal, enable_gqa=self.nh != self.nkv
        )  # (B, nh, T, hd)
        return self.wo(y.transpose(1, 2).reshape(B, T, self.nh * self.hd))


class MLP(nn.Module):
    """SwiGLU: down(silu(gate(x)) * up(x)), with gate and up fused into one matmul."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.w_gate_up = Linear(cfg.hidden_size, 2 * cfg.intermediate_size)
        self.w_down = Linear(cfg.intermediate_size, cfg.hidden_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.w_gate_up(x).chunk(2, dim=-1)
        return self.w_down(F.silu(gate) * up)


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig, layer: int) -> None:
        super().__init__()
        self.attn_norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.attn = Attention(cfg, layer)
        self.mlp_norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.mlp = MLP(cfg)

    def forward(
        self,
        x: torch.Tensor,
        rope: tuple[torch.Tensor, torch.Tensor],
        mask: torch.Tensor | None,
        cache: Cache | None,
    ) -> torch.Tensor:
        x = x + self.attn(self.attn_norm(x), rope, mask, cache)
        return x + self.mlp(self.mlp_norm(x))


class Transformer(nn.Module):
    """A decoder-only Qwen3 or Llama model.

    `model(ids)` recomputes everything; `model(ids, cache)` appends the T new tokens to the
    cache and attends to everything cached before them. Positions come from the cache length.
    """

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        self.layers = nn.ModuleList(Block(cfg, i) for i in range(cfg.num_hidden_layers))
        self.norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        # With tied embeddings the loader fills lm_head with the embedding matrix, transposed:
        # a second copy (vocab x D) in the layout the output matmul reads fastest.
        self.lm_head = Linear(cfg.hidden_size, cfg.vocab_size)
        self.rope = RotaryEmbedding(cfg.head_dim, cfg.rope_theta)

    @classmethod
    def from_pretrained(
        cls,
        path: str | Path,
        dtype: torch.dtype = torch.float32,
        device: str | torch.device = "cpu",
    ) -> Transformer:
        """Load a local Hugging Face folder (config.json + safetensors). Never uses the network."""
        from mini_llm.loading import load_pretrained  # loading imports this module

        return load_pretrained(path, dtype=dtype, device=device)

    def forward(
        self,
        ids: torch.Tensor,
        cache: Cache | None = None,
        attention_mask: torch.Tensor | None = None,
        *,
        last_only: bool = False,
    ) -> torch.Tensor:
        """ids (B, T) -> logits (B, T, V), or (B, 1, V) for the last position if last_only.

        attention_mask (B, S), optional, marks real tokens (1) and padding (0) over the cached
        and the new tokens; positions then skip the padding, as for left-padded batches.
        last_only skips the output projection for positions whose logits a caller discards
        (generation after a prefill): a V x D matmul per token saved.
        """
        B, T = ids.shape
        past = cache.past_lengths(B) if cache is not None else [0] * B
        positions, mask = _positions_and_mask(past, T, attention_mask, ids.device)
        rope = self.rope(positions, max(past) + T, self.embed.weight.dtype)
        x = self.embed(ids)  # (B, T, D)
        for block in self.layers:
            x = block(x, rope, mask, cache)
        if last_only:
            x = x[:, -1:]  # (B, 1, D)
        return self.lm_head(self.norm(x))  # (B, T, V)


def _positions_and_mask(
    past: list[int], T: int, attention_mask: torch.Tensor | None, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Positions (B, T) of the new tokens and the boolean attention mask (B, 1, T, S) or None.

    None means "no mask needed": either a fresh causal sequence (SDPA's is_causal) or one new
    token per sequence that may see every cached key.
    """
    S = max(past) + T
    # Index of each new token on the key axis (B, T); without padding it is also its position.
    slots = torch.tensor(past, device=device)[:, None] + torch.arange(T, device=device)
    if attention_mask is None and min(past) == max(past) and (T == 1 or past[0] == 0):
        return slots, None
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
    return positions, mask[:, None]
