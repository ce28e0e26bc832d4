"""KVCache: the contiguous key/value cache, one preallocated buffer per layer."""

from __future__ import annotations

import torch

from mini_llm.errors import CacheError


class KVCache:
    """Keys and values of every token seen so far, for every layer.

    The buffers are allocated on the first update (that is when batch size, heads, dtype and
    device become known) and grow by doubling, so appending a token is a slice write, not a
    `torch.cat` that copies the whole history every step. Pass `max_len` to allocate the final
    size up front and never grow.

    `k[layer]` and `v[layer]` are views of the filled part: shape (B, n_kv_heads, length, head_dim).
    """

    def __init__(self, num_layers: int, max_len: int | None = None) -> None:
        if num_layers <= 0:
            raise CacheError(f"num_layers must be positive, got {num_layers}")
        self.num_layers = num_layers
        self.length = 0  # tokens cached so far, in every layer
        self._initial_capacity = max_len or 256
        self._k: list[torch.Tensor] = []
        self._v: list[torch.Tensor] = []

    @property
    def k(self) -> list[torch.Tensor]:
        return [buf[:, :, : self.length] for buf in self._k]

    @property
    def v(self) -> list[torch.Tensor]:
        return [buf[:, :, : self.length] for buf in self._v]

    def past_lengths(self, batch: int) -> list[int]:
        """Tokens already cached for each of `batch` sequences (all equal here)."""
        if self._k and self._k[0].shape[0] != batch:
            raise CacheError(f"cache holds batch {self._k[0].shape[0]}, got a batch of {batch}")
        return [self.length] * batch

    def update(
        self, layer: int, k: torch.Tensor, v: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Append k, v (B, n_kv, T, hd) to `layer`; return all cached keys and values of it.

        The cache length advances after the last layer has written, so every layer of one
        forward pass sees the same starting position.
        """
        if not self._k:
            self._allocate(k, max(self._initial_capacity, k.shape[2]))
        start, end = self.length, self.length + k.shape[2]
        if end > self._k[layer].shape[2]:
            self._grow(layer, end)
        self._k[layer][:, :, start:end] = k
        self._v[layer][:, :, start:end] = v
        if layer == self.num_layers - 1:
            self.length = end
        return self._k[layer][:, :, :end], self._v[layer][:, :, :end]

    def _allocate(self, like: torch.Tensor, capacity: int) -> None:
        B, n_kv, _, hd = like.shape
        shape = (B, n_kv, capacity, hd)
        for _ in range(self.num_layers):
            self._k.append(like.new_zeros(shape))
            self._v.append(like.new_zeros(shape))

    def _grow(self, layer: int, needed: int) -> None:
        # Doubling keeps the amortised cost of an append constant.
        capacity = max(needed, 2 * self._k[layer].shape[2])
        for bufs in (self._k, self._v):
            old = bufs[layer]
            new = old.new_zeros((*old.shape[:2], capacity, old.shape[3]))
            new[:, :, : old.shape[2]] = old
            bufs[layer] = new
