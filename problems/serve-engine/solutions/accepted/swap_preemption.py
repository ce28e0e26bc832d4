"""Accepted: the reference's schedule, but a preempted request is swapped out to the
runner's host blocks (swap_out) and swapped back in (swap_in) instead of recomputed, where
the host has room for its blocks and none of them is shared; it recomputes otherwise. A
shared prompt block stays in the pool for the others, and on its return the request finds
it again by its prefix, as the reference does: swapping it out too would bring it back as a
private copy, and on a tight pool shared by a system prompt those copies kept newcomers
waiting past the time-to-first-token bound (WA on about one fresh seed in three)."""

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
        self.host = []  # host blocks holding its K/V while it is swapped out
        self.swapped = 0  # positions those host blocks hold

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
        self.host_free = deque(range(runner.host_blocks))
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
            if req.host:
                if not self.swap_back(req, budget):
                    break
            else:
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
            self.refs[block] -= 1
            if self.refs[block] == 0:
                self.free.append(block)
        req.table, req.computed, req.registered = [], 0, 0

    def preempt(self, req):
        """Swap its blocks out to the host (or, with no room there or a block shared,
        recompute later): its pool blocks go back, its tokens stay, it waits at the head."""
        private = all(self.refs[block] == 1 for block in req.table)
        if req.computed and private and len(req.table) <= len(self.host_free):
            pairs = [(block, self.host_free.popleft()) for block in req.table]
            self.runner.swap_out(pairs)
            req.host, req.swapped = [host for _, host in pairs], req.computed
        self.release(req)
        self.waiting.appendleft(req)

    def swap_back(self, req, budget):
        """Pool blocks for its swapped-out ones and its next tokens, then swap_in; False
        (nothing taken) when the pool is short."""
        n = min(len(req.seq) - req.swapped, budget)
        if -(-(req.swapped + n) // self.bs) > len(self.free):
            return False
        for _ in req.host:
            block = self.free.popleft()
            self.forget(block)  # about to be overwritten
            self.refs[block] = 1
            req.table.append(block)
        self.runner.swap_in(list(zip(req.host, req.table, strict=True)))
        self.host_free.extend(req.host)
        req.host, req.computed = [], req.swapped
        return True

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
