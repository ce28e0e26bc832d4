# expect: WA at case qwen3-0.6b-bf16
# differs: 2 lines
# Right number, wrong type: divides by a float somewhere and returns e.g. 114688.0.
DTYPE_BITS = {"float32": 32, "bfloat16": 16, "float16": 16, "fp8": 8}


def kv_bytes_per_token(config: dict, kv_dtype: str) -> int:
    layers = config["num_hidden_layers"]
    elem = DTYPE_BITS[kv_dtype] / 8
    if "kv_lora_rank" in config:
        # MLA: one latent plus the rotary part per layer, shared by K and V.
        return layers * (config["kv_lora_rank"] + config["qk_rope_head_dim"]) * elem
    q_heads = config["num_attention_heads"]
    kv_heads = config.get("num_key_value_heads", q_heads)
    head_dim = config.get("head_dim", config["hidden_size"] // q_heads)
    return 2 * layers * kv_heads * head_dim * elem
