"""The stateful references keep the promises their statements make.

`judge check` compares every submission with the reference, so a bug in a reference
would be invisible to it. These tests replay the public and generated traces of the
stateful problems through their references and check, step by step, the statements'
rules restated without the reference's code: no block is lost or owned twice, counts
equal owners, a reused block holds exactly the prefix the request needs and a possible
hit is never missed, the free and eviction orders, resets only when idle, and the
scheduler's budgets, victims and first-come-first-served order, chunked prefill's
budget and order, and swapping's two pools. Every known-wrong
solution of these problems breaks at least one of them (checked when they were written).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from judge.problem.cases import load_module

ROOT = Path(__file__).resolve().parents[2] / "problems"
SEEDS = (1, 20261129)


def _module(slug: str, name: str) -> ModuleType:
    path = ROOT / slug / f"{name}.py"
    return load_module(path.read_text(encoding="utf-8"), f"{slug}_{name}", str(path))


def _traces(slug: str) -> Iterator[tuple[dict, list[dict]]]:
    """(args, observation) for every public case and the generated cases of two seeds."""
    cases, reference = _module(slug, "cases"), _module(slug, "reference")
    all_cases = list(cases.public_cases())
    for seed in SEEDS:
        all_cases += cases.generated_cases(random.Random(seed))
    for case in all_cases:
        yield case["args"], cases.run(reference, case["args"])


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def test_block_table_takes_from_the_head_and_frees_last_block_first() -> None:
    for args, steps in _traces("block-table"):
        bs, tables, tokens = args["block_size"], {}, {}
        free = list(range(args["num_blocks"]))
        for op, step in zip(args["ops"], steps, strict=True):
            seq, state = op[1], step["state"]
            old_table, old_tokens = tables.get(seq, []), tokens.get(seq, 0)
            if op[0] == "append":
                need = _ceil_div(old_tokens + op[2], bs) - len(old_table)
                assert step["result"] is (need <= len(free)), step["op"]
                if step["result"]:
                    assert state["block_table"] == old_table + free[:need], step["op"]
                    assert state["num_tokens"] == old_tokens + op[2]
                else:
                    assert state["block_table"] == old_table and state["free_blocks"] == free
            else:
                assert step["result"] == old_table[::-1], step["op"]
                assert state["free_blocks"] == free + old_table[::-1]
            tables[seq], tokens[seq], free = (
                state["block_table"],
                state["num_tokens"],
                state["free_blocks"],
            )
            owned = [b for table in tables.values() for b in table]
            assert sorted(owned + free) == list(range(args["num_blocks"])), step["op"]


def test_fork_cow_counts_owners_and_copies_only_shared_partial_blocks() -> None:
    copies_seen = 0
    for args, steps in _traces("fork-cow"):
        bs, n = args["block_size"], args["num_blocks"]
        tables: dict[int, list[int]] = {}
        tokens: dict[int, int] = {}
        refs = [0] * n
        for op, step in zip(args["ops"], steps, strict=True):
            state = step["state"]
            if op[0] == "append" and state["copies"]:
                seq = op[1]
                ((src, dst),) = state["copies"]
                assert tokens[seq] % bs != 0 and refs[src] > 1, step["op"]
                assert tables[seq][-1] == src and state["block_table"][len(tables[seq]) - 1] == dst
                copies_seen += 1
            elif op[0] == "append" and step["result"] and tokens.get(op[1], 0) % bs:
                assert refs[tables[op[1]][-1]] == 1, f"{step['op']}: wrote into a shared block"
            touched = op[2] if op[0] == "fork" else op[1]
            if state["block_table"]:
                tables[touched], tokens[touched] = state["block_table"], state["num_tokens"]
            else:
                tables.pop(touched, None)
                tokens.pop(touched, None)
            refs = state["ref_counts"]
            owners = Counter(b for table in tables.values() for b in table)
            assert refs == [owners[b] for b in range(n)], step["op"]
            assert sorted(state["free_blocks"]) == [b for b in range(n) if not owners[b]]
    assert copies_seen > 50  # the traces do exercise copy-on-write


class _PrefixModel:
    """What each block holds: (extra, every token up to the block's end) once it is full."""

    def __init__(self, block_size: int) -> None:
        self.bs = block_size
        self.content: dict[int, tuple[object, tuple[int, ...]] | None] = {}
        self.requests: dict[int, tuple[list[int], str | None]] = {}
        self.tables: dict[int, list[int]] = {}

    def key(self, tokens: list[int], extra: str | None, i: int) -> tuple | None:
        end = (i + 1) * self.bs
        return (extra, tuple(tokens[:end])) if end <= len(tokens) else None

    def allocated(
        self,
        req: int,
        tokens: list[int],
        extra: str | None,
        hit: int,
        table: list[int],
        cached_before: list[int],
    ) -> None:
        bs, k = self.bs, hit // self.bs
        assert hit % bs == 0 and k <= (len(tokens) - 1) // bs, "hit too long"
        for i in range(k):
            assert self.content[table[i]] == self.key(tokens, extra, i), "hit the wrong block"
        if k < (len(tokens) - 1) // bs:  # the walk stopped early: no cached block matched
            wanted = self.key(tokens, extra, k)
            assert all(self.content.get(b) != wanted for b in cached_before), "missed a hit"
        for i in range(k, len(table)):
            self.content[table[i]] = self.key(tokens, extra, i)
        self.requests[req], self.tables[req] = (list(tokens), extra), table

    def appended(self, req: int, new: list[int], table: list[int]) -> None:
        tokens, extra = self.requests[req]
        tokens += new
        for i, block in enumerate(table):
            if i >= len(self.tables[req]) or self.content.get(block) is None:
                self.content[block] = self.key(tokens, extra, i)
        self.tables[req] = table


def test_prefix_cache_reuses_only_identical_prefixes_and_never_misses_one() -> None:
    hits = 0
    for args, steps in _traces("prefix-cache"):
        model, n = _PrefixModel(args["block_size"]), args["num_blocks"]
        cached: list[int] = []
        for op, step in zip(args["ops"], steps, strict=True):
            state, result = step["state"], step["result"]
            if op[0] == "allocate" and result is not None:
                model.allocated(op[1], op[2], op[3], result, state["block_table"], cached)
                hits += result > 0
            elif op[0] == "append" and result:
                model.appended(op[1], op[2], state["block_table"])
            elif op[0] == "free":
                model.tables.pop(op[1], None)
            cached = state["cached_blocks"]
            keys = [model.content.get(b) for b in cached]
            assert None not in keys and len(set(keys)) == len(keys), step["op"]
            owners = Counter(b for table in model.tables.values() for b in table)
            assert state["ref_counts"] == [owners[b] for b in range(n)], step["op"]
            assert sorted(state["free_blocks"]) == [b for b in range(n) if not owners[b]]
    assert hits > 100  # the traces do share prefixes


def test_scheduler_keeps_budgets_and_finishes_every_request() -> None:
    preemptions = 0
    for args, steps in _traces("scheduler"):
        bs = args["block_size"]
        spec = {r[0]: (r[2], r[3]) for r in args["requests"]}
        computed: Counter[int] = Counter()
        generated: Counter[int] = Counter()
        finished: list[int] = []
        for step in steps:
            result, state = step["result"], step["state"]
            assert sum(n for _, n in result["scheduled"]) <= args["max_num_batched_tokens"]
            assert len(state["running"]) <= args["max_num_seqs"]
            for req in result["preempted"]:
                computed[req] = 0
            preemptions += len(result["preempted"])
            for req, n in result["scheduled"]:
                prompt, _ = spec[req]
                assert n == (prompt + generated[req] if computed[req] == 0 else 1), step["op"]
                computed[req] += n
                generated[req] += 1
            for req in result["finished"]:
                assert generated[req] == spec[req][1]
                finished.append(req)
            held = sum(_ceil_div(computed[r], bs) for r in state["running"])
            assert held + state["num_free_blocks"] == args["num_blocks"], step["op"]
        assert sorted(finished) == sorted(spec)
    assert preemptions > 50  # the traces do exercise preemption


def test_prefix_cache_frees_tail_first_and_resets_only_when_idle() -> None:
    resets = Counter()
    for args, steps in _traces("prefix-cache"):
        tables: dict[int, list[int]] = {}
        free = list(range(args["num_blocks"]))
        cached: list[int] = []
        for op, step in zip(args["ops"], steps, strict=True):
            state, result = step["state"], step["result"]
            if op[0] == "free":
                old = tables.pop(op[1], [])
                released = [b for b in reversed(old) if state["ref_counts"][b] == 0]
                assert result == released, step["op"]
                assert state["free_blocks"] == free + released, step["op"]
            elif op[0] == "reset":
                assert result is (not tables), step["op"]
                assert state["cached_blocks"] == ([] if result else cached)
                resets[result] += 1
            elif result is None or result is False:  # a failed allocate or append
                assert state["free_blocks"] == free and state["cached_blocks"] == cached
            else:
                tables[op[1]] = state["block_table"]
            free, cached = state["free_blocks"], state["cached_blocks"]
    assert resets[True] > 10 and resets[False] > 10


def test_scheduler_preempts_from_the_tail_and_serves_the_waiting_queue_in_order() -> None:
    for args, steps in _traces("scheduler"):
        running: list[int] = []
        waiting: list[int] = []
        for t, step in enumerate(steps):
            waiting += [r[0] for r in args["requests"] if r[1] == t]
            result, state = step["result"], step["state"]
            preempted = result["preempted"]
            assert preempted == running[::-1][: len(preempted)], step["op"]
            waiting = preempted[::-1] + waiting
            order = [req for req, _ in result["scheduled"]]
            decoded = [req for req in running if req not in preempted]
            assert order[: len(decoded)] == decoded, step["op"]
            admitted = order[len(decoded) :]
            assert admitted == waiting[: len(admitted)], step["op"]
            assert not (preempted and admitted), step["op"]
            waiting = waiting[len(admitted) :]
            assert state["waiting"] == waiting, step["op"]
            running = state["running"]


def test_chunked_prefill_schedules_decodes_first_and_keeps_within_the_budget() -> None:
    """Decodes (one token each) before any chunk, the budget never exceeded, nothing after
    a chunk that was cut, no chunk in a step that preempted, at most one request partly
    prefilled and it is last in the running list, and every block accounted for."""
    for args, steps in _traces("chunked-prefill"):
        bs, budget = args["block_size"], args["max_num_batched_tokens"]
        reqs = {r[0]: r for r in args["requests"]}
        computed, generated = Counter(), Counter()
        decoding = dict.fromkeys(reqs, False)
        for t, step in enumerate(steps):
            result, state = step["result"], step["state"]
            scheduled = result["scheduled"]
            assert result["total_num_scheduled_tokens"] == sum(n for _, n in scheduled) <= budget
            kinds = [decoding[i] for i, _ in scheduled]
            assert kinds == sorted(kinds, reverse=True), (args, t)  # decodes first
            for k, (i, n) in enumerate(scheduled):
                left = reqs[i][2] + generated[i] - computed[i]
                assert n == 1 if decoding[i] else 1 <= n <= left
                if not decoding[i] and n < left:
                    assert k == len(scheduled) - 1, (args, t)  # a cut chunk is last
            for p in result["preempted"]:
                computed[p], decoding[p] = 0, False
            if result["preempted"]:
                assert all(decoding[i] for i, _ in scheduled)
            for i, n in scheduled:
                computed[i] += n
                if computed[i] == reqs[i][2] + generated[i]:
                    generated[i] += 1
                    decoding[i] = True
            running = state["running"]
            used = sum(_ceil_div(computed[i], bs) for i in running)
            assert used + state["num_free_blocks"] == args["num_blocks"], (args, t)
            partial = [i for i in running if not decoding[i]]
            assert len(partial) <= 1 and (not partial or partial[0] == running[-1])
        assert all(generated[i] == reqs[i][3] for i in reqs)


def test_swap_preemption_conserves_both_pools_and_resumes_oldest_first() -> None:
    """Victims come off the tail of the running list; a swap moves ceil(computed / bs)
    blocks each way; swapped requests come back oldest first and before any admission;
    and the GPU and CPU pools both add up at every step."""
    for args, steps in _traces("swap-preemption"):
        bs = args["block_size"]
        spec = {r[0]: (r[2], r[3]) for r in args["requests"]}
        computed, generated = Counter(), Counter()
        running: list[int] = []
        swapped: list[int] = []
        waiting: list[int] = []
        for t, step in enumerate(steps[:-1]):  # the last step is the comparison summary
            waiting += [r[0] for r in args["requests"] if r[1] == t]
            result, state = step["result"], step["state"]
            victims = {x for x, _ in result["swapped_out"]} | {x for x, _ in result["dropped"]}
            assert set(running[len(running) - len(victims) :]) == victims, (args, t)
            for x, blocks in result["swapped_out"]:
                assert blocks == _ceil_div(computed[x], bs) >= 1
            for x, tokens in result["dropped"]:
                assert tokens == computed[x]
                computed[x] = 0
            swapped += [x for x, _ in result["swapped_out"]]
            waiting = [x for x, _ in result["dropped"]][::-1] + waiting
            order = [x for x, _ in result["scheduled"]]
            decoded = [x for x in running if x not in victims]
            assert order[: len(decoded)] == decoded
            resumed = [x for x, _ in result["swapped_in"]]
            rest = order[len(decoded) :]
            assert rest[: len(resumed)] == resumed == swapped[: len(resumed)]
            for x, blocks in result["swapped_in"]:
                assert blocks == _ceil_div(computed[x], bs)
            swapped = swapped[len(resumed) :]
            admitted = rest[len(resumed) :]
            assert not (victims and (resumed or admitted)) and not (admitted and swapped)
            assert admitted == waiting[: len(admitted)]
            waiting = waiting[len(admitted) :]
            for x, n in result["scheduled"]:
                prompt, _ = spec[x]
                assert n == (prompt + generated[x] if computed[x] == 0 else 1)
                computed[x] += n
                generated[x] += 1
            running = state["running"]
            assert state["swapped"] == swapped and state["waiting"] == waiting
            gpu = sum(_ceil_div(computed[x], bs) for x in running)
            cpu = sum(_ceil_div(computed[x], bs) for x in swapped)
            assert gpu + state["num_free_blocks"] == args["num_blocks"], (args, t)
            assert cpu + state["num_free_cpu_blocks"] == args["num_cpu_blocks"], (args, t)
