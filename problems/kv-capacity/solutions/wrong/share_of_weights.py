# expect: WA at case decode-chapter-llama-3-8b-h100-b32-4k
# differs: 1 line
# Reports the KV share as KV bytes over weight bytes instead of over all bytes read.
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
    # Split KV is pooled over all GPUs; replicated KV (MLA under tensor parallelism)
    # costs one full copy per GPU.
    copies = num_gpus if kv_replicated else 1
    return free // (context_len * kv_bytes_per_token * copies)


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
        "kv_share": kv_bytes / weight_bytes,
    }
