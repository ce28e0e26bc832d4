# expect: WA at case capacity-deepseek-v3-8xh200
# differs: 2 lines
# Assumes every KV cache is sharded across the GPUs, even a replicated (MLA) one.
GB = 10**9
TB = 10**12


def max_requests(
    num_gpus: int,
    gpu_mem_gb: int,
    mem_util_pct: int,
    weight_bytes: int,
    kv_bytes_per_token: int,
    context_len: int,
    kv_replicated: bool,
) -> int:
    usable_per_gpu = gpu_mem_gb * GB * mem_util_pct // 100
    free = num_gpus * usable_per_gpu - weight_bytes
    if free <= 0:
        return 0
    return free // (context_len * kv_bytes_per_token)


def decode_step(
    weight_bytes: int,
    kv_bytes_per_token: int,
    batch: int,
    context_len: int,
    bandwidth_tb_s: float,
) -> dict:
    kv_bytes = batch * context_len * kv_bytes_per_token
    bytes_read = weight_bytes + kv_bytes
    return {
        "bytes_read": bytes_read,
        "latency_ms": bytes_read / (bandwidth_tb_s * TB) * 1000.0,
        "kv_share": kv_bytes / bytes_read,
    }
