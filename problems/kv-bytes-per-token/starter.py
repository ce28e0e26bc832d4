DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "fp8": 1}


def kv_bytes_per_token(config: dict, kv_dtype: str) -> int:
    """Bytes of KV cache one token occupies across all layers."""
    # Your code here: look up the layer count, the KV heads and the head size.
    raise NotImplementedError
