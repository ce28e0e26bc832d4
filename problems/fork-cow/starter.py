"""Fork and copy-on-write. Fill in append(), fork() and free(); see the statement.
fork 与写时复制。补全 append()、fork() 和 free()；详见题面。"""

from collections import deque


class CowAllocator:
    def __init__(self, num_blocks: int, block_size: int) -> None:
        self.block_size = block_size
        # Free block ids in allocation order: take from the left, give back on the right.
        # 空闲块 id 按分配顺序排列：从左边取，归还到右边。
        self._free: deque[int] = deque(range(num_blocks))
        # block id -> how many sequences use it
        # 块 id -> 使用它的序列数
        self._refs = [0] * num_blocks
        # seq_id -> physical block ids
        # seq_id -> 物理块 id
        self._tables: dict[int, list[int]] = {}
        # seq_id -> number of tokens stored
        # seq_id -> 已存的 token 数
        self._tokens: dict[int, int] = {}
        # (source, destination), oldest first
        # （源，目标），最早的在前
        self._copies: list[tuple[int, int]] = []

    def append(self, seq_id: int, n: int) -> bool:
        """Grow seq_id by n tokens, copying a shared partly filled last block first.
        给 seq_id 增加 n 个 token；若最后一块被共享且未填满，先复制它。"""
        raise NotImplementedError("append")

    def fork(self, parent_id: int, child_id: int) -> bool:
        """Make child_id share every block of parent_id; allocates nothing.
        让 child_id 共享 parent_id 的每一块；不分配任何块。"""
        raise NotImplementedError("fork")

    def free(self, seq_id: int) -> list[int]:
        """Drop seq_id's references; return the blocks that went back to the free queue.
        去掉 seq_id 的引用；返回回到空闲队列的块。"""
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
