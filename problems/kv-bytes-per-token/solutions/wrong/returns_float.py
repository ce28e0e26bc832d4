# expect: WA
# Right number, wrong type: divides by a float somewhere and returns e.g. 114688.0.
DTYPE_BITS = {"float32": 32, "bfloat16": 16, "float16": 16, "fp8": 8}


def kv_bytes_per_token(config, kv_dtype):
    layers = config["num_hidden_layers"]
    elem = DTYPE_BITS[kv_dtype] / 8
    if "kv_lora_rank" in config:
        return layers * (config["kv_lora_rank"] + config["qk_rope_head_dim"]) * elem
    heads = config["num_attention_heads"]
    kv_heads = config.get("num_key_value_heads", heads)
    head_dim = config.get("head_dim", config["hidden_size"] // heads)
    return 2 * layers * kv_heads * head_dim * elem
