"""PoolRunner: the model behind a serving engine, computing over a fixed pool of KV blocks.

The engine decides; the runner computes. The engine chooses which requests run in a step,
how many of their tokens, and which blocks of the pool hold their keys and values; it
hands the runner chunks, and the runner writes each chunk's K/V into the slots its block
table names and attends over the positions before it, read back through the same table.
The pool is the only KV memory there is: the runner keeps nothing between calls but the
pool, so whatever the engine forgets, frees too early or overwrites is gone.

Where the runner has host blocks (a swap space in host memory), swap_out and swap_in copy
whole blocks between the pool and the host, so an engine may preempt by swapping instead of
recomputing; the host blocks are reachable only through those two calls.

The runner also keeps a shadow of the pool: for every slot, which token sequence's K/V it
holds (an interned prefix). A chunk that reads a slot holding another sequence's K/V (a
block freed while still shared, then written again; a table that points at the wrong block)
is recorded as a fault at once, instead of through a greedy token that the wrong K/V may
or may not change. Faults are recorded, not raised: the driver of a judged run reads them.
Malformed calls (a block outside the pool, a table too short, more tokens than the step
allows) raise PoolError, since nothing could be computed for them.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from mini_llm.chunk import Chunk, ChunkRecord
from mini_llm.errors import CacheError
from mini_llm.model import Transformer

MAX_FAULTS = 20  # recorded per runner; the first one is what a learner needs


class PoolError(CacheError):
    """A forward call the runner cannot compute (outside the pool, over the step's budget)."""


class PoolRunner:
    """`forward(chunks)` -> each chunk's next greedy token; see the module's docstring.

    A chunk is `(request_id, token_ids, start, block_table)`. The driver opens and closes
    each step (`begin_step`, `end_step`); an engine calls `forward` only inside its `step()`,
    at most `max_tokens_per_step` tokens per step over all its calls.
    """

    # All an engine may use, declared for an engine in another process (a trusted driver
    # passes the runner by these): the attributes copied once, the methods called back.
    remote_attributes = (
        "num_blocks",
        "block_size",
        "max_tokens_per_step",
        "host_blocks",
        "vocab_size",
    )
    remote_methods = ("forward", "swap_out", "swap_in")

    def __init__(
        self,
        model: Transformer,
        num_blocks: int,
        block_size: int,
        max_tokens_per_step: int,
        host_blocks: int = 0,
    ) -> None:
        for name, value in (
            ("num_blocks", num_blocks),
            ("block_size", block_size),
            ("max_tokens_per_step", max_tokens_per_step),
        ):
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise PoolError(f"{name} must be a positive int, got {value!r}")
        if not _is_int(host_blocks) or host_blocks < 0:
            raise PoolError(f"host_blocks must be an int >= 0, got {host_blocks!r}")
        cfg = model.cfg
        self.num_blocks, self.block_size = num_blocks, block_size
        self.max_tokens_per_step = max_tokens_per_step
        self.vocab_size = cfg.vocab_size
        self._model = model
        weight = model.embed.weight
        shape = (
            cfg.num_hidden_layers,
            num_blocks,
            block_size,
            cfg.num_key_value_heads,
            cfg.head_dim,
        )
        # Zeros, not empty: a gathered slot past a row's end still passes through softmax @ V.
        self._k = torch.zeros(shape, dtype=weight.dtype, device=weight.device)
        self._v = torch.zeros(shape, dtype=weight.dtype, device=weight.device)
        self._holds: list[int | None] = [None] * (num_blocks * block_size)
        # The swap space: blocks in host memory that only swap_out and swap_in reach.
        self.host_blocks = host_blocks
        host = (shape[0], host_blocks, *shape[2:])
        self._host_k = torch.zeros(host, dtype=weight.dtype, device="cpu")
        self._host_v = torch.zeros(host, dtype=weight.dtype, device="cpu")
        self._host_holds: list[int | None] = [None] * (host_blocks * block_size)
        self._parent: list[int] = [-1]  # prefix id -> the id of the prefix one token shorter
        self._ids: dict[tuple[int, int], int] = {}  # (parent id, token) -> prefix id; 0 is ()
        self._emitted: dict[tuple[int, int], tuple[int, int]] = {}
        self._left: int | None = None  # tokens left in the open step; None between steps
        self.steps: list[list[ChunkRecord]] = []
        self.faults: list[str] = []

    # ------------------------------------------------------------------ the driver's side

    def begin_step(self) -> None:
        self._left = self.max_tokens_per_step
        self.steps.append([])

    def end_step(self) -> None:
        self._left = None

    def prefix_id(self, tokens: Sequence[int]) -> int:
        """The interned id of a token sequence (the shadow's name for its K/V)."""
        current = 0
        for token in tokens:
            current = self._extend(current, token)
        return current

    def emitted(self, request: int, position: int) -> tuple[int, int] | None:
        """(token, prefix id) of the last forward that produced `request`'s token at
        sequence position `position`, from K/V of the sequence named by the prefix id."""
        return self._emitted.get((request, position))

    def blocks_in_use(self, step: int) -> int:
        """Distinct blocks the tables of step `step` named (what that step's batch held)."""
        return len({b for record in self.steps[step] for b in record.blocks})

    # ------------------------------------------------------------------ the engine's side

    @torch.inference_mode()
    def forward(self, chunks: Sequence[object]) -> list[int]:
        """Compute every chunk; return each one's next greedy token, in order."""
        if self._left is None:
            raise PoolError("forward() is called from inside the engine's step() only")
        if not isinstance(chunks, list | tuple) or not chunks:
            raise PoolError("forward() takes a non-empty list of chunks")
        parsed = [self._parse(i, chunk) for i, chunk in enumerate(chunks)]
        requests = [c.request for c in parsed]
        if len(set(requests)) != len(requests):
            raise PoolError("a request appears twice in one forward() call")
        total = sum(len(c.tokens) for c in parsed)
        if total > self._left:
            raise PoolError(
                f"this step would process {self.max_tokens_per_step - self._left + total} "
                f"tokens, over its budget of {self.max_tokens_per_step}"
            )
        self._left -= total
        prefixes = self._shadow(parsed)
        tokens: dict[int, int] = {}
        for length in sorted({len(c.tokens) for c in parsed}):
            group = [i for i, c in enumerate(parsed) if len(c.tokens) == length]
            for i, token in zip(group, self._compute([parsed[i] for i in group]), strict=True):
                tokens[i] = token
        out = [tokens[i] for i in range(len(parsed))]
        for chunk, prefix, token in zip(parsed, prefixes, out, strict=True):
            self._emitted[(chunk.request, chunk.end)] = (token, prefix)
            used = chunk.table[: -(-chunk.end // self.block_size)]
            self.steps[-1].append(ChunkRecord(chunk.request, chunk.start, len(chunk.tokens), used))
        return out

    @torch.inference_mode()
    def swap_out(self, pairs: Sequence[object]) -> None:
        """Copy each pair's pool block into its host block: [(block, host_block), ...]."""
        moves = self._moves(pairs, "swap_out", self.num_blocks, self.host_blocks)
        for block, host in moves:
            self._copy(block, host, to_host=True)

    @torch.inference_mode()
    def swap_in(self, pairs: Sequence[object]) -> None:
        """Copy each pair's host block into its pool block: [(host_block, block), ...]."""
        moves = self._moves(pairs, "swap_in", self.host_blocks, self.num_blocks)
        for host, block in moves:
            self._copy(block, host, to_host=False)

    # ------------------------------------------------------------------ inside

    def _moves(
        self, pairs: Sequence[object], call: str, sources: int, targets: int
    ) -> list[tuple[int, int]]:
        """The (source, target) pairs of a swap call, or PoolError naming the first bad one."""
        if self._left is None:
            raise PoolError(f"{call}() is called from inside the engine's step() only")
        if not isinstance(pairs, list | tuple):
            raise PoolError(f"{call}() takes a list of (from, to) block pairs")
        if self.host_blocks == 0 and pairs:
            raise PoolError(f"{call}(): this runner has no host blocks to swap with")
        moves = []
        for index, pair in enumerate(pairs):
            if not isinstance(pair, list | tuple) or len(pair) != 2 or not all(map(_is_int, pair)):
                raise PoolError(f"{call}() pair {index}: a pair is (from_block, to_block), ints")
            source, target = int(pair[0]), int(pair[1])
            if not 0 <= source < sources or not 0 <= target < targets:
                raise PoolError(
                    f"{call}() pair {index}: blocks are 0..{sources - 1} (from) and "
                    f"0..{targets - 1} (to), got ({source}, {target})"
                )
            moves.append((source, target))
        written = [target for _, target in moves]
        if len(set(written)) != len(written):
            raise PoolError(f"{call}(): a block is written twice in one call")
        return moves

    def _copy(self, block: int, host: int, to_host: bool) -> None:
        """One block's K/V and its shadow, between the pool and the host."""
        bs = self.block_size
        pool_slots, host_slots = (
            slice(block * bs, (block + 1) * bs),
            slice(host * bs, (host + 1) * bs),
        )
        if to_host:
            self._host_k[:, host].copy_(self._k[:, block])
            self._host_v[:, host].copy_(self._v[:, block])
            self._host_holds[host_slots] = self._holds[pool_slots]
        else:
            self._k[:, block].copy_(self._host_k[:, host])
            self._v[:, block].copy_(self._host_v[:, host])
            self._holds[pool_slots] = self._host_holds[host_slots]

    def _parse(self, index: int, chunk: object) -> Chunk:
        where = f"chunk {index}"
        if not isinstance(chunk, list | tuple) or len(chunk) != 4:
            raise PoolError(f"{where}: a chunk is (request_id, token_ids, start, block_table)")
        request, tokens, start, table = chunk
        if not _is_int(request):
            raise PoolError(f"{where}: request_id must be an int, got {request!r:.40}")
        where = f"chunk {index} (request {request})"
        if not isinstance(tokens, list | tuple) or not tokens:
            raise PoolError(f"{where}: token_ids must be a non-empty list of ints")
        if not all(_is_int(t) and 0 <= t < self.vocab_size for t in tokens):
            raise PoolError(f"{where}: token ids must be ints in 0..{self.vocab_size - 1}")
        if not _is_int(start) or start < 0:
            raise PoolError(f"{where}: start must be an int >= 0, got {start!r:.40}")
        if not isinstance(table, list | tuple) or not all(_is_int(b) for b in table):
            raise PoolError(f"{where}: block_table must be a list of block ids (ints)")
        outside = [b for b in table if not 0 <= b < self.num_blocks]
        if outside:
            raise PoolError(
                f"{where}: block {outside[0]} is outside the pool (blocks 0..{self.num_blocks - 1})"
            )
        end = start + len(tokens)
        need = -(-end // self.block_size)
        if len(table) < need:
            raise PoolError(
                f"{where}: positions 0..{end - 1} need {need} blocks of {self.block_size}, "
                f"the table names {len(table)}"
            )
        used = table[:need]
        if len(set(used)) != len(used):
            twice = next(b for b in used if used.count(b) > 1)
            raise PoolError(f"{where}: the block table names block {twice} twice")
        return Chunk(int(request), tuple(int(t) for t in tokens), int(start), tuple(table))

    def _slot(self, chunk: Chunk, position: int) -> int:
        return chunk.table[position // self.block_size] * self.block_size + (
            position % self.block_size
        )

    def _extend(self, parent: int, token: int) -> int:
        key = (parent, token)
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = len(self._parent)
            self._parent.append(parent)
        return found

    def _fault(self, en: str, zh: str) -> None:
        """Record a fault, in English and Chinese (a learner reads it in the judge's report)."""
        if len(self.faults) < MAX_FAULTS:
            step = len(self.steps) - 1
            self.faults.append(f"step {step}: {en} / 第 {step} 步：{zh}")

    def _shadow(self, chunks: list[Chunk]) -> list[int]:
        """Check what every chunk reads, then note what it writes; each chunk's prefix id."""
        writes: dict[int, int] = {}  # slot -> the chunk (index) that writes it in this call
        for i, chunk in enumerate(chunks):
            for position in range(chunk.start, chunk.end):
                slot = self._slot(chunk, position)
                if slot in writes:
                    first, block = chunks[writes[slot]].request, slot // self.block_size
                    self._fault(
                        f"requests {first} and {chunk.request} write the same slot (block "
                        f"{block}) in one call",
                        f"请求 {first} 和 {chunk.request} 在同一次调用里写同一个槽位（块 {block}）",
                    )
                writes[slot] = i
        prefixes, updates = [], []
        for chunk in chunks:
            current = 0
            for position in range(chunk.start):
                slot = self._slot(chunk, position)
                held = self._holds[slot]
                if slot in writes or held is None or self._parent[held] != current:
                    block = chunk.table[position // self.block_size]
                    self._fault(
                        f"request {chunk.request} reads position {position} from block {block}, "
                        "which does not hold that request's keys and values there (was the block "
                        "freed or written by another request while this one still used it?)",
                        f"请求 {chunk.request} 从块 {block} 读位置 {position}，但那里存的不是这个"
                        "请求在该位置的 K、V（这个块是否在它仍被使用时被释放，或被别的请求写过？）",
                    )
                    current = -1
                    break
                current = held
            if current < 0:
                prefixes.append(-1)
                continue
            for position, token in zip(range(chunk.start, chunk.end), chunk.tokens, strict=True):
                current = self._extend(current, token)
                updates.append((self._slot(chunk, position), current))
            prefixes.append(current)
        for slot, prefix in updates:
            self._holds[slot] = prefix
        return prefixes

    def _compute(self, chunks: list[Chunk]) -> list[int]:
        """Chunks of one length, as one batch: write their K/V, attend, take the argmax."""
        ids = torch.tensor([c.tokens for c in chunks], device=self._k.device)  # (B, T)
        cache = _TableCache(self, chunks)
        logits = self._model(ids, cache, last_only=True)[:, -1]  # (B, V)
        return [int(t) for t in logits.argmax(-1).tolist()]


class _TableCache:
    """mini_llm.model's Cache over the runner's pool, for one batch of chunks: each row's
    past is its chunk's start, and its blocks are the chunk's table."""

    def __init__(self, runner: PoolRunner, chunks: list[Chunk]) -> None:
        self._runner = runner
        bs = runner.block_size
        self._starts = [c.start for c in chunks]
        T = len(chunks[0].tokens)
        self._end = max(c.end for c in chunks)
        width = -(-self._end // bs)
        rows = []
        for c in chunks:
            own = list(c.table[: -(-c.end // bs)])
            rows.append(own + [own[-1]] * (width - len(own)))  # padding: masked, any valid id
        device = runner._k.device
        self._table = torch.tensor(rows, device=device)  # (B, width)
        positions = torch.tensor(self._starts, device=device)[:, None] + torch.arange(
            T, device=device
        )  # (B, T)
        blocks = self._table.gather(1, positions // bs)
        self._slots = (blocks * bs + positions % bs).flatten()  # (B*T,)

    def past_lengths(self, batch: int) -> list[int]:
        return list(self._starts)

    def update(
        self, layer: int, k: torch.Tensor, v: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Write k, v (B, nkv, T, hd) into the chunks' slots; return (B, nkv, S, hd) read
        back through the tables, S the longest chunk's end."""
        runner = self._runner
        runner._k[layer].flatten(0, 1)[self._slots] = k.transpose(1, 2).flatten(0, 1)
        runner._v[layer].flatten(0, 1)[self._slots] = v.transpose(1, 2).flatten(0, 1)
        return self._read(runner._k[layer]), self._read(runner._v[layer])

    def _read(self, pool: torch.Tensor) -> torch.Tensor:
        B, width = self._table.shape
        blocks = pool[self._table]  # (B, width, bs, nkv, hd)
        flat = blocks.reshape(B, width * self._runner.block_size, *pool.shape[2:])[:, : self._end]
        return flat.transpose(1, 2)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
