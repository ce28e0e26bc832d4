"""KV offload. Fill in start() and finish(); see the statement."""

import hashlib
import json


def block_hash(parent: int | None, tokens: list[int]) -> int:
    """The hash of one full block, given the hash of the block before it (None for the first).

    Use exactly this function: it is the same in CPython and in the browser.
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
        self._gpu_free: dict[int, None] = {}  # cached GPU blocks no request uses, LRU first
        self._gpu_refs: dict[int, int] = {}  # cached GPU blocks in use -> number of users
        self._private = 0  # GPU blocks held by requests with no cache entry
        self._cpu: dict[int, None] = {}  # CPU blocks, LRU first

    def start(self, req_id: int, tokens: list[int]) -> dict | None:
        """Admit a request: look its full blocks up, load, offload, compute. None if it does
        not fit on the GPU."""
        raise NotImplementedError("start")

    def finish(self, req_id: int) -> bool:
        """Release a request's blocks; False if it does not exist."""
        raise NotImplementedError("finish")

    def gpu_lru(self) -> list[int]:
        return list(self._gpu_free)

    def gpu_in_use(self) -> list[list[int]]:
        return [[h, self._gpu_refs[h]] for h in sorted(self._gpu_refs)]

    def gpu_private(self) -> int:
        return self._private

    def cpu_lru(self) -> list[int]:
        return list(self._cpu)
