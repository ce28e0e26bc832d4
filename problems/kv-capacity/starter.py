def max_requests(
    num_gpus: int,
    gpu_mem_gb: int,
    mem_util_pct: int,
    weight_bytes: int,
    kv_bytes_per_token: int,
    context_len: int,
    kv_replicated: bool,
) -> int:
    """How many requests of context_len tokens fit next to the weights (an int).
    除权重之外，还能放下多少个长度为 context_len 的请求（一个整数）。"""
    raise NotImplementedError("count the requests whose KV cache fits")


def decode_step(
    weight_bytes: int,
    kv_bytes_per_token: int,
    batch: int,
    context_len: int,
    bandwidth_tb_s: float,
) -> dict:
    """{"bytes_read": int, "latency_ms": float, "kv_share": float} for one decode step.
    一个 decode 步的 {"bytes_read": int, "latency_ms": float, "kv_share": float}。"""
    raise NotImplementedError("add up the bytes one decode step must read")
