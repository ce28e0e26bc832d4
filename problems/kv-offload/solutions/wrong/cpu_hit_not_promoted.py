# expect: WA at case offload-then-load step 4
# differs: 5 lines
# Mistake: copies a CPU hit to the GPU but leaves it in the CPU tier and keeps the GPU
# copy private, as if the CPU tier were read-only: the block is never promoted, so every
# later request that needs it loads it over PCIe again.
"""Reference two-tier KV block store: GPU blocks evicted to a CPU tier, CPU hits loaded back."""

import hashlib
import json


def block_hash(parent: int | None, tokens: list[int]) -> int:
    """The hash of one full block, given the hash of the block before it (None for the first)."""
    data = json.dumps([parent, tokens], separators=(",", ":")).encode()
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")


class TieredCache:
    """Full blocks cached by content hash in a GPU tier backed by a CPU tier.

    A hash lives in at most one tier. GPU blocks that no request uses wait in LRU order and
    are offloaded to the CPU tier when the GPU needs room; the CPU tier drops its own LRU
    block when it is full. A CPU hit moves the block back to the GPU.
    """

    def __init__(self, gpu_blocks: int, cpu_blocks: int, block_size: int, block_bytes: int) -> None:
        self.gpu_blocks = gpu_blocks
        self.cpu_blocks = cpu_blocks
        self.block_size = block_size
        self.block_bytes = block_bytes
        self._gpu_free: dict[int, None] = {}  # cached, unused GPU blocks; ordered: LRU first
        self._gpu_refs: dict[int, int] = {}  # cached GPU blocks in use -> number of users
        self._private = 0  # GPU blocks with no cache entry: partial tails and duplicates
        self._cpu: dict[int, None] = {}  # ordered: LRU first
        self._requests: dict[int, list[int | None]] = {}  # per block: its hash, None if private

    def start(self, req_id: int, tokens: list[int]) -> dict | None:
        """Admit a request: look up, claim, make room, load, compute; None if it cannot fit."""
        hashes = self._full_block_hashes(tokens)
        hits = self._lookup(hashes, (len(tokens) - 1) // self.block_size)
        gpu_hits = [h for h in hits if self._on_gpu(h)]
        cpu_hits = [h for h in hits if not self._on_gpu(h)]
        misses = -(-len(tokens) // self.block_size) - len(hits)
        need = len(cpu_hits) + misses  # GPU slots: loaded blocks and computed blocks
        # Unused GPU blocks that this request hits become its own, so they cannot make room.
        pinned = sum(1 for h in gpu_hits if h in self._gpu_free)
        if need > self.gpu_blocks - self._gpu_used() + len(self._gpu_free) - pinned:
            return None
        for h in gpu_hits:  # taken off the LRU list, so making room never evicts them
            self._gpu_free.pop(h, None)
            self._gpu_refs[h] = self._gpu_refs.get(h, 0) + 1
        offloaded = self._make_room(need)
        blocks: list[int | None] = [self._add_private() if h in cpu_hits else h for h in hits]
        for i in range(len(hits), len(hits) + misses):
            blocks.append(self._register(hashes[i]) if i < len(hashes) else self._add_private())
        self._requests[req_id] = blocks
        return {
            "gpu_hits": len(gpu_hits),
            "cpu_hits": len(cpu_hits),
            "misses": misses,
            "load_bytes": len(cpu_hits) * self.block_bytes,
            "offload_bytes": offloaded * self.block_bytes,
        }

    def finish(self, req_id: int) -> bool:
        """Release a request's blocks, last block first; False if it does not exist."""
        blocks = self._requests.pop(req_id, None)
        if blocks is None:
            return False
        # Last block first: the shared prefix becomes unused last, so it is offloaded last.
        for h in reversed(blocks):
            if h is None:
                self._private -= 1  # no hash, nothing to keep: the block is simply freed
                continue
            self._gpu_refs[h] -= 1
            if self._gpu_refs[h] == 0:
                del self._gpu_refs[h]
                self._gpu_free[h] = None
        return True

    def _full_block_hashes(self, tokens: list[int]) -> list[int]:
        bs, hashes = self.block_size, []
        for i in range(len(tokens) // bs):
            hashes.append(block_hash(hashes[-1] if hashes else None, tokens[i * bs : (i + 1) * bs]))
        return hashes

    def _lookup(self, hashes: list[int], limit: int) -> list[int]:
        # At least one prompt token is always computed, so the last token is never a hit.
        hits = []
        for h in hashes[:limit]:
            if not self._on_gpu(h) and h not in self._cpu:
                break
            hits.append(h)
        return hits

    def _on_gpu(self, h: int) -> bool:
        return h in self._gpu_free or h in self._gpu_refs

    def _gpu_used(self) -> int:
        return len(self._gpu_free) + len(self._gpu_refs) + self._private

    def _make_room(self, need: int) -> int:
        """Offload LRU unused GPU blocks until `need` slots are free; return how many moved."""
        moved = 0
        while self.gpu_blocks - self._gpu_used() < need:
            victim = next(iter(self._gpu_free))
            del self._gpu_free[victim]
            if self.cpu_blocks == 0:
                continue  # no CPU tier: the block is dropped and nothing is copied
            if len(self._cpu) == self.cpu_blocks:
                del self._cpu[next(iter(self._cpu))]
            self._cpu[victim] = None
            moved += 1
        return moved

    def _register(self, h: int) -> int | None:
        # A hash already held by either tier keeps its block; the new copy stays private.
        if self._on_gpu(h) or h in self._cpu:
            return self._add_private()
        self._gpu_refs[h] = 1
        return h

    def _add_private(self) -> None:
        self._private += 1
        return None

    def gpu_lru(self) -> list[int]:
        return list(self._gpu_free)

    def gpu_in_use(self) -> list[list[int]]:
        return [[h, self._gpu_refs[h]] for h in sorted(self._gpu_refs)]

    def gpu_private(self) -> int:
        return self._private

    def cpu_lru(self) -> list[int]:
        return list(self._cpu)
