"""Cases for paged-attention: the write path (write_kv) and decode attention through block
tables (paged_decode_attention), on pools whose unused slots hold large garbage.

Block tables come from an allocator trace with block-table's rules: free blocks wait in a
queue that starts 0, 1, ..., num_blocks-1; a sequence takes blocks from the head only when
its last block is full; a freed sequence's blocks join the tail, last block first; an
append the queue cannot cover changes nothing. The sequences alive at the end of the trace
are the batch, in ascending id order.
"""

import math
from collections import deque

import torch

from judge.run.job_device import job_device, on_cpu

GARBAGE = 1e4  # unused slots hold uniform values in [-GARBAGE, GARBAGE]: reading one shows


# ---------------------------------------------------------------- case builders


def _write(name, num_blocks, block_size, kv_heads, head_dim, slots, seed):
    args = {
        "call": "write",
        "num_blocks": num_blocks,
        "block_size": block_size,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "slots": slots,
        "seed": seed,
    }
    return {"name": name, "args": args}


def _attend(name, shape, trace, seed, scale=None, call="attention", padding=0):
    """shape: (num_blocks, block_size, q_heads, kv_heads, head_dim); scale None: 1/sqrt(d)."""
    num_blocks, block_size, q_heads, kv_heads, head_dim = shape
    args = {
        "call": call,
        "num_blocks": num_blocks,
        "block_size": block_size,
        "q_heads": q_heads,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "trace": trace,
        "scale": scale,
        "seed": seed,
    }
    if call == "step":
        args["padding"] = padding  # slots of -1 among the new tokens (a padded batch)
    return {"name": name, "args": args}


def _append(seq, n):
    return ["append", seq, n]


def _free(seq):
    return ["free", seq]


# ---------------------------------------------------------------- public cases


def public_cases():
    return _public_write() + _public_attention()


def _public_write():
    return [
        # Block 1 of 4, offsets 0..2 (block_size 4): slots 4, 5, 6; offset 3 stays untouched.
        _write("write-three-tokens-into-one-block", 4, 4, 2, 8, [4, 5, 6], seed=1),
        # One decode token for each of four sequences, scattered over the pool.
        _write("write-decode-tokens-of-four-sequences", 8, 4, 2, 16, [13, 2, 30, 21], seed=2),
        # A padded batch: the -1 entries are padding tokens and are never written.
        _write("write-skips-padding-slots", 6, 4, 2, 16, [9, -1, 10, -1, 3], seed=3),
        _write("write-block-size-one", 5, 1, 1, 32, [4, 0, 2], seed=4),
        _write("write-prefill-across-blocks", 6, 4, 4, 64, [20, 21, 22, 23, 4, 5, 6], seed=5),
    ]


def _public_attention():
    after_a_free = [_append(0, 8), _append(1, 4), _free(0), _append(2, 12)]
    partial = [_append(0, 6), _append(1, 3), _append(0, 1), _append(2, 10), _append(1, 1)]
    interleaved = [_append(s, 1) for _ in range(5) for s in (0, 1, 2)]  # decode in lockstep
    churn = [
        _append(0, 9),
        _append(1, 5),
        _append(2, 2),
        _free(1),
        _append(3, 7),
        _append(0, 4),
        _free(2),
        _append(4, 11),
        _append(3, 1),
        _free(0),
        _append(5, 6),
        _append(4, 2),
    ]
    return [
        # seq 1: 4 tokens in block [2]; seq 2: 12 tokens in [3, 4, 5]. Every block full.
        _attend("attend-full-blocks-after-a-free", (6, 4, 2, 2, 32), after_a_free, seed=11),
        # 7, 4 and 10 tokens in blocks of 4: every last block partly filled.
        _attend("attend-partial-last-blocks", (8, 4, 2, 2, 32), partial, seed=12),
        _attend("attend-gqa-8-query-heads-on-2", (8, 4, 8, 2, 64), partial, seed=13),
        _attend("attend-mqa-one-kv-head", (8, 4, 4, 1, 64), partial, seed=14),
        _attend("attend-scale-not-one-over-sqrt-d", (8, 4, 4, 2, 64), partial, 15, scale=0.05),
        _attend("attend-block-size-one", (16, 1, 4, 2, 32), interleaved, seed=16),
        _attend("attend-lockstep-decode-blocks-of-2", (12, 2, 4, 2, 32), interleaved, seed=17),
        _attend("attend-long-context-blocks-of-16", (12, 16, 16, 8, 128), [_append(0, 150)], 18),
        _attend("attend-context-of-one-token", (4, 4, 4, 2, 32), [_append(7, 1)], seed=19),
        _attend("attend-after-churn", (16, 4, 8, 4, 64), churn, seed=20),
        # The decode step itself: write each sequence's new token, then attend.
        _attend("step-write-then-attend", (16, 4, 8, 4, 64), churn, 21, call="step"),
        _attend("step-padded-batch", (8, 4, 4, 2, 32), partial, 22, call="step", padding=2),
    ]


# ---------------------------------------------------------------- generated cases


def generated_cases(rng):
    cases = [_random_write(rng, f"random-write-{i}") for i in range(6)]
    cases += [_random_attention(rng, f"random-attend-{i}", "attention") for i in range(10)]
    cases += [_random_attention(rng, f"random-step-{i}", "step") for i in range(4)]
    return cases


def _random_heads(rng):
    kv_heads, group = rng.choice([1, 2, 4, 8]), rng.choice([1, 2, 4])
    return kv_heads * group, kv_heads, rng.choice([32, 64, 128])


def _random_write(rng, name):
    num_blocks, block_size = rng.randint(2, 16), rng.choice([1, 2, 4, 8, 16])
    _, kv_heads, head_dim = _random_heads(rng)
    total = num_blocks * block_size
    slots = rng.sample(range(total), rng.randint(1, min(total, 24)))  # distinct slots
    for _ in range(rng.randint(0, 3)):
        slots.insert(rng.randrange(len(slots) + 1), -1)
    return _write(name, num_blocks, block_size, kv_heads, head_dim, slots, rng.randrange(2**31))


def _random_attention(rng, name, call):
    block_size = rng.choice([1, 2, 4, 8, 16])
    num_blocks = rng.randint(4, max(4, 256 // block_size))
    q_heads, kv_heads, head_dim = _random_heads(rng)
    trace = _random_trace(rng, block_size, num_blocks)
    scale = None if rng.random() < 0.7 else rng.uniform(0.02, 0.3)
    shape = (num_blocks, block_size, q_heads, kv_heads, head_dim)
    padding = rng.randint(0, 3) if call == "step" else 0
    return _attend(name, shape, trace, rng.randrange(2**31), scale, call, padding)


def _random_trace(rng, block_size, num_blocks):
    """Prefill-sized and decode-sized appends with frees; at least one sequence survives."""
    ops, live = [], set()
    for _ in range(rng.randint(4, 30)):
        roll = rng.random()
        if live and roll < 0.15:
            seq = rng.choice(sorted(live))
            ops.append(_free(seq))
            live.discard(seq)
            continue
        seq = rng.randrange(8)
        n = rng.randint(1, 2) if roll < 0.6 else rng.randint(1, 3 * block_size + 5)
        ops.append(_append(seq, n))
        live.add(seq)
    last = rng.randrange(8)
    ops.append(_append(last, 1))  # an append that fails leaves the trace still valid
    if not live:
        ops.append(_append(last, 1))
    return ops


# ---------------------------------------------------------------- the allocator


def allocate(num_blocks, block_size, trace):
    """Block tables and token counts of the sequences alive after `trace`, by ascending id."""
    free = deque(range(num_blocks))
    tables, tokens = {}, {}
    for op in trace:
        seq = op[1]
        if op[0] == "free":
            free.extend(reversed(tables.pop(seq, [])))  # the last block goes back first
            tokens.pop(seq, None)
            continue
        total = tokens.get(seq, 0) + op[2]
        need = -(-total // block_size) - len(tables.get(seq, []))
        if need > len(free):
            continue  # out of blocks: nothing changes
        tables[seq] = tables.get(seq, []) + [free.popleft() for _ in range(need)]
        tokens[seq] = total
    live = sorted(seq for seq in tables if tokens[seq] > 0)
    return [tables[s] for s in live], [tokens[s] for s in live]


# ---------------------------------------------------------------- the driver


def run(sub, args):
    """Build the case's pools and tensors on the CPU (the same values on any device), move
    them to the job's device, call the submission; return its answers on the CPU."""
    device = job_device().value
    if args["call"] == "write":
        return _run_write(sub, args, device)
    return on_cpu(_run_attention(sub, args, device))


def _garbage_pools(gen, num_blocks, block_size, kv_heads, head_dim):
    shape = (num_blocks, block_size, kv_heads, head_dim)
    k_pool = (torch.rand(shape, generator=gen) * 2 - 1) * GARBAGE
    v_pool = (torch.rand(shape, generator=gen) * 2 - 1) * GARBAGE
    return k_pool, v_pool


def slot_checksums(pool, weights):
    """One float64 number per slot, (num_blocks, block_size): sum over heads and dims of
    pool[b, o] * weights. Any change to any slot changes its number."""
    return (pool.double() * weights).sum(dim=(-1, -2))


def _run_write(sub, args, device):
    gen = torch.Generator().manual_seed(args["seed"])
    kv_heads, head_dim = args["kv_heads"], args["head_dim"]
    k_pool, v_pool = _garbage_pools(gen, args["num_blocks"], args["block_size"], kv_heads, head_dim)
    slots = torch.tensor(args["slots"], dtype=torch.int64)  # (T,)
    k = torch.randn(len(slots), kv_heads, head_dim, generator=gen)  # (T, n_kv, d_h)
    v = torch.randn(len(slots), kv_heads, head_dim, generator=gen)
    padding = slots < 0
    k[padding] *= GARBAGE  # a padding token's K/V are junk: writing them shows
    v[padding] *= GARBAGE
    weights = torch.randn(kv_heads, head_dim, generator=gen, dtype=torch.float64)
    k_pool, v_pool = k_pool.to(device), v_pool.to(device)
    sub.write_kv(k_pool, v_pool, slots.to(device), k.to(device), v.to(device))
    # Summed on the CPU, in float64, as the reference's are: only what was written differs.
    k_pool, v_pool = on_cpu((k_pool, v_pool))
    return {"k_slots": slot_checksums(k_pool, weights), "v_slots": slot_checksums(v_pool, weights)}


def _run_attention(sub, args, device):
    """Fill the pools through the tables (the driver writes; in a step case the
    submission's write_kv stores each sequence's newest token), then attend."""
    gen = torch.Generator().manual_seed(args["seed"])
    block_size, kv_heads, head_dim = args["block_size"], args["kv_heads"], args["head_dim"]
    tables, lens = allocate(args["num_blocks"], block_size, args["trace"])
    k_pool, v_pool = _garbage_pools(gen, args["num_blocks"], block_size, kv_heads, head_dim)
    step = args["call"] == "step"
    new_slots, new_k, new_v = [], [], []
    for table, n in zip(tables, lens, strict=True):
        k = torch.randn(n, kv_heads, head_dim, generator=gen)  # (n, n_kv, d_h)
        v = torch.randn(n, kv_heads, head_dim, generator=gen)
        slots = [table[p // block_size] * block_size + p % block_size for p in range(n)]
        held = n - 1 if step else n  # in a step case the newest token is not stored yet
        index = torch.tensor(slots[:held], dtype=torch.int64)
        k_pool.view(-1, kv_heads, head_dim)[index] = k[:held]
        v_pool.view(-1, kv_heads, head_dim)[index] = v[:held]
        new_slots.append(slots[-1])
        new_k.append(k[-1])
        new_v.append(v[-1])
    k_pool, v_pool = k_pool.to(device), v_pool.to(device)
    if step:
        _write_newest(sub, gen, k_pool, v_pool, new_slots, new_k, new_v, args["padding"])
    width = max(len(t) for t in tables)
    # Entries past a sequence's last block hold valid ids of other blocks: never read them.
    padded = [t + torch.randint(args["num_blocks"], (width - len(t),), generator=gen).tolist()
              for t in tables]  # fmt: skip
    block_tables = torch.tensor(padded, dtype=torch.int32)  # (B, max_blocks)
    context_lens = torch.tensor(lens, dtype=torch.int32)  # (B,)
    q = torch.randn(len(tables), args["q_heads"], head_dim, generator=gen)  # (B, Hq, d_h)
    scale = args["scale"] if args["scale"] is not None else 1 / math.sqrt(head_dim)
    tables_on, lens_on, q = block_tables.to(device), context_lens.to(device), q.to(device)
    return sub.paged_decode_attention(q, k_pool, v_pool, tables_on, lens_on, scale)


def _write_newest(sub, gen, k_pool, v_pool, slots, ks, vs, padding):
    """One new token per sequence through write_kv, with `padding` tokens of slot -1."""
    for _ in range(padding):
        at = int(torch.randint(len(slots) + 1, (1,), generator=gen))
        slots.insert(at, -1)
        junk = torch.full_like(ks[0], GARBAGE)
        ks.insert(at, junk)
        vs.insert(at, -junk)
    on = k_pool.device  # the job's device: the pools are there already
    sub.write_kv(k_pool, v_pool, torch.tensor(slots, device=on), torch.stack(ks).to(on),
                 torch.stack(vs).to(on))  # fmt: skip
