"""Cases for kv-capacity: real models on real GPUs, then seeded random deployments."""

import random

# (weight bytes at BF16 or the native dtype, KV bytes per token at BF16, KV replicated under TP)
MODELS = {
    "llama-3-8b": (16_060_522_496, 131_072, False),  # 8.03e9 params; 2*32*8*128*2
    "qwen2.5-7b": (15_231_233_024, 57_344, False),  # 7.62e9 params; 2*28*4*128*2
    "llama-3-70b": (141_107_412_992, 327_680, False),  # 70.6e9 params; 2*80*8*128*2
    "deepseek-v3-fp8": (671_000_000_000, 70_272, True),  # FP8 weights; MLA (512+64)*61*2
}
# (memory in GB, bandwidth in TB/s) as the vendors state them.
GPUS = {
    "h100": (80, 3.35),
    "h200": (141, 4.8),
    "a100-80gb": (80, 2.0),
    "a100-40gb": (40, 1.555),
    "l4": (24, 0.3),
}


def _capacity(name, model, gpu, num_gpus, context_len, util=90):
    weight_bytes, kv_per_token, replicated = MODELS[model]
    params = {
        "num_gpus": num_gpus,
        "gpu_mem_gb": GPUS[gpu][0],
        "mem_util_pct": util,
        "weight_bytes": weight_bytes,
        "kv_bytes_per_token": kv_per_token,
        "context_len": context_len,
        "kv_replicated": replicated,
    }
    return {"name": name, "args": {"call": "max_requests", "params": params}}


def _decode(name, model, gpu, batch, context_len):
    weight_bytes, kv_per_token, _ = MODELS[model]
    params = {
        "weight_bytes": weight_bytes,
        "kv_bytes_per_token": kv_per_token,
        "batch": batch,
        "context_len": context_len,
        "bandwidth_tb_s": GPUS[gpu][1],
    }
    return {"name": name, "args": {"call": "decode_step", "params": params}}


def public_cases() -> list[dict]:
    return [
        _capacity("capacity-llama-3-8b-h100-4k", "llama-3-8b", "h100", 1, 4096),
        _capacity("capacity-qwen2.5-7b-h100-4k", "qwen2.5-7b", "h100", 1, 4096),
        _capacity("capacity-deepseek-v3-8xh100", "deepseek-v3-fp8", "h100", 8, 4096),
        _capacity("capacity-deepseek-v3-8xh200", "deepseek-v3-fp8", "h200", 8, 4096),
        _decode("decode-chapter-llama-3-8b-h100-b32-4k", "llama-3-8b", "h100", 32, 4096),
        _decode("decode-llama-3-8b-h100-b32-16k", "llama-3-8b", "h100", 32, 16384),
    ]


def _random_params(rng: random.Random) -> tuple[int, int, bool]:
    """A model from the table, or a made-up one with a plausible shape."""
    if rng.random() < 0.5:
        return MODELS[rng.choice(sorted(MODELS))]
    layers, kv_heads = rng.randint(12, 96), rng.choice([1, 2, 4, 8, 16])
    head_dim, dtype_bytes = rng.choice([64, 128, 256]), rng.choice([1, 2])
    weight_bytes = rng.randint(5 * 10**8, 15 * 10**10)
    return weight_bytes, 2 * layers * kv_heads * head_dim * dtype_bytes, rng.random() < 0.4


def generated_cases(rng: random.Random) -> list[dict]:
    cases = []
    for i in range(36):
        weight_bytes, kv_per_token, replicated = _random_params(rng)
        mem_gb, bandwidth = GPUS[rng.choice(sorted(GPUS))]
        context_len = rng.choice([512, 2048, 4096, 8192, 32768, rng.randint(1, 131072)])
        if (weight_bytes, kv_per_token, replicated) in MODELS.values():
            # A real model on a real GPU at a round context is one of a few hundred
            # deployments, which a table could hold: its context is drawn in full.
            context_len = rng.randint(1, 131072)
        if i % 2 == 0:
            params = {
                "num_gpus": rng.choice([1, 2, 4, 8]),
                "gpu_mem_gb": mem_gb,
                "mem_util_pct": rng.choice([80, 90, 95, 100, rng.randint(50, 100)]),
                "weight_bytes": weight_bytes,
                "kv_bytes_per_token": kv_per_token,
                "context_len": context_len,
                "kv_replicated": replicated,
            }
            cases.append(
                {
                    "name": f"gen-capacity-{i:02d}",
                    "args": {"call": "max_requests", "params": params},
                }
            )
        else:
            params = {
                "weight_bytes": weight_bytes,
                "kv_bytes_per_token": kv_per_token,
                "batch": rng.choice([1, 8, 32, 128, rng.randint(1, 512)]),
                "context_len": context_len,
                "bandwidth_tb_s": bandwidth,
            }
            cases.append(
                {"name": f"gen-decode-{i:02d}", "args": {"call": "decode_step", "params": params}}
            )
    return cases


# Positional order of each function's parameters, as the statement lists them.
PARAMETERS = {
    "max_requests": (
        "num_gpus",
        "gpu_mem_gb",
        "mem_util_pct",
        "weight_bytes",
        "kv_bytes_per_token",
        "context_len",
        "kv_replicated",
    ),
    "decode_step": ("weight_bytes", "kv_bytes_per_token", "batch", "context_len", "bandwidth_tb_s"),
}


def run(sub, args):
    call, params = args["call"], args["params"]
    # Positional, so a submission may name its parameters as it likes.
    return getattr(sub, call)(*(params[name] for name in PARAMETERS[call]))
