"""Fork and copy-on-write. Fill in append(), fork() and free(); see the statement."""

from collections import deque


class CowAllocator:
    def __init__(self, num_blocks: int, block_size: int) -> None:
        self.block_size = block_size
        # Free block ids in allocation order: take from the left, give back on the right.
        self._free: deque[int] = deque(range(num_blocks))
        self._refs = [0] * num_blocks  # block id -> how many sequences use it
        self._tables: dict[int, list[int]] = {}  # seq_id -> physical block ids
        self._tokens: dict[int, int] = {}  # seq_id -> number of tokens stored
        self._copies: list[tuple[int, int]] = []  # (source, destination), oldest first

    def append(self, seq_id: int, n: int) -> bool:
        """Grow seq_id by n tokens, copying a shared partly filled last block first."""
        raise NotImplementedError("append")

    def fork(self, parent_id: int, child_id: int) -> bool:
        """Make child_id share every block of parent_id; allocates nothing."""
        raise NotImplementedError("fork")

    def free(self, seq_id: int) -> list[int]:
        """Drop seq_id's references; return the blocks that went back to the free queue."""
        raise NotImplementedError("free")

    def take_copies(self) -> list[tuple[int, int]]:
        copies, self._copies = self._copies, []
        return copies

    def block_table(self, seq_id: int) -> list[int]:
        return list(self._tables.get(seq_id, []))

    def num_tokens(self, seq_id: int) -> int:
        return self._tokens.get(seq_id, 0)

    def ref_count(self, block_id: int) -> int:
        return self._refs[block_id]

    def free_blocks(self) -> list[int]:
        return list(self._free)
