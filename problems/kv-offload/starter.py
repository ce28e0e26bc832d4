"""KV offload. Fill in start() and finish(); see the statement.
KV 卸载。补全 start() 和 finish()；详见题面。"""

import hashlib
import json


def block_hash(parent: int | None, tokens: list[int]) -> int:
    """The hash of one full block, given the hash of the block before it (None for the first).

    Use exactly this function: it is the same in CPython and in the browser.

    一个满块的哈希，由它前一块的哈希（第一块为 None）算出。
    请原样使用这个函数：它在 CPython 和浏览器里结果相同。
    """
    data = json.dumps([parent, tokens], separators=(",", ":")).encode()
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")


class TieredCache:
    def __init__(self, gpu_blocks: int, cpu_blocks: int, block_size: int, block_bytes: int) -> None:
        self.gpu_blocks = gpu_blocks
        self.cpu_blocks = cpu_blocks
        self.block_size = block_size
        self.block_bytes = block_bytes
        # Dicts keep insertion order, so each can serve as an LRU list (oldest first) that
        # also removes a hash from the middle in O(1).
        # dict 保持插入顺序，所以每个都可以当作 LRU 列表（最旧的在前），
        # 而且能在 O(1) 内从中间删掉一个哈希。
        # cached GPU blocks no request uses, LRU first
        # 没有请求在用的已缓存 GPU 块，按 LRU 排列，最旧的在前
        self._gpu_free: dict[int, None] = {}
        # cached GPU blocks in use -> number of users
        # 正在使用的已缓存 GPU 块 -> 使用者数
        self._gpu_refs: dict[int, int] = {}
        # GPU blocks held by requests with no cache entry
        # 没有缓存条目的请求所占的 GPU 块数
        self._private = 0
        # CPU blocks, LRU first
        # CPU 块，按 LRU 排列，最旧的在前
        self._cpu: dict[int, None] = {}

    def start(self, req_id: int, tokens: list[int]) -> dict | None:
        """Admit a request: look its full blocks up, load, offload, compute. None if it does
        not fit on the GPU.
        接纳一个请求：查找它的满块，加载、卸载、计算。放不进 GPU 时返回 None。"""
        raise NotImplementedError("start")

    def finish(self, req_id: int) -> bool:
        """Release a request's blocks; False if it does not exist.
        释放一个请求的块；请求不存在时返回 False。"""
        raise NotImplementedError("finish")

    def gpu_lru(self) -> list[int]:
        return list(self._gpu_free)

    def gpu_in_use(self) -> list[list[int]]:
        return [[h, self._gpu_refs[h]] for h in sorted(self._gpu_refs)]

    def gpu_private(self) -> int:
        return self._private

    def cpu_lru(self) -> list[int]:
        return list(self._cpu)
