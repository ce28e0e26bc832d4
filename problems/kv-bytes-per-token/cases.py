"""Cases for kv-bytes-per-token: real model configs, then random ones."""

QWEN3_0_6B = {
    "num_hidden_layers": 28,
    "num_attention_heads": 16,
    "num_key_value_heads": 8,
    "hidden_size": 1024,
    "head_dim": 128,
}
LLAMA3_8B = {
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "hidden_size": 4096,
}
QWEN25_7B = {
    "num_hidden_layers": 28,
    "num_attention_heads": 28,
    "num_key_value_heads": 4,
    "hidden_size": 3584,
}
DEEPSEEK_V3 = {
    "num_hidden_layers": 61,
    "num_attention_heads": 128,
    "hidden_size": 7168,
    "kv_lora_rank": 512,
    "qk_rope_head_dim": 64,
}
GPT2 = {"num_hidden_layers": 12, "num_attention_heads": 12, "hidden_size": 768}


def public_cases():
    return [
        {"name": "qwen3-0.6b-bf16", "args": {"config": QWEN3_0_6B, "kv_dtype": "bfloat16"}},
        {"name": "llama3-8b-bf16", "args": {"config": LLAMA3_8B, "kv_dtype": "bfloat16"}},
        {"name": "qwen2.5-7b-bf16", "args": {"config": QWEN25_7B, "kv_dtype": "bfloat16"}},
        {"name": "llama3-8b-fp8", "args": {"config": LLAMA3_8B, "kv_dtype": "fp8"}},
        {"name": "deepseek-v3-mla-bf16", "args": {"config": DEEPSEEK_V3, "kv_dtype": "bfloat16"}},
        {"name": "gpt2-mha-fp32", "args": {"config": GPT2, "kv_dtype": "float32"}},
    ]


def generated_cases(rng):
    cases = []
    for i in range(40):
        kind = rng.choice(["mha", "gqa", "gqa-head-dim", "mla"])
        dtype = rng.choice(["float32", "bfloat16", "float16", "fp8"])
        cases.append(
            {
                "name": f"random-{i}-{kind}",
                "args": {"config": _config(rng, kind), "kv_dtype": dtype},
            }
        )
    return cases


def _config(rng, kind):
    heads = rng.choice([8, 12, 16, 24, 32, 40, 64, 128])
    config = {
        "num_hidden_layers": rng.randint(1, 96),
        "num_attention_heads": heads,
        "hidden_size": heads * rng.choice([64, 80, 96, 128]),
    }
    if kind in ("gqa", "gqa-head-dim"):
        config["num_key_value_heads"] = rng.choice([d for d in (1, 2, 4, 8) if heads % d == 0])
    if kind == "gqa-head-dim":
        config["head_dim"] = rng.choice([64, 128, 256])
    if kind == "mla":
        config["kv_lora_rank"] = rng.choice([256, 512, 1024])
        config["qk_rope_head_dim"] = rng.choice([32, 64])
    return config


def run(sub, args):
    return sub.kv_bytes_per_token(args["config"], args["kv_dtype"])
