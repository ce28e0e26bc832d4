# expect: WA at case full-block-is-not-copied step 2 (append(seq_id=1, n=1))
# differs: 2 lines
# Mistake: copies the last block whenever it is shared, even when it is already full and
# the new tokens go to a fresh block anyway.
from collections import deque


class CowAllocator:
    def __init__(self, num_blocks: int, block_size: int) -> None:
        self.block_size = block_size
        self._free: deque[int] = deque(range(num_blocks))
        self._refs = [0] * num_blocks
        self._tables: dict[int, list[int]] = {}
        self._tokens: dict[int, int] = {}
        self._copies: list[tuple[int, int]] = []

    def append(self, seq_id: int, n: int) -> bool:
        tokens = self._tokens.get(seq_id, 0)
        table = list(self._tables.get(seq_id, []))
        cow = bool(table) and self._refs[table[-1]] > 1
        fresh = -(-(tokens + n) // self.block_size) - len(table)
        if fresh + cow > len(self._free):
            return False  # checked before anything is taken
        if cow:
            src, dst = table[-1], self._take()
            self._refs[src] -= 1
            self._copies.append((src, dst))
            table[-1] = dst
        table.extend(self._take() for _ in range(fresh))
        self._tables[seq_id] = table
        self._tokens[seq_id] = tokens + n
        return True

    def _take(self) -> int:
        block = self._free.popleft()
        self._refs[block] = 1
        return block

    def fork(self, parent_id: int, child_id: int) -> bool:
        if parent_id not in self._tables or child_id in self._tables:
            return False
        table = self._tables[parent_id]
        for block in table:
            self._refs[block] += 1
        self._tables[child_id] = list(table)
        self._tokens[child_id] = self._tokens[parent_id]
        return True

    def free(self, seq_id: int) -> list[int]:
        released = []
        for block in reversed(self._tables.pop(seq_id, [])):
            self._refs[block] -= 1
            if self._refs[block] == 0:
                released.append(block)
        self._tokens.pop(seq_id, None)
        self._free.extend(released)
        return released

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
