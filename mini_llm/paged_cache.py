"""PagedKVCache: keys and values in a preallocated pool of fixed-size blocks.

Each sequence owns a block table: logical block i (tokens i*block_size ... ) lives in the
physical block `tables[seq][i]` of the pool. Blocks are taken from a free list only when a
sequence's last block is full, and attention reads K/V by gathering through the table, so the
pool never needs to be contiguous per sequence. This is PagedAttention's layout written with
plain tensor indexing (a fused kernel would read the blocks in place instead of gathering).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

import torch

from mini_llm.config import ModelConfig
from mini_llm.errors import CacheError


class PagedKVCache:
    """A block pool shared by a batch of sequences, with one block table per sequence."""

    def __init__(
        self,
        num_layers: int,
        num_kv_heads: int,
        head_dim: int,
        num_blocks: int,
        block_size: int = 16,
        dtype: torch.dtype = torch.float32,
        device: str | torch.device = "cpu",
        block_order: list[int] | None = None,
    ) -> None:
        """`block_order` sets the order free blocks are handed out (default 0, 1, 2, ...)."""
        if min(num_layers, num_kv_heads, head_dim, num_blocks, block_size) <= 0:
            raise CacheError("every PagedKVCache size must be positive")
        order = list(range(num_blocks)) if block_order is None else list(block_order)
        if sorted(order) != list(range(num_blocks)):
            raise CacheError(f"block_order must be a permutation of range({num_blocks})")
        self.num_layers, self.block_size = num_layers, block_size
        # Zeros, not empty: masked slots still pass through softmax(..) @ V, and 0 * NaN = NaN.
        shape = (num_layers, num_blocks, block_size, num_kv_heads, head_dim)
        self.k_pool = torch.zeros(shape, dtype=dtype, device=device)
        self.v_pool = torch.zeros(shape, dtype=dtype, device=device)
        self.free_blocks: deque[int] = deque(order)
        self.tables: list[list[int]] = []
        self.lengths: list[int] = []

    @classmethod
    def for_model(
        cls,
        cfg: ModelConfig,
        num_blocks: int,
        block_size: int = 16,
        dtype: torch.dtype = torch.float32,
        device: str | torch.device = "cpu",
        block_order: list[int] | None = None,
    ) -> PagedKVCache:
        """A pool shaped for a model config (layers, kv heads, head dim)."""
        return cls(
            cfg.num_hidden_layers,
            cfg.num_key_value_heads,
            cfg.head_dim,
            num_blocks,
            block_size,
            dtype,
            device,
            block_order,
        )

    @property
    def length(self) -> int:
        """Tokens cached by the longest sequence."""
        return max(self.lengths, default=0)

    def past_lengths(self, batch: int) -> list[int]:
        """Tokens cached per sequence; the first call fixes the batch size."""
        if not self.tables:
            self.start(batch)
        if batch != len(self.tables):
            raise CacheError(f"cache holds {len(self.tables)} sequences, got a batch of {batch}")
        return list(self.lengths)

    def update(
        self, layer: int, k: torch.Tensor, v: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Write k, v (B, nkv, T, hd) after each sequence's cached tokens; return its K/V.

        Returns (B, nkv, S, hd) gathered through the block tables, S = longest length; slots
        past a shorter sequence's end hold stale data that the model's causal mask hides.
        """
        T = k.shape[2]
        if layer == 0:
            self._reserve(T)
        slots = self._slots(T, k.device)  # (B*T,) flat slot index into the pool
        pool_k = self.k_pool[layer].flatten(0, 1)  # (blocks*bs, nkv, hd), a view
        pool_v = self.v_pool[layer].flatten(0, 1)
        pool_k[slots] = k.transpose(1, 2).flatten(0, 1)  # (B*T, nkv, hd)
        pool_v[slots] = v.transpose(1, 2).flatten(0, 1)
        end = max(self.lengths) + T
        if layer == self.num_layers - 1:
            self.lengths = [n + T for n in self.lengths]
        return self._gather(self.k_pool[layer], end), self._gather(self.v_pool[layer], end)

    def start(self, batch: int) -> None:
        """Begin `batch` empty sequences (done implicitly by the first forward pass)."""
        self.release()
        self.tables, self.lengths = [[] for _ in range(batch)], [0] * batch

    @contextmanager
    def only(self, row: int) -> Iterator[PagedKVCache]:
        """Narrow the cache to one sequence, e.g. to prefill prompts of different lengths."""
        tables, lengths = self.tables, self.lengths
        self.tables, self.lengths = [tables[row]], [lengths[row]]
        try:
            yield self
        finally:
            tables[row], lengths[row] = self.tables[0], self.lengths[0]
            self.tables, self.lengths = tables, lengths

    def release(self) -> None:
        """Return every block to the free list (last block first, as vLLM does)."""
        for table in self.tables:
            self.free_blocks.extend(reversed(table))
        self.tables, self.lengths = [], []

    def _reserve(self, T: int) -> None:
        """Give each sequence enough blocks for T more tokens, or change nothing and raise."""
        need = [
            -(-(n + T) // self.block_size) - len(t)  # ceil((n + T) / bs) blocks minus those held
            for n, t in zip(self.lengths, self.tables, strict=True)
        ]
        if sum(need) > len(self.free_blocks):
            raise CacheError(
                f"block pool exhausted: need {sum(need)} blocks, {len(self.free_blocks)} free"
            )
        for table, count in zip(self.tables, need, strict=True):
            table.extend(self.free_blocks.popleft() for _ in range(count))

    def _slots(self, T: int, device: torch.device) -> torch.Tensor:
        positions = torch.tensor(self.lengths, device=device)[:, None] + torch.arange(
            T, device=device
        )  # (B, T)
        table = self._table_tensor(device)
        blocks = table.gather(1, positions // self.block_size)
        return (blocks * self.block_size + positions % self.block_size).flatten()

    def _table_tensor(self, device: torch.device) -> torch.Tensor:
        width = max(len(t) for t in self.tables)
        rows = [t + [t[-1]] * (width - len(t)) for t in self.tables]  # pad with a valid id
        return torch.tensor(rows, device=device)  # (B, max_blocks)

    def _gather(self, pool: torch.Tensor, end: int) -> torch.Tensor:
        table = self._table_tensor(pool.device)
        B, nblk = table.shape
        blocks = pool[table]  # (B, max_blocks, bs, nkv, hd): the reads through the table
        flat = blocks.reshape(B, nblk * self.block_size, *pool.shape[2:])[:, :end]
        return flat.transpose(1, 2)  # (B, nkv, S, hd)
