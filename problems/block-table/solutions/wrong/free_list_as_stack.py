# expect: WA at case grow-one-sequence step 0 (append(seq_id=0, n=3))
# differs: 9 lines
# Mistake: keeps free blocks in a Python list used as a stack (pop from the end, append
# to the end), so the most recently freed block is reused first.


class BlockAllocator:
    def __init__(self, num_blocks: int, block_size: int) -> None:
        self.block_size = block_size
        self._free = list(range(num_blocks))
        self._tables: dict[int, list[int]] = {}
        self._tokens: dict[int, int] = {}

    def append(self, seq_id: int, n: int) -> bool:
        tokens = self._tokens.get(seq_id, 0) + n
        table = self._tables.get(seq_id, [])
        need = -(-tokens // self.block_size) - len(table)
        if need > len(self._free):
            return False
        self._tables[seq_id] = table + [self._free.pop() for _ in range(need)]
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
        return list(self._free[::-1])
