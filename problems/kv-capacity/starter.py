def max_requests(
    num_gpus: int,
    gpu_mem_gb: int,
    mem_util_pct: int,
    weight_bytes: int,
    kv_bytes_per_token: int,
    context_len: int,
    kv_replicated: bool,
) -> int:
    """How many requests of context_len tokens fit next to the weights (an int)."""
    raise NotImplementedError("count the requests whose KV cache fits")


def decode_step(
    weight_bytes: int,
    kv_bytes_per_token: int,
    batch: int,
    context_len: int,
    bandwidth_tb_s: float,
) -> dict:
    """{"bytes_read": int, "latency_ms": float, "kv_share": float} for one decode step."""
    raise NotImplementedError("add up the bytes one decode step must read")
