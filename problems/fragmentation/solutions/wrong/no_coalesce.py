# expect: WA at case external-waste step 7 (finish id=2)
# differs: 8 lines
# Returns a finished reservation to the free list without merging it with its neighbours.
class Contiguous:
    """Max-length reservations in one linear pool, placed first-fit."""

    def __init__(self, pool_tokens: int) -> None:
        self.pool = pool_tokens
        self.holes = [(0, pool_tokens)]  # free runs (start, size), sorted
        self.live = {}  # id -> [offset, max_len, length]

    def arrive(self, rid, prompt, max_len):
        for i, (start, size) in enumerate(self.holes):
            if size >= max_len:
                if size == max_len:
                    del self.holes[i]
                else:
                    self.holes[i] = (start + max_len, size - max_len)
                self.live[rid] = [start, max_len, prompt]
                return "admitted", start
        return "rejected", None

    def grow(self, rid, tokens):
        if rid not in self.live:
            return "ignored"
        self.live[rid][2] += tokens
        return "ok"

    def finish(self, rid):
        if rid not in self.live:
            return "ignored"
        start, size, _ = self.live.pop(rid)
        self.holes.append((start, size))
        self.holes.sort()
        return "ok"

    def stats(self):
        used = sum(r[2] for r in self.live.values())
        reserved = sum(r[1] for r in self.live.values())
        free = self.pool - reserved
        largest = max((size for _, size in self.holes), default=0)
        return {"used": used, "internal": reserved - used, "external": free - largest, "free": free}


class Paged:
    """Fixed-size blocks taken on demand; only the count of blocks matters."""

    def __init__(self, pool_tokens: int, block_size: int) -> None:
        self.block_size = block_size
        self.free_blocks = pool_tokens // block_size
        self.live = {}  # id -> [blocks held, length]

    def _blocks(self, length):
        return -(-length // self.block_size)

    def arrive(self, rid, prompt):
        need = self._blocks(prompt)
        if need > self.free_blocks:
            return "rejected"
        self.free_blocks -= need
        self.live[rid] = [need, prompt]
        return "admitted"

    def grow(self, rid, tokens):
        if rid not in self.live:
            return "ignored"
        held, length = self.live[rid]
        need = self._blocks(length + tokens) - held
        if need > self.free_blocks:
            self.free_blocks += held  # preempted: its whole cache is dropped
            del self.live[rid]
            return "evicted"
        self.free_blocks -= need
        self.live[rid] = [held + need, length + tokens]
        return "ok"

    def finish(self, rid):
        if rid not in self.live:
            return "ignored"
        self.free_blocks += self.live.pop(rid)[0]
        return "ok"

    def stats(self):
        used = sum(r[1] for r in self.live.values())
        held = sum(r[0] for r in self.live.values())
        return {
            "used": used,
            "internal": held * self.block_size - used,
            "free_blocks": self.free_blocks,
        }


def simulate(pool_tokens: int, block_size: int, events: list) -> list:
    contiguous, paged = Contiguous(pool_tokens), Paged(pool_tokens, block_size)
    steps = []
    for event in events:
        rid, offset = event["id"], None
        if event["op"] == "arrive":
            c_result, offset = contiguous.arrive(rid, event["prompt"], event["max_len"])
            p_result = paged.arrive(rid, event["prompt"])
        elif event["op"] == "grow":
            c_result = contiguous.grow(rid, event["tokens"])
            p_result = paged.grow(rid, event["tokens"])
        else:
            c_result, p_result = contiguous.finish(rid), paged.finish(rid)
        steps.append(
            {
                "contiguous": {"result": c_result, "offset": offset, **contiguous.stats()},
                "paged": {"result": p_result, **paged.stats()},
            }
        )
    return steps
