"""Block table: a paged KV allocator. Fill in append() and free(); see the statement.
块表：分页的 KV 分配器。补全 append() 和 free()；详见题面。"""

from collections import deque


class BlockAllocator:
    def __init__(self, num_blocks: int, block_size: int) -> None:
        self.block_size = block_size
        # Free block ids in allocation order: take from the left, give back on the right.
        # 空闲块 id 按分配顺序排列：从左边取，归还到右边。
        self._free: deque[int] = deque(range(num_blocks))
        # seq_id -> physical block ids
        # seq_id -> 物理块 id
        self._tables: dict[int, list[int]] = {}
        # seq_id -> number of tokens stored
        # seq_id -> 已存的 token 数
        self._tokens: dict[int, int] = {}

    def append(self, seq_id: int, n: int) -> bool:
        """Grow seq_id by n tokens; False (and no change at all) when blocks run out.
        给 seq_id 增加 n 个 token；块不够时返回 False（且什么都不改）。"""
        raise NotImplementedError("append")

    def free(self, seq_id: int) -> list[int]:
        """Release every block of seq_id; return them in the order they join the free queue.
        释放 seq_id 的所有块；按它们进入空闲队列的顺序返回。"""
        raise NotImplementedError("free")

    def block_table(self, seq_id: int) -> list[int]:
        return list(self._tables.get(seq_id, []))

    def num_tokens(self, seq_id: int) -> int:
        return self._tokens.get(seq_id, 0)

    def free_blocks(self) -> list[int]:
        return list(self._free)
