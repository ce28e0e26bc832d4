# expect: WA at case prefill-decode-finish step 1 (add_request(2, 2, 1), step())
# differs: 2 lines
# Mistake: decides whether a decode needs a new block from computed + 1 instead of
# computed, so the block is taken one token late.
from collections import deque


class _Request:
    def __init__(self, req_id: int, prompt_len: int, output_len: int) -> None:
        self.id = req_id
        self.prompt_len = prompt_len
        self.output_len = output_len
        self.generated = 0  # output tokens so far; kept across preemption
        self.computed = 0  # tokens whose KV is stored; 0 while waiting


class Scheduler:
    def __init__(
        self, num_blocks: int, block_size: int, max_num_seqs: int, max_num_batched_tokens: int
    ) -> None:
        self.block_size = block_size
        self.max_num_seqs = max_num_seqs
        self.max_num_batched_tokens = max_num_batched_tokens
        self._free = num_blocks
        self._waiting: deque[_Request] = deque()
        self._running: list[_Request] = []

    def add_request(self, req_id: int, prompt_len: int, output_len: int) -> None:
        self._waiting.append(_Request(req_id, prompt_len, output_len))

    def step(self) -> dict:
        budget = self.max_num_batched_tokens
        batch: list[tuple[_Request, int]] = []
        preempted: list[int] = []
        for req in list(self._running):
            if req not in self._running:
                break  # preempted while an earlier request made room; so is everyone after
            if not self._reserve_slot(req, preempted):
                break
            batch.append((req, 1))
            budget -= 1
        if not preempted:
            self._admit(batch, budget)
        return {
            "scheduled": [[req.id, n] for req, n in batch],
            "preempted": preempted,
            "finished": self._run(batch),
        }

    def _reserve_slot(self, req: _Request, preempted: list[int]) -> bool:
        """Find room for one more token of req; False if req itself had to be preempted."""
        if (req.computed + 1) % self.block_size != 0:
            return True  # its last block has room
        while self._free == 0:
            victim = self._running.pop()  # lowest priority: the latest admitted
            self._preempt(victim)
            preempted.append(victim.id)
            if victim is req:
                return False
        self._free -= 1
        return True

    def _preempt(self, req: _Request) -> None:
        self._free += self._blocks(req.computed)
        req.computed = 0
        self._waiting.appendleft(req)

    def _admit(self, batch: list[tuple[_Request, int]], budget: int) -> None:
        while self._waiting and len(self._running) < self.max_num_seqs:
            req = self._waiting[0]
            tokens = req.prompt_len + req.generated  # recompute everything it had
            blocks = self._blocks(tokens)
            if tokens > budget or blocks > self._free:
                break  # first come, first served: nobody overtakes the head
            self._waiting.popleft()
            self._running.append(req)
            self._free -= blocks
            budget -= tokens
            batch.append((req, tokens))

    def _run(self, batch: list[tuple[_Request, int]]) -> list[int]:
        finished = []
        for req, n in batch:
            req.computed += n
            req.generated += 1
            if req.generated == req.output_len:
                finished.append(req.id)
                self._free += self._blocks(req.computed)
                self._running.remove(req)
        return finished

    def _blocks(self, tokens: int) -> int:
        return -(-tokens // self.block_size)

    def waiting(self) -> list[int]:
        return [req.id for req in self._waiting]

    def running(self) -> list[int]:
        return [req.id for req in self._running]

    def num_free_blocks(self) -> int:
        return self._free
