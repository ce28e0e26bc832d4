"""Cases for roofline: real projection shapes on real GPUs, then seeded random ones."""

import random

# (dense peak TFLOP/s for the dtype, memory bandwidth TB/s) as the vendors state them.
GPUS = {
    "h100-bf16": (989.0, 3.35),
    "h100-fp8": (1979.0, 3.35),
    "h200-bf16": (989.0, 4.8),
    "a100-bf16": (312.0, 2.0),
    "l4-bf16": (121.0, 0.3),
}
# (d_in, d_out) of real projections.
LAYERS = {
    "llama-3-8b-up": (4096, 14336),
    "llama-3-8b-down": (14336, 4096),
    "llama-3-8b-k": (4096, 1024),
    "qwen3-0.6b-up": (1024, 3072),
    "qwen2.5-7b-up": (3584, 18944),
    "llama-3-70b-up": (8192, 28672),
}


def _case(name, dims, hardware, batch, seq_len, dtype_bytes=2):
    (d_in, d_out), (peak, bandwidth) = dims, hardware
    args = {
        "d_in": d_in,
        "d_out": d_out,
        "batch": batch,
        "seq_len": seq_len,
        "dtype_bytes": dtype_bytes,
        "peak_tflops": peak,
        "bandwidth_tb_s": bandwidth,
    }
    return {"name": name, "args": args}


def public_cases() -> list[dict]:
    return [
        _case("llama-3-8b-up-h100-b1-s512", LAYERS["llama-3-8b-up"], GPUS["h100-bf16"], 1, 512),
        _case("llama-3-8b-up-h100-b32-s128", LAYERS["llama-3-8b-up"], GPUS["h100-bf16"], 32, 128),
        _case("qwen3-0.6b-up-a100-b8-s64", LAYERS["qwen3-0.6b-up"], GPUS["a100-bf16"], 8, 64),
        _case("llama-3-8b-up-h200-b256-s16", LAYERS["llama-3-8b-up"], GPUS["h200-bf16"], 256, 16),
        _case(
            "llama-3-70b-up-h100-fp8-b64-s1024",
            LAYERS["llama-3-70b-up"],
            GPUS["h100-fp8"],
            64,
            1024,
            1,
        ),
    ]


def _near_ridge(args: dict) -> bool:
    """True when either phase's intensity is within 1e-6 of the ridge (the statement
    promises cases stay clear of ties, so float rounding cannot flip the bound)."""
    ridge = args["peak_tflops"] / args["bandwidth_tb_s"]
    d_in, d_out = args["d_in"], args["d_out"]
    for tokens in (args["batch"] * args["seq_len"], args["batch"]):
        intensity = 2 * tokens * d_in * d_out / (d_in * d_out + tokens * (d_in + d_out))
        intensity /= args["dtype_bytes"]
        if abs(intensity / ridge - 1) < 1e-6:
            return True
    return False


def _random_case(rng: random.Random, name: str) -> dict:
    real = rng.random() < 0.5
    if real:
        dims = LAYERS[rng.choice(sorted(LAYERS))]
    else:
        dims = (
            rng.choice([64, 128]) * rng.randint(4, 128),
            rng.choice([64, 128]) * rng.randint(4, 256),
        )
    hardware = GPUS[rng.choice(sorted(GPUS))]
    batch = rng.choice([1, 2, 8, 64, 256, rng.randint(1, 1024)])
    seq_len = rng.choice([1, 16, 128, 2048, rng.randint(1, 32768)])
    if real:
        # A real layer on a real GPU at round sizes is one of a few thousand cases, which a
        # table could hold: its sequence length is drawn in full.
        seq_len = rng.randint(1, 32768)
    return _case(name, dims, hardware, batch, seq_len, rng.choice([1, 2, 2, 4]))


def generated_cases(rng: random.Random) -> list[dict]:
    cases = []
    while len(cases) < 30:
        case = _random_case(rng, f"gen-{len(cases):02d}")
        if not _near_ridge(case["args"]):
            cases.append(case)
    return cases


PARAMETERS = ("d_in", "d_out", "batch", "seq_len", "dtype_bytes", "peak_tflops", "bandwidth_tb_s")


def run(sub, args):
    # Positional, so a submission may name its parameters as it likes.
    return sub.roofline(*(args[name] for name in PARAMETERS))
