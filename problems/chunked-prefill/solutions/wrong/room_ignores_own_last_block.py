# expect: WA at case chunk-cut-to-free-blocks step 2 (step())
# differs: 2 lines
# Mistake: measures the room for a chunk in free blocks only, forgetting the unused
# slots of the request's own last block, so a chunk is cut shorter than memory allows.
from collections import deque


class _Request:
    def __init__(self, req_id: int, prompt_len: int, output_len: int) -> None:
        self.id = req_id
        self.prompt_len = prompt_len
        self.output_len = output_len
        self.generated = 0  # output tokens so far; kept across preemption
        self.computed = 0  # tokens whose KV is stored; 0 while waiting
        self.decoding = False  # prefill done: one token per step from the next step on

    def todo(self) -> int:
        """Tokens to compute before its next output: the rest of its prefill, or 1 when
        decoding (its last output token is the one not yet fed back)."""
        return self.prompt_len + self.generated - self.computed


class Scheduler:
    def __init__(
        self, num_blocks: int, block_size: int, max_num_seqs: int, max_num_batched_tokens: int
    ) -> None:
        self.block_size = block_size
        self.max_num_seqs = max_num_seqs
        self.max_num_batched_tokens = max_num_batched_tokens
        self._free = num_blocks
        self._waiting: deque[_Request] = deque()
        # Admission order. At most one request in it is still prefilling, and it is the
        # last: a chunk is cut short only when the budget or the pool runs out, and then
        # nobody after it gets tokens in that step.
        self._running: list[_Request] = []

    def add_request(self, req_id: int, prompt_len: int, output_len: int) -> None:
        self._waiting.append(_Request(req_id, prompt_len, output_len))

    def step(self) -> dict:
        batch: list[tuple[_Request, int]] = []
        preempted: list[int] = []
        self._schedule_decodes(batch, preempted)
        if not preempted:
            # Each decode is one token; the prefills share what is left of the budget.
            self._schedule_prefills(batch, self.max_num_batched_tokens - len(batch))
        return {
            "scheduled": [[req.id, n] for req, n in batch],
            "total_num_scheduled_tokens": sum(n for _, n in batch),
            "preempted": preempted,
            "finished": self._run(batch),
        }

    def _schedule_decodes(self, batch: list[tuple[_Request, int]], preempted: list[int]) -> None:
        """One token for every decoding request, in running order, preempting from the tail."""
        for req in list(self._running):
            if req not in self._running or not req.decoding:
                break  # preempted while an earlier one made room, or the prefilling tail
            if not self._reserve_slot(req, preempted):
                break
            batch.append((req, 1))

    def _reserve_slot(self, req: _Request, preempted: list[int]) -> bool:
        """Find room for one more token of req; False if req itself had to be preempted."""
        if req.computed % self.block_size != 0:
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
        req.decoding = False  # it prefills prompt + generated again
        self._waiting.appendleft(req)

    def _schedule_prefills(self, batch: list[tuple[_Request, int]], budget: int) -> None:
        """The rest of the budget: the partly prefilled request first, then the waiting queue."""
        if self._running and not self._running[-1].decoding:
            budget -= self._give_chunk(self._running[-1], batch, budget)
        while self._waiting and len(self._running) < self.max_num_seqs:
            req = self._waiting[0]
            n = self._give_chunk(req, batch, budget)
            if n == 0:
                break  # first come, first served: nobody overtakes the head
            self._waiting.popleft()
            self._running.append(req)
            budget -= n

    def _give_chunk(self, req: _Request, batch: list[tuple[_Request, int]], budget: int) -> int:
        """Schedule min(rest of its prefill, budget, what its blocks and the free ones hold)."""
        held = self._blocks(req.computed)
        room = self._free * self.block_size
        n = min(req.todo(), budget, room)
        if n > 0:
            self._free -= self._blocks(req.computed + n) - held
            batch.append((req, n))
        return n

    def _run(self, batch: list[tuple[_Request, int]]) -> list[int]:
        finished = []
        for req, n in batch:
            req.computed += n
            if req.todo() > 0:
                continue  # a chunk short of the end: its sampled token is thrown away
            req.generated += 1
            req.decoding = True
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
