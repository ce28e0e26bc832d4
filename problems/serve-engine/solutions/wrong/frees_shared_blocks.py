# expect: RE at case shared-prefix
# differs: 3 lines
# Frees every block of a finished request, shared ones too: the free list then holds a block
# twice, and the runner refuses a table that is handed the same block twice (had it been
# handed to another request instead, the shadow would see a block overwritten while read).
"""Reference engine: continuous batching over the paged pool, chunked prefill, sharing of
full prompt blocks between requests, and preemption by recompute."""

from collections import deque


class Request:
    def __init__(self, request_id, prompt, max_new_tokens):
        self.id = request_id
        self.prompt = list(prompt)
        self.max_new = max_new_tokens
        self.out = []  # tokens generated so far, kept across a preemption
        self.computed = 0  # positions whose K/V is in the pool
        self.table = []  # block ids holding positions 0, 1, ... in order
        self.registered = 0  # full prompt blocks offered to other requests so far

    @property
    def seq(self):
        return self.prompt + self.out


class Engine:
    def __init__(self, runner):
        self.runner = runner
        self.bs = runner.block_size
        # Free blocks, handed out from the left. A freed block keeps its prefix entry until it
        # is handed out again, so a later request with the same prompt can still reuse it.
        self.free = deque(range(runner.num_blocks))
        self.refs = [0] * runner.num_blocks
        self.cached = {}  # tuple of the tokens up to a block's end -> block id
        self.key_of = {}  # block id -> its key in self.cached
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
            self.match_prefix(req)
            n = min(len(req.seq) - req.computed, budget)
            if not self.grow(req, req.computed + n):
                self.release(req)
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
            self.register(req)
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
            block = self.free.popleft()
            self.forget(block)  # about to be overwritten
            self.refs[block] = 1
            req.table.append(block)
        return True

    def release(self, req):
        for block in req.table:
            self.refs[block] = 0
            self.free.append(block)
        req.table, req.computed, req.registered = [], 0, 0

    def preempt(self, req):
        """Recompute later: its blocks go back, its tokens stay, it waits at the head."""
        self.release(req)
        self.waiting.appendleft(req)

    def match_prefix(self, req):
        """Reuse cached full blocks of its sequence; the last position is always computed
        (its logits give the next token), so its block is never a shared one."""
        seq = req.seq
        for j in range((len(seq) - 1) // self.bs):
            block = self.cached.get(tuple(seq[: (j + 1) * self.bs]))
            if block is None:
                break
            if self.refs[block] == 0:
                self.free.remove(block)
            self.refs[block] += 1
            req.table.append(block)
        req.registered = len(req.table)  # already in the cache
        req.computed = len(req.table) * self.bs

    def register(self, req):
        """Offer its full prompt blocks to later requests."""
        full = min(req.computed, len(req.prompt)) // self.bs
        for j in range(req.registered, full):
            key = tuple(req.prompt[: (j + 1) * self.bs])
            if key not in self.cached:
                self.cached[key] = req.table[j]
                self.key_of[req.table[j]] = key
        req.registered = max(req.registered, full)

    def forget(self, block):
        key = self.key_of.pop(block, None)
        if key is not None and self.cached.get(key) == block:
            del self.cached[key]
