# expect: RE at case long-prompts-need-chunks
# differs: 1 line
# Prefills a newcomer's whole prompt in one step: a prompt longer than the step's budget
# is more tokens than the runner computes in a step, and it refuses.
"""Reference engine, stage 2: continuous batching with chunked prefill. Every step serves
the running requests first, then admits waiting ones into what is left of the token
budget; a prompt longer than that is prefilled in chunks over several steps. The pool
holds the whole workload at this stage: blocks are taken as a request grows, never short."""

from collections import deque


class Request:
    def __init__(self, request_id, prompt, max_new_tokens):
        self.id = request_id
        self.prompt = list(prompt)
        self.max_new = max_new_tokens
        self.out = []  # tokens generated so far
        self.computed = 0  # positions whose K/V is in the pool
        self.table = []  # block ids holding positions 0, 1, ... in order

    @property
    def seq(self):
        return self.prompt + self.out


class Engine:
    def __init__(self, runner):
        self.runner = runner
        self.bs = runner.block_size
        self.free = deque(range(runner.num_blocks))
        self.waiting = deque()
        self.running = []  # admission order

    def add_request(self, request_id, prompt_ids, max_new_tokens):
        self.waiting.append(Request(request_id, prompt_ids, max_new_tokens))

    def step(self):
        budget = self.runner.max_tokens_per_step
        plan = []
        # 1. The running requests, oldest first: a decode token, or their prefill's next chunk.
        for req in self.running:
            if budget == 0:
                break
            n = min(len(req.seq) - req.computed, budget)
            self.grow(req, req.computed + n)
            plan.append((req, n))
            budget -= n
        # 2. Admit from the head of the queue (first come, first served) into what is left.
        while self.waiting and budget > 0:
            req = self.waiting.popleft()
            n = len(req.seq) - req.computed
            self.grow(req, req.computed + n)
            self.running.append(req)
            plan.append((req, n))
            budget -= n
        if not plan:
            return {}, []
        chunks = [(r.id, r.seq[r.computed : r.computed + n], r.computed, r.table) for r, n in plan]
        tokens = self.runner.forward(chunks)
        produced, finished = {}, []
        for (req, n), token in zip(plan, tokens, strict=True):
            req.computed += n
            if req.computed < len(req.seq):
                continue  # a chunk inside the prefill: its token is not the next one
            req.out.append(token)
            produced[req.id] = token
            if len(req.out) == req.max_new:
                finished.append(req.id)
                self.running.remove(req)
                self.release(req)
        return produced, finished

    def grow(self, req, upto):
        """Give `req` blocks for positions below `upto` (the pool holds everyone here)."""
        while len(req.table) * self.bs < upto:
            req.table.append(self.free.popleft())

    def release(self, req):
        self.free.extend(req.table)
        req.table, req.computed = [], 0
