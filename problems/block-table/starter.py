"""Block table: a paged KV allocator. Fill in append() and free(); see the statement."""

from collections import deque


class BlockAllocator:
    def __init__(self, num_blocks: int, block_size: int) -> None:
        self.block_size = block_size
        # Free block ids in allocation order: take from the left, give back on the right.
        self._free: deque[int] = deque(range(num_blocks))
        self._tables: dict[int, list[int]] = {}  # seq_id -> physical block ids
        self._tokens: dict[int, int] = {}  # seq_id -> number of tokens stored

    def append(self, seq_id: int, n: int) -> bool:
        """Grow seq_id by n tokens; False (and no change at all) when blocks run out."""
        raise NotImplementedError("append")

    def free(self, seq_id: int) -> list[int]:
        """Release every block of seq_id; return them in the order they join the free queue."""
        raise NotImplementedError("free")

    def block_table(self, seq_id: int) -> list[int]:
        return list(self._tables.get(seq_id, []))

    def num_tokens(self, seq_id: int) -> int:
        return self._tokens.get(seq_id, 0)

    def free_blocks(self) -> list[int]:
        return list(self._free)
