"""Prefix caching. Fill in allocate(), append(), free() and reset(); see the statement."""

import hashlib
import json


def block_hash(parent: int | None, tokens: list[int], extra: str | None) -> int:
    """The hash of one full block, given the hash of the block before it (None for the first).

    Use exactly this function: it is the same in CPython and in the browser.
    """
    data = json.dumps([parent, tokens, extra], separators=(",", ":")).encode()
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")


class PrefixCache:
    def __init__(self, num_blocks: int, block_size: int) -> None:
        self.block_size = block_size
        # The free queue, least recently used first. A dict keeps insertion order and
        # also removes a block from the middle in O(1) (needed when a free block is hit).
        self._free: dict[int, None] = dict.fromkeys(range(num_blocks))
        self._refs = [0] * num_blocks  # block id -> number of requests using it
        self._block_of: dict[int, int] = {}  # block hash -> the cached block holding it
        self._tables: dict[int, list[int]] = {}  # req_id -> physical block ids

    def allocate(self, req_id: int, tokens: list[int], extra: str | None = None) -> int | None:
        """Admit a request; return the number of prompt tokens served from the cache."""
        raise NotImplementedError("allocate")

    def append(self, req_id: int, tokens: list[int]) -> bool:
        """Add decoded tokens to a request; cache every block they fill."""
        raise NotImplementedError("append")

    def free(self, req_id: int) -> list[int]:
        """Release a request; return the blocks that joined the free queue, in order."""
        raise NotImplementedError("free")

    def reset(self) -> bool:
        """Forget every cached hash, unless a request still holds blocks."""
        raise NotImplementedError("reset")

    def block_table(self, req_id: int) -> list[int]:
        return list(self._tables.get(req_id, []))

    def ref_count(self, block_id: int) -> int:
        return self._refs[block_id]

    def free_blocks(self) -> list[int]:
        return list(self._free)

    def cached_blocks(self) -> list[int]:
        return sorted(self._block_of.values())
