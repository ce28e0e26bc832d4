"""Reference continuous-batching scheduler that preempts by swapping KV blocks to CPU."""

from collections import deque


class _Request:
    def __init__(self, req_id: int, prompt_len: int, output_len: int) -> None:
        self.id = req_id
        self.prompt_len = prompt_len
        self.output_len = output_len
        self.generated = 0  # output tokens so far; kept across preemption
        self.computed = 0  # tokens whose KV is stored (on the GPU, or on the CPU while swapped)


class Scheduler:
    def __init__(
        self,
        num_blocks: int,
        block_size: int,
        max_num_seqs: int,
        max_num_batched_tokens: int,
        num_cpu_blocks: int,
    ) -> None:
        self.block_size = block_size
        self.max_num_seqs = max_num_seqs
        self.max_num_batched_tokens = max_num_batched_tokens
        self._free = num_blocks  # free GPU blocks
        self._free_cpu = num_cpu_blocks  # free CPU blocks
        self._waiting: deque[_Request] = deque()
        self._running: list[_Request] = []  # admission (or resume) order
        self._swapped: deque[_Request] = deque()  # swap-out order: the oldest comes back first

    def add_request(self, req_id: int, prompt_len: int, output_len: int) -> None:
        self._waiting.append(_Request(req_id, prompt_len, output_len))

    def step(self) -> dict:
        """Decode (preempting if short), resume, admit, run and retire one step."""
        batch: list[tuple[_Request, int]] = []
        out: dict[str, list] = {"swapped_out": [], "swapped_in": [], "dropped": []}
        for req in list(self._running):
            if req not in self._running:
                break  # preempted while an earlier request made room; so is everyone after
            if not self._reserve_slot(req, out):
                break
            batch.append((req, 1))
        # A preemption means memory is short: bringing anyone in now would only thrash.
        if not (out["swapped_out"] or out["dropped"]):
            self._resume(batch, out["swapped_in"])
            if not self._swapped:  # swapped requests are older work: they go first
                budget = self.max_num_batched_tokens - sum(n for _, n in batch)
                self._admit(batch, budget)
        return {
            "scheduled": [[req.id, n] for req, n in batch],
            **out,
            "finished": self._run(batch),
        }

    def _reserve_slot(self, req: _Request, out: dict[str, list]) -> bool:
        """Find room for one more token of req; False if req itself had to be preempted."""
        if req.computed % self.block_size != 0:
            return True  # its last block has room
        while self._free == 0:
            victim = self._running.pop()  # lowest priority: the latest admitted or resumed
            self._preempt(victim, out)
            if victim is req:
                return False
        self._free -= 1
        return True

    def _preempt(self, req: _Request, out: dict[str, list]) -> None:
        """Free req's GPU blocks; park its KV on the CPU if it fits there, else drop it."""
        blocks = self._blocks(req.computed)  # the partial last block is copied too
        self._free += blocks
        if blocks <= self._free_cpu:
            self._free_cpu -= blocks
            self._swapped.append(req)
            out["swapped_out"].append([req.id, blocks])
        else:  # no room on the CPU either: drop the KV and recompute it later
            out["dropped"].append([req.id, req.computed])
            req.computed = 0
            self._waiting.appendleft(req)

    def _resume(self, batch: list[tuple[_Request, int]], swapped_in: list) -> None:
        """Bring swapped requests back to the GPU, oldest first, while they fit."""
        # The seat and the token of budget always exist: nobody is admitted while a
        # request is swapped out, and max_num_batched_tokens >= max_num_seqs.
        while self._swapped:
            req = self._swapped[0]
            held = self._blocks(req.computed)  # what was copied out comes back
            needed = self._blocks(req.computed + 1)  # it decodes in this very step
            if needed > self._free:
                break  # first swapped, first resumed: nobody overtakes the head
            self._swapped.popleft()
            self._free_cpu += held
            self._free -= needed
            self._running.append(req)
            swapped_in.append([req.id, held])
            batch.append((req, 1))

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

    def swapped(self) -> list[int]:
        return [req.id for req in self._swapped]

    def num_free_blocks(self) -> int:
        return self._free

    def num_free_cpu_blocks(self) -> int:
        return self._free_cpu
