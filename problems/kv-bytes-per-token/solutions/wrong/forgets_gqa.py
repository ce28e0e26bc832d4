# expect: WA at case qwen3-0.6b-bf16
# differs: 1 line
# Uses the query head count for K/V: right for MHA, twice or more too large under GQA.
DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "fp8": 1}


def kv_bytes_per_token(config: dict, kv_dtype: str) -> int:
    layers = config["num_hidden_layers"]
    elem = DTYPE_BYTES[kv_dtype]
    if "kv_lora_rank" in config:
        # MLA: one latent plus the rotary part per layer, shared by K and V.
        return layers * (config["kv_lora_rank"] + config["qk_rope_head_dim"]) * elem
    q_heads = config["num_attention_heads"]
    kv_heads = q_heads
    head_dim = config.get("head_dim", config["hidden_size"] // q_heads)
    return 2 * layers * kv_heads * head_dim * elem
