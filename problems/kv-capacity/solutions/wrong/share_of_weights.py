# expect: WA
# Reports the KV share as KV bytes over weight bytes instead of over all bytes read.
def max_requests(
    num_gpus, gpu_mem_gb, mem_util_pct, weight_bytes, kv_bytes_per_token, context_len, kv_replicated
):
    free = num_gpus * (gpu_mem_gb * 10**9 * mem_util_pct // 100) - weight_bytes
    if free <= 0:
        return 0
    copies = num_gpus if kv_replicated else 1
    return free // (context_len * kv_bytes_per_token * copies)


def decode_step(weight_bytes, kv_bytes_per_token, batch, context_len, bandwidth_tb_s):
    kv_bytes = batch * context_len * kv_bytes_per_token
    bytes_read = weight_bytes + kv_bytes
    return {
        "bytes_read": bytes_read,
        "latency_ms": bytes_read / (bandwidth_tb_s * 1e12) * 1000.0,
        "kv_share": kv_bytes / weight_bytes,
    }
