"""Prefix caching. Fill in allocate(), append(), free() and reset(); see the statement.
前缀缓存。补全 allocate()、append()、free() 和 reset()；详见题面。"""

import hashlib
import json


def block_hash(parent: int | None, tokens: list[int], extra: str | None) -> int:
    """The hash of one full block, given the hash of the block before it (None for the first).

    Use exactly this function: it is the same in CPython and in the browser.

    一个满块的哈希，由它前一块的哈希（第一块为 None）算出。
    请原样使用这个函数：它在 CPython 和浏览器里结果相同。
    """
    data = json.dumps([parent, tokens, extra], separators=(",", ":")).encode()
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")


class PrefixCache:
    def __init__(self, num_blocks: int, block_size: int) -> None:
        self.block_size = block_size
        # The free queue, least recently used first. A dict keeps insertion order and
        # also removes a block from the middle in O(1) (needed when a free block is hit).
        # 空闲队列，最久未用的在前。dict 保持插入顺序，
        # 也能在 O(1) 内从中间删掉一个块（命中一个空闲块时需要）。
        self._free: dict[int, None] = dict.fromkeys(range(num_blocks))
        # block id -> number of requests using it
        # 块 id -> 使用它的请求数
        self._refs = [0] * num_blocks
        # block hash -> the cached block holding it
        # 块哈希 -> 存着它的已缓存块
        self._block_of: dict[int, int] = {}
        # req_id -> physical block ids
        # req_id -> 物理块 id
        self._tables: dict[int, list[int]] = {}

    def allocate(self, req_id: int, tokens: list[int], extra: str | None = None) -> int | None:
        """Admit a request; return the number of prompt tokens served from the cache.
        接纳一个请求；返回由缓存提供的 prompt token 数。"""
        raise NotImplementedError("allocate")

    def append(self, req_id: int, tokens: list[int]) -> bool:
        """Add decoded tokens to a request; cache every block they fill.
        给请求加上解码出的 token；把它们填满的每一块都缓存起来。"""
        raise NotImplementedError("append")

    def free(self, req_id: int) -> list[int]:
        """Release a request; return the blocks that joined the free queue, in order.
        释放一个请求；按顺序返回进入空闲队列的块。"""
        raise NotImplementedError("free")

    def reset(self) -> bool:
        """Forget every cached hash, unless a request still holds blocks.
        忘掉所有已缓存的哈希，除非还有请求占着块。"""
        raise NotImplementedError("reset")

    def block_table(self, req_id: int) -> list[int]:
        return list(self._tables.get(req_id, []))

    def ref_count(self, block_id: int) -> int:
        return self._refs[block_id]

    def free_blocks(self) -> list[int]:
        return list(self._free)

    def cached_blocks(self) -> list[int]:
        return sorted(self._block_of.values())
