"""Cases for attention-decode: random tensors from a seeded generator, shapes in args."""

import torch

from judge.run.job_device import job_device, on_cpu

# Shapes of real models' attention (one layer), kept small enough for a CPU.
PUBLIC = [
    ("mha-tiny", 1, 2, 2, 4, 3),
    ("gqa-qwen3-0.6b-heads", 2, 16, 8, 128, 37),
    ("gqa-llama3-8b-heads", 1, 32, 8, 128, 64),
    ("mqa-one-kv-head", 2, 8, 1, 64, 20),
    ("first-token-only", 3, 4, 2, 32, 1),
]


def _args(batch, q_heads, kv_heads, head_dim, cached, seed):
    return {
        "batch": batch,
        "q_heads": q_heads,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "cached": cached,
        "seed": seed,
    }


def public_cases():
    return [
        {"name": name, "args": _args(*shape, seed=i + 1)} for i, (name, *shape) in enumerate(PUBLIC)
    ]


def generated_cases(rng):
    cases = []
    for i in range(12):
        kv_heads = rng.choice([1, 2, 4, 8])
        group = rng.choice([1, 2, 4])
        args = _args(
            batch=rng.randint(1, 4),
            q_heads=kv_heads * group,
            kv_heads=kv_heads,
            head_dim=rng.choice([16, 32, 64, 128]),
            cached=rng.randint(1, 300),
            seed=rng.randrange(2**31),
        )
        cases.append({"name": f"random-{i}-g{group}", "args": args})
    return cases


def run(sub, args):
    """Build q and the caches from the case's seed, call the submission on the job's device,
    return its output (on the CPU)."""
    gen = torch.Generator().manual_seed(args["seed"])  # drawn on the CPU: the same on any device
    b, hq, hkv = args["batch"], args["q_heads"], args["kv_heads"]
    d, t = args["head_dim"], args["cached"]
    q = torch.randn(b, hq, d, generator=gen)  # (B, Hq, D): one new token per sequence
    k_cache = torch.randn(b, hkv, t, d, generator=gen)  # (B, Hkv, T, D)
    v_cache = torch.randn(b, hkv, t, d, generator=gen)  # (B, Hkv, T, D)
    device = job_device().value
    q, k_cache, v_cache = (x.to(device) for x in (q, k_cache, v_cache))
    return on_cpu(sub.decode_attention(q, k_cache, v_cache))
