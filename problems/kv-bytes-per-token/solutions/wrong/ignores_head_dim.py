# expect: WA
# Derives the head size from hidden_size even when config.json states head_dim (Qwen3 does).
DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "fp8": 1}


def kv_bytes_per_token(config, kv_dtype):
    layers = config["num_hidden_layers"]
    elem = DTYPE_BYTES[kv_dtype]
    if "kv_lora_rank" in config:
        return layers * (config["kv_lora_rank"] + config["qk_rope_head_dim"]) * elem
    heads = config["num_attention_heads"]
    kv_heads = config.get("num_key_value_heads", heads)
    return 2 * layers * kv_heads * (config["hidden_size"] // heads) * elem
