class Engine:
    """A serving engine over the runner's KV pool (see the statement).
    在 runner 的 KV 块池上运行的推理引擎（见题面）。"""

    def __init__(self, runner):
        # runner.num_blocks, runner.block_size, runner.max_tokens_per_step;
        # runner.forward([(request_id, token_ids, start, block_table), ...]) -> next tokens
        # runner.num_blocks、runner.block_size、runner.max_tokens_per_step；
        # runner.forward([(request_id, token_ids, start, block_table), ...]) -> 下一个 token
        self.runner = runner
        self.waiting = []

    def add_request(self, request_id, prompt_ids, max_new_tokens):
        """Queue a request.
        把请求加入等待队列。"""
        self.waiting.append((request_id, list(prompt_ids), max_new_tokens))

    def step(self):
        """Run one step; return ({request_id: token}, [finished request ids]).
        运行一步；返回 ({request_id: token}, [本步结束的 request id])。"""
        # Your code here: choose who runs, give them blocks, call runner.forward once or
        # more, and report the tokens that completed a sequence.
        # 在这里写代码：决定谁运行、分配块、调用 runner.forward，并报告生成的 token。
        raise NotImplementedError
