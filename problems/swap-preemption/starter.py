"""A continuous-batching scheduler that preempts by swapping. Fill in step(); see the statement."""

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
        # Admission (or resume) order: the last one has the lowest priority.
        self._running: list[_Request] = []
        self._swapped: deque[_Request] = deque()  # swapped-out requests, in swap-out order

    def add_request(self, req_id: int, prompt_len: int, output_len: int) -> None:
        self._waiting.append(_Request(req_id, prompt_len, output_len))

    def step(self) -> dict:
        """Decode, swap out or drop, resume, admit, run and retire one step."""
        raise NotImplementedError("step")

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
