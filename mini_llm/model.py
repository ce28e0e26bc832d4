"""Transformer: the Qwen3 / Llama decoder's weights and its pass from token ids to logits.

How a layer attends (rotary positions, the mask, attention through the KV cache) is
mini_llm/attention.py, imported at the first forward pass (see `_attention`).

Shape legend: B batch, T new tokens this call, N = B*T rows, S cached + new tokens,
D hidden size, nh query heads, nkv key/value heads, hd head dim, V vocabulary.

Decode on a CPU is a stream of weight reads with small tensor ops in between, and each of
those ops costs far more than its arithmetic: the weight stream has just pushed PyTorch's own
code and data out of the CPU caches (a 576-wide RMSNorm takes ~20 us in a loop and ~80 us
right after a large matmul here). So the code below keeps the op count per layer low: the
hidden state stays 2-D (N, D) so every projection is one `torch.mm`, q and k are rotated in
one call, and an fp32 norm is one fused call. docs/BENCHMARKS.md has the measurements.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Protocol, cast

import torch
import torch.nn.functional as F
from torch import nn

from mini_llm.config import ModelConfig
from mini_llm.errors import PackingError
from mini_llm.loading import load_weights, open_checkpoint

if TYPE_CHECKING:
    from mini_llm.attention import Context


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
        if x.dtype == torch.float32:
            return F.rms_norm(x, self.weight.shape, self.weight, self.eps)  # one call, not eight
        # Below fp32, round exactly as the reference does: normalise in fp32, cast back to x's
        # dtype, then scale (F.rms_norm scales before the cast and differs by one bf16 step).
        x32 = x.float()
        normed = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * normed.to(x.dtype)

    # nn.Module types every call as returning Any; to the type checker, calling one of
    # these modules is calling its forward (at run time it still goes through hooks).
    if TYPE_CHECKING:
        __call__ = forward


class Linear(nn.Module):
    """y = x @ W with W stored (in, out), no bias.

    nn.Linear stores (out, in) and multiplies by its transpose. For the few rows of a decode
    step MKL reads the (in, out) layout 10-50% faster when the matrix is in the CPU caches and
    no slower when it streams from memory. The loader transposes Hugging Face's (out, in) tensors.
    """

    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features))
        # Optional second copy in MKL's packed GEMM layout, used for exactly `packed_rows` rows.
        self.packed: torch.Tensor | None = None
        self.packed_rows = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.packed is not None and x.shape[0] == self.packed_rows:
            # The op also takes the plain weight, its fallback for other row counts (unused here).
            y: torch.Tensor = torch.ops.mkl._mkl_linear(  # torch.ops is untyped
                x, self.packed, self.weight.t(), None, x.shape[0]
            )
            return y
        return torch.mm(x, self.weight)  # x (N, in): 2-D, so no reshapes around the product

    if TYPE_CHECKING:
        __call__ = forward

    def pack(self, rows: int) -> None:
        """Keep a copy of W in MKL's packed layout for products with exactly `rows` rows.

        An ordinary sgemm with a few rows re-packs panels of W on every call, which reads W
        and writes it again; the packed copy is read once per call. On this CPU a batch-8
        decode step is ~1.5x faster with it (BENCHMARKS.md), for twice the weight memory.
        """
        self.packed = torch.ops.mkl._mkl_reorder_linear_weight(self.weight.t().contiguous(), rows)
        self.packed_rows = rows

    def _apply(self, fn: Callable[[torch.Tensor], torch.Tensor], recurse: bool = True) -> Linear:
        # .to(), .cuda(), .half() and friends go through here: a moved or cast weight makes the
        # packed copy stale, so drop it and let products use the weight itself.
        self.packed, self.packed_rows = None, 0
        nn.Module._apply(self, fn, recurse)  # by name: untyped_calls_exclude misses super()
        return self


class Attention(nn.Module):
    """One layer's attention weights. The computation is `mini_llm.attention.attend`."""

    def __init__(self, cfg: ModelConfig, layer: int) -> None:
        super().__init__()
        self.layer = layer
        self.nh, self.nkv, self.hd = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim
        # One matmul for q, k and v: fewer kernel launches per decode step.
        self.wqkv = Linear(cfg.hidden_size, cfg.q_size + 2 * cfg.kv_size)
        self.wo = Linear(cfg.q_size, cfg.hidden_size)
        self.q_norm = RMSNorm(self.hd, cfg.rms_norm_eps) if cfg.qk_norm else None
        self.k_norm = RMSNorm(self.hd, cfg.rms_norm_eps) if cfg.qk_norm else None


class MLP(nn.Module):
    """SwiGLU: down(silu(gate(x)) * up(x)), with gate and up fused into one matmul."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.w_gate_up = Linear(cfg.hidden_size, 2 * cfg.intermediate_size)
        self.w_down = Linear(cfg.intermediate_size, cfg.hidden_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.w_gate_up(x).chunk(2, dim=-1)
        return self.w_down(F.silu(gate) * up)

    if TYPE_CHECKING:
        __call__ = forward


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig, layer: int) -> None:
        super().__init__()
        self.attn_norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.attn = Attention(cfg, layer)
        self.mlp_norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.mlp = MLP(cfg)

    def forward(
        self, x: torch.Tensor, B: int, kernel: ModuleType, ctx: Context, cache: Cache | None
    ) -> torch.Tensor:
        """x (N, D) -> (N, D); `kernel` is mini_llm.attention, `ctx` its per-pass context."""
        x = x + kernel.attend(self.attn, self.attn_norm(x), B, ctx, cache)
        return x + self.mlp(self.mlp_norm(x))

    if TYPE_CHECKING:
        __call__ = forward


class Transformer(nn.Module):
    """A decoder-only Qwen3 or Llama model.

    `model(ids)` recomputes everything; `model(ids, cache)` appends the T new tokens to the
    cache and attends to everything cached before them. Positions come from the cache length.
    """

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        # Given its (uninitialised) weight, Embedding skips its random init: on the meta device
        # that init goes through torch._refs, which imports torch._dynamo (1.2 s on first load).
        self.embed = nn.Embedding(
            cfg.vocab_size, cfg.hidden_size, _weight=torch.empty(cfg.vocab_size, cfg.hidden_size)
        )
        self.layers = nn.ModuleList(Block(cfg, i) for i in range(cfg.num_hidden_layers))
        self.norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        # With tied embeddings the loader fills lm_head with the embedding matrix, transposed:
        # a second copy (vocab x D) in the layout the output matmul reads fastest.
        self.lm_head = Linear(cfg.hidden_size, cfg.vocab_size)

    @classmethod
    def from_pretrained(
        cls,
        path: str | Path,
        dtype: torch.dtype = torch.float32,
        device: str | torch.device = "cpu",
    ) -> Transformer:
        """Load a local Hugging Face folder (config.json + safetensors). Never uses the network.

        Every tensor's name and shape is checked against config.json (mini_llm.loading)."""
        checkpoint = open_checkpoint(path)  # names checked before anything is built or read
        # Build on the meta device: no time spent on a random init that is overwritten anyway.
        with torch.device("meta"):
            model = cls(checkpoint.cfg).to(dtype)
        model.to_empty(device=device)
        load_weights(model, checkpoint)
        return model.eval().requires_grad_(False)

    def pack_for_batch(self, rows: int) -> None:
        """Repack every matrix for decode steps of exactly `rows` sequences (CPU, fp32, MKL).

        Steps with another number of rows (prefill, other batch sizes) use the plain weights.
        The packed copies double the weight memory. Moving or casting the model drops them
        (the plain weights then serve every product); after changing weights in place, call
        this again.
        """
        weight = self.lm_head.weight
        if not torch.backends.mkl.is_available():
            raise PackingError("this PyTorch build has no MKL, so weights cannot be packed")
        if weight.device.type != "cpu" or weight.dtype != torch.float32:
            raise PackingError(
                f"packing needs fp32 weights on the CPU, the model is {weight.dtype} on "
                f"{weight.device}"
            )
        if not isinstance(rows, int) or rows <= 0:
            raise PackingError(f"rows must be a positive int, got {rows!r}")
        for module in self.modules():
            if isinstance(module, Linear):
                module.pack(rows)

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
        kernel = _attention()
        ctx = kernel.prepare(self.cfg, past, T, attention_mask, self.embed.weight.dtype, ids.device)
        x = self.embed(ids.reshape(B * T))  # (N, D)
        for block in self.layers:
            x = block(x, B, kernel, ctx, cache)
        if last_only:
            x, T = x.view(B, T, -1)[:, -1], 1  # (B, D)
        return self.lm_head(self.norm(x)).view(B, T, -1)  # (B, T, V)

    def layer_input(self, ids: torch.Tensor, layer: int) -> torch.Tensor:
        """What layer `layer`'s attention receives for a fresh prompt ids (B, P): (B, P, D),
        the hidden states after the layers before it and the layer's input RMSNorm."""
        if not 0 <= layer < len(self.layers):
            raise IndexError(f"layer {layer} of a {len(self.layers)}-layer model")
        B, P = ids.shape
        kernel = _attention()
        ctx = kernel.prepare(self.cfg, [0] * B, P, None, self.embed.weight.dtype, ids.device)
        x = self.embed(ids.reshape(B * P))  # (N, D)
        for block in self.layers[:layer]:
            x = block(x, B, kernel, ctx, None)  # no cache: a fresh causal sequence
        target = cast(Block, self.layers[layer])
        return target.attn_norm(x).view(B, P, -1)

    if TYPE_CHECKING:
        __call__ = forward


def _attention() -> ModuleType:
    """mini_llm.attention, imported at the first forward pass rather than with this module.

    A problem that asks the learner to write the attention layer runs its jobs without that
    module; the model's weights must still load there, so only running the model needs it.
    """
    import mini_llm.attention  # noqa: PLC0415  (see the docstring)

    return mini_llm.attention
