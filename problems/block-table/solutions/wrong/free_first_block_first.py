# expect: WA at case free-order step 2 (free(seq_id=1))
# differs: 5 lines
# Mistake: gives a finished sequence's blocks back in table order (first block first)
# instead of last block first.
from collections import deque


class BlockAllocator:
    def __init__(self, num_blocks: int, block_size: int) -> None:
        self.block_size = block_size
        self._free: deque[int] = deque(range(num_blocks))
        self._tables: dict[int, list[int]] = {}
        self._tokens: dict[int, int] = {}

    def append(self, seq_id: int, n: int) -> bool:
        tokens = self._tokens.get(seq_id, 0) + n
        table = self._tables.get(seq_id, [])
        need = -(-tokens // self.block_size) - len(table)
        if need > len(self._free):
            return False
        self._tables[seq_id] = table + [self._free.popleft() for _ in range(need)]
        self._tokens[seq_id] = tokens
        return True

    def free(self, seq_id: int) -> list[int]:
        table = self._tables.pop(seq_id, [])
        self._tokens.pop(seq_id, None)
        self._free.extend(table)
        return list(table)

    def block_table(self, seq_id: int) -> list[int]:
        return list(self._tables.get(seq_id, []))

    def num_tokens(self, seq_id: int) -> int:
        return self._tokens.get(seq_id, 0)

    def free_blocks(self) -> list[int]:
        return list(self._free)
