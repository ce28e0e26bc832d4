# expect: WA at case free-order step 6 (append(seq_id=3, n=6))
# differs: 9 lines
# Mistake: takes blocks one at a time and reports out of memory only when the queue runs
# dry, keeping the blocks it already took (a side effect on failure).
from collections import deque


class BlockAllocator:
    def __init__(self, num_blocks: int, block_size: int) -> None:
        self.block_size = block_size
        self._free: deque[int] = deque(range(num_blocks))
        self._tables: dict[int, list[int]] = {}
        self._tokens: dict[int, int] = {}

    def append(self, seq_id: int, n: int) -> bool:
        tokens = self._tokens.get(seq_id, 0) + n
        table = self._tables.setdefault(seq_id, [])
        while len(table) * self.block_size < tokens:
            if not self._free:
                return False
            table.append(self._free.popleft())
        self._tokens[seq_id] = tokens
        return True

    def free(self, seq_id: int) -> list[int]:
        table = self._tables.pop(seq_id, [])
        self._tokens.pop(seq_id, None)
        self._free.extend(reversed(table))
        return table[::-1]

    def block_table(self, seq_id: int) -> list[int]:
        return list(self._tables.get(seq_id, []))

    def num_tokens(self, seq_id: int) -> int:
        return self._tokens.get(seq_id, 0)

    def free_blocks(self) -> list[int]:
        return list(self._free)
