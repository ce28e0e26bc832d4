"""A continuous-batching scheduler. Fill in step(); see the statement.
连续批处理调度器。补全 step()；详见题面。"""

from collections import deque


class _Request:
    def __init__(self, req_id: int, prompt_len: int, output_len: int) -> None:
        self.id = req_id
        self.prompt_len = prompt_len
        self.output_len = output_len
        # output tokens so far; kept across preemption
        # 目前已生成的输出 token 数；被抢占后保留
        self.generated = 0
        # tokens whose KV is stored; 0 while waiting
        # KV 已存下的 token 数；等待时为 0
        self.computed = 0


class Scheduler:
    def __init__(
        self, num_blocks: int, block_size: int, max_num_seqs: int, max_num_batched_tokens: int
    ) -> None:
        self.block_size = block_size
        self.max_num_seqs = max_num_seqs
        self.max_num_batched_tokens = max_num_batched_tokens
        # free KV blocks
        # 空闲的 KV 块数
        self._free = num_blocks
        self._waiting: deque[_Request] = deque()
        # admission order: the last is the lowest priority
        # 按准入顺序排列：最后一个优先级最低
        self._running: list[_Request] = []

    def add_request(self, req_id: int, prompt_len: int, output_len: int) -> None:
        self._waiting.append(_Request(req_id, prompt_len, output_len))

    def step(self) -> dict:
        """Schedule, run and retire one step; return scheduled, preempted and finished.
        调度、运行并让完成的请求退出，共一步；返回 scheduled、preempted 和 finished。"""
        raise NotImplementedError("step")

    def waiting(self) -> list[int]:
        return [req.id for req in self._waiting]

    def running(self) -> list[int]:
        return [req.id for req in self._running]

    def num_free_blocks(self) -> int:
        return self._free
