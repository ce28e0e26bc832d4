# expect: WA at case staggered-arrivals
# differs: 41 lines
# Stage 1's static batching: correct tokens, but a request that arrives while a batch runs
# waits for the whole batch, past the bound on time to first token.
"""Reference engine, stage 1: static batching. A batch is admitted only when nothing runs;
every prompt is prefilled whole in one step; then every request of the batch decodes one
token a step, and the batch takes newcomers only once its last request is done."""

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
        self.running = []

    def add_request(self, request_id, prompt_ids, max_new_tokens):
        self.waiting.append(Request(request_id, prompt_ids, max_new_tokens))

    def step(self):
        if not self.running:
            self.admit()
        if not self.running:
            return {}, []
        # A new request's whole prompt, a running one's last token: every chunk ends at the
        # end of its sequence, so every chunk gives its request's next token.
        chunks = [(r.id, r.seq[r.computed :], r.computed, r.table) for r in self.running]
        tokens = self.runner.forward(chunks)
        produced, finished = {}, []
        for req, token in zip(list(self.running), tokens, strict=True):
            req.computed = len(req.seq)
            req.out.append(token)
            produced[req.id] = token
            if len(req.out) == req.max_new:
                finished.append(req.id)
                self.running.remove(req)
                self.free.extend(req.table)
        return produced, finished

    def admit(self):
        """A new batch from the head of the queue: as many requests as the step's budget
        holds whole prompts of, each given up front the blocks of its whole sequence."""
        budget = self.runner.max_tokens_per_step
        while self.waiting:
            req = self.waiting[0]
            need = -(-(len(req.prompt) + req.max_new) // self.bs)
            if len(req.prompt) > budget or need > len(self.free):
                break
            self.waiting.popleft()
            req.table = [self.free.popleft() for _ in range(need)]
            self.running.append(req)
            budget -= len(req.prompt)
