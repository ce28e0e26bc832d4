"""paged-attention: its tables follow block-table's rules, and its reference is plain
contiguous attention over each sequence's tokens, as the statement says."""

from __future__ import annotations

import math
import random

import pytest

torch = pytest.importorskip("torch")

from judge.problem.cases import PUBLIC_SEED, load_module  # noqa: E402
from judge.problem.problemset import ProblemSet  # noqa: E402

PROBLEMS = ProblemSet()
PROBLEM = PROBLEMS.get("paged-attention")
CASES = load_module(PROBLEM.cases_source(), "cases", str(PROBLEM.path))
REFERENCE = load_module(PROBLEM.reference_source(), "reference", str(PROBLEM.path))
BLOCK_TABLE = PROBLEMS.get("block-table")
ALLOCATOR = load_module(BLOCK_TABLE.reference_source(), "reference", str(BLOCK_TABLE.path))


def _all_cases() -> list[dict]:
    return CASES.public_cases() + CASES.generated_cases(random.Random(PUBLIC_SEED))


def _attention_cases() -> list[dict]:
    return [c for c in _all_cases() if c["args"]["call"] != "write"]


@pytest.mark.parametrize("case", _attention_cases(), ids=lambda c: c["name"])
def test_tables_are_the_block_table_allocators(case: dict) -> None:
    args = case["args"]
    allocator = ALLOCATOR.BlockAllocator(args["num_blocks"], args["block_size"])
    for op in args["trace"]:
        allocator.append(op[1], op[2]) if op[0] == "append" else allocator.free(op[1])
    live = sorted(s for s in range(8) if allocator.num_tokens(s) > 0)
    tables, lens = CASES.allocate(args["num_blocks"], args["block_size"], args["trace"])
    assert tables == [allocator.block_table(s) for s in live]
    assert lens == [allocator.num_tokens(s) for s in live]


class _Contiguous:
    """A 'submission' that reads every token by its slot and runs SDPA on the contiguous
    copy; its writes are the reference's."""

    write_kv = staticmethod(REFERENCE.write_kv)

    @staticmethod
    def paged_decode_attention(q, k_pool, v_pool, block_tables, context_lens, scale):
        block_size, kv_heads, head_dim = k_pool.shape[1:]
        rows = []
        for b, n in enumerate(context_lens.tolist()):
            table = block_tables[b].tolist()
            slots = [table[p // block_size] * block_size + p % block_size for p in range(n)]
            k = k_pool.reshape(-1, kv_heads, head_dim)[slots].transpose(0, 1)  # (n_kv, n, d)
            v = v_pool.reshape(-1, kv_heads, head_dim)[slots].transpose(0, 1)
            out = torch.nn.functional.scaled_dot_product_attention(
                q[b][:, None], k, v, scale=scale, enable_gqa=True
            )  # (Hq, 1, d)
            rows.append(out[:, 0])
        return torch.stack(rows)


@pytest.mark.parametrize("case", _attention_cases(), ids=lambda c: c["name"])
def test_the_reference_is_contiguous_attention(case: dict) -> None:
    got = CASES.run(REFERENCE, case["args"])
    want = CASES.run(_Contiguous, case["args"])
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


def test_the_public_cases_have_partly_filled_last_blocks_and_shuffled_tables() -> None:
    partial = shuffled = 0
    for case in CASES.public_cases():
        args = case["args"]
        if args["call"] == "write":
            continue
        tables, lens = CASES.allocate(args["num_blocks"], args["block_size"], args["trace"])
        partial += any(n % args["block_size"] for n in lens)
        shuffled += any(t != list(range(t[0], t[0] + len(t))) for t in tables)
    assert partial >= 5 and shuffled >= 2


def test_reading_one_garbage_slot_is_far_outside_the_tolerance() -> None:
    """The unused slots' values must make a read past context_lens fail, not pass by luck."""
    args = dict(
        next(c for c in CASES.public_cases() if c["name"] == "attend-partial-last-blocks")["args"]
    )
    good = CASES.run(REFERENCE, args)
    wrong = load_module(
        (PROBLEM.path / "solutions/wrong/reads_whole_last_block.py").read_text(), "w", "w"
    )
    bad = CASES.run(wrong, args)
    assert (bad - good).abs().max() > 1e3 * (1e-5 + 1e-4 * good.abs().max())
    assert math.isfinite(float(bad.abs().max()))
