# expect: RE at case burst-forces-preemption
# differs: 1 line
# Counts four blocks more than the pool has: under memory pressure it names blocks that do
# not exist instead of preempting.
"""Reference engine, stage 3: continuous batching with chunked prefill over a pool smaller
than the workload. Blocks are taken as a request grows; when they run out, the newest
running request is preempted and recomputed later."""

from collections import deque


class Request:
    def __init__(self, request_id, prompt, max_new_tokens):
        self.id = request_id
        self.prompt = list(prompt)
        self.max_new = max_new_tokens
        self.out = []  # tokens generated so far, kept across a preemption
        self.computed = 0  # positions whose K/V is in the pool
        self.table = []  # block ids holding positions 0, 1, ... in order

    @property
    def seq(self):
        return self.prompt + self.out


class Engine:
    def __init__(self, runner):
        self.runner = runner
        self.bs = runner.block_size
        self.free = deque(range(runner.num_blocks + 4))
        self.waiting = deque()
        self.running = []  # admission order: the last is preempted first

    def add_request(self, request_id, prompt_ids, max_new_tokens):
        self.waiting.append(Request(request_id, prompt_ids, max_new_tokens))

    def step(self):
        budget = self.runner.max_tokens_per_step
        plan = []
        preempted = False
        # 1. The running requests, oldest first: a decode token, or their prefill's next chunk.
        i = 0
        while i < len(self.running) and budget > 0:
            req = self.running[i]
            n = min(len(req.seq) - req.computed, budget)
            if not self.grow(req, req.computed + n):
                victim = self.running.pop()
                self.preempt(victim)
                preempted = True
                if victim is req:
                    break
                continue
            plan.append((req, n))
            budget -= n
            i += 1
        # 2. Admit from the head of the queue (first come, first served), unless memory was
        # short in this step. The head blocks everyone behind it: nobody overtakes it.
        while self.waiting and budget > 0 and not preempted:
            req = self.waiting[0]
            n = min(len(req.seq) - req.computed, budget)
            if not self.grow(req, req.computed + n):
                break
            self.waiting.popleft()
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
        """Give `req` blocks for positions below `upto`; False (nothing taken) if too few."""
        need = -(-upto // self.bs) - len(req.table)
        if need > len(self.free):
            return False
        for _ in range(need):
            req.table.append(self.free.popleft())
        return True

    def release(self, req):
        self.free.extend(req.table)
        req.table, req.computed = [], 0

    def preempt(self, req):
        """Recompute later: its blocks go back, its tokens stay, it waits at the head."""
        self.release(req)
        self.waiting.appendleft(req)
