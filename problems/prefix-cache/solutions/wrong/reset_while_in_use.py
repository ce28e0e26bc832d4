# expect: WA at case hit-blocks-are-not-evicted step 6 (reset())
# differs: 3 lines
# Mistake: resets the cache even while requests still hold blocks.
import hashlib
import json


def block_hash(parent: int | None, tokens: list[int], extra: str | None) -> int:
    """The hash of one full block, given the hash of the block before it (None for the first)."""
    data = json.dumps([parent, tokens, extra], separators=(",", ":")).encode()
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")


class _Request:
    def __init__(self, extra: str | None) -> None:
        self.extra = extra
        self.tokens: list[int] = []
        self.blocks: list[int] = []
        self.hashes: list[int] = []  # one per full block, whether or not it got registered


class PrefixCache:
    def __init__(self, num_blocks: int, block_size: int) -> None:
        self.block_size = block_size
        self._free: dict[int, None] = dict.fromkeys(range(num_blocks))  # ordered: LRU first
        self._refs = [0] * num_blocks
        self._hash_of: list[int | None] = [None] * num_blocks
        self._block_of: dict[int, int] = {}  # hash -> cached block
        self._requests: dict[int, _Request] = {}

    def allocate(self, req_id: int, tokens: list[int], extra: str | None = None) -> int | None:
        req = _Request(extra)
        req.tokens = list(tokens)
        self._hash_full_blocks(req)
        hits = self._lookup(req)
        need = -(-len(tokens) // self.block_size) - len(hits)
        # Hit blocks that sit in the free queue count as free but cannot serve as new blocks.
        if need > len(self._free) - sum(1 for b in hits if self._refs[b] == 0):
            return None
        for block in hits:  # hits leave the queue first, so the pops below never evict them
            self._free.pop(block, None)
            self._refs[block] += 1
        req.blocks = hits + [self._take() for _ in range(need)]
        for i in range(len(hits), len(req.hashes)):
            self._register(req.blocks[i], req.hashes[i])
        self._requests[req_id] = req
        return len(hits) * self.block_size

    def append(self, req_id: int, tokens: list[int]) -> bool:
        req = self._requests.get(req_id)
        if req is None:
            return False
        need = -(-(len(req.tokens) + len(tokens)) // self.block_size) - len(req.blocks)
        if need > len(self._free):
            return False
        req.blocks.extend(self._take() for _ in range(need))
        req.tokens.extend(tokens)
        done = len(req.hashes)
        self._hash_full_blocks(req)
        for i in range(done, len(req.hashes)):
            self._register(req.blocks[i], req.hashes[i])
        return True

    def free(self, req_id: int) -> list[int]:
        req = self._requests.pop(req_id, None)
        released = []
        for block in reversed(req.blocks if req else []):
            self._refs[block] -= 1
            if self._refs[block] == 0:
                released.append(block)
                self._free[block] = None  # stays cached until popped
        return released

    def reset(self) -> bool:
        self._block_of.clear()
        self._hash_of = [None] * len(self._hash_of)
        return True

    def _hash_full_blocks(self, req: _Request) -> None:
        bs = self.block_size
        for i in range(len(req.hashes), len(req.tokens) // bs):
            parent = req.hashes[-1] if req.hashes else None
            req.hashes.append(block_hash(parent, req.tokens[i * bs : (i + 1) * bs], req.extra))

    def _lookup(self, req: _Request) -> list[int]:
        # At least one prompt token is always computed, so the last token is never a hit.
        limit = (len(req.tokens) - 1) // self.block_size
        hits = []
        for h in req.hashes[:limit]:
            if h not in self._block_of:
                break
            hits.append(self._block_of[h])
        return hits

    def _take(self) -> int:
        block = next(iter(self._free))
        del self._free[block]
        evicted = self._hash_of[block]
        if evicted is not None:
            del self._block_of[evicted]
            self._hash_of[block] = None
        self._refs[block] = 1
        return block

    def _register(self, block: int, h: int) -> None:
        if h not in self._block_of:  # an equal block is already cached: keep the older one
            self._block_of[h] = block
            self._hash_of[block] = h

    def block_table(self, req_id: int) -> list[int]:
        req = self._requests.get(req_id)
        return list(req.blocks) if req else []

    def ref_count(self, block_id: int) -> int:
        return self._refs[block_id]

    def free_blocks(self) -> list[int]:
        return list(self._free)

    def cached_blocks(self) -> list[int]:
        return sorted(self._block_of.values())
