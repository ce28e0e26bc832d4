# expect: WA
# Uses the query head count for K/V: right for MHA, twice or more too large under GQA.
DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "fp8": 1}


def kv_bytes_per_token(config, kv_dtype):
    layers = config["num_hidden_layers"]
    elem = DTYPE_BYTES[kv_dtype]
    if "kv_lora_rank" in config:
        return layers * (config["kv_lora_rank"] + config["qk_rope_head_dim"]) * elem
    heads = config["num_attention_heads"]
    head_dim = config.get("head_dim", config["hidden_size"] // heads)
    return 2 * layers * heads * head_dim * elem
