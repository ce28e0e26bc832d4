"""A continuous-batching scheduler that preempts by swapping. Fill in step(); see the statement.
用换出来抢占的连续批处理调度器。补全 step()；详见题面。"""

from collections import deque


class _Request:
    def __init__(self, req_id: int, prompt_len: int, output_len: int) -> None:
        self.id = req_id
        self.prompt_len = prompt_len
        self.output_len = output_len
        # output tokens so far; kept across preemption
        # 目前已生成的输出 token 数；被抢占后保留
        self.generated = 0
        # tokens whose KV is stored (on the GPU, or on the CPU while swapped)
        # KV 已存下的 token 数（在 GPU 上，换出时在 CPU 上）
        self.computed = 0


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
        # free GPU blocks
        # 空闲的 GPU 块数
        self._free = num_blocks
        # free CPU blocks
        # 空闲的 CPU 块数
        self._free_cpu = num_cpu_blocks
        self._waiting: deque[_Request] = deque()
        # Admission (or resume) order: the last one has the lowest priority.
        # 按准入（或恢复）顺序排列：最后一个优先级最低。
        self._running: list[_Request] = []
        # swapped-out requests, in swap-out order
        # 已换出的请求，按换出顺序排列
        self._swapped: deque[_Request] = deque()

    def add_request(self, req_id: int, prompt_len: int, output_len: int) -> None:
        self._waiting.append(_Request(req_id, prompt_len, output_len))

    def step(self) -> dict:
        """Decode, swap out or drop, resume, admit, run and retire one step.
        一步之内：decode、换出或丢弃、恢复、准入、运行，并让完成的请求退出。"""
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
