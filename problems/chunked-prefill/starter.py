"""A scheduler with chunked prefill. Fill in step(); see the statement."""

from collections import deque


class _Request:
    def __init__(self, req_id: int, prompt_len: int, output_len: int) -> None:
        self.id = req_id
        self.prompt_len = prompt_len
        self.output_len = output_len
        self.generated = 0  # output tokens so far; kept across preemption
        self.computed = 0  # tokens whose KV is stored; 0 while waiting
        self.decoding = False  # prefill done: one token per step from the next step on


class Scheduler:
    def __init__(
        self, num_blocks: int, block_size: int, max_num_seqs: int, max_num_batched_tokens: int
    ) -> None:
        self.block_size = block_size
        self.max_num_seqs = max_num_seqs
        self.max_num_batched_tokens = max_num_batched_tokens
        self._free = num_blocks  # free KV blocks
        self._waiting: deque[_Request] = deque()
        self._running: list[_Request] = []  # admission order: the last is the lowest priority

    def add_request(self, req_id: int, prompt_len: int, output_len: int) -> None:
        self._waiting.append(_Request(req_id, prompt_len, output_len))

    def step(self) -> dict:
        """Schedule decodes, then prefill chunks; run them; retire; return the step's record."""
        raise NotImplementedError("step")

    def waiting(self) -> list[int]:
        return [req.id for req in self._waiting]

    def running(self) -> list[int]:
        return [req.id for req in self._running]

    def num_free_blocks(self) -> int:
        return self._free
