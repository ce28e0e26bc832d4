DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "fp8": 1}


def kv_bytes_per_token(config: dict, kv_dtype: str) -> int:
    """Bytes of KV cache one token occupies across all layers.
    一个 token 在所有层中占用的 KV cache 字节数。"""
    # Your code here: look up the layer count, the KV heads and the head size.
    # 在这里写代码：查出层数、KV 头数和每个头的维度。
    raise NotImplementedError
