# expect: WA at case llama-3-8b-up-h100-b1-s512
# differs: 1 line
# Counts only the weight bytes (the chapter's shorthand), not the activations.
TERA = 1e12


def _phase(tokens, d_in, d_out, dtype_bytes, peak, bandwidth, ridge):
    flops = 2 * tokens * d_in * d_out  # one multiply and one add per weight per token
    moved = dtype_bytes * d_in * d_out
    intensity = flops / moved
    return {
        "tokens": tokens,
        "flops": flops,
        "bytes": moved,
        "intensity": intensity,
        "bound": "compute" if intensity >= ridge else "memory",
        # Compute and memory traffic overlap at best, so the slower one sets the floor.
        "time_us": max(flops / peak, moved / bandwidth) * 1e6,
    }


def roofline(
    d_in: int,
    d_out: int,
    batch: int,
    seq_len: int,
    dtype_bytes: int,
    peak_tflops: float,
    bandwidth_tb_s: float,
) -> dict:
    peak, bandwidth = peak_tflops * TERA, bandwidth_tb_s * TERA
    ridge = peak / bandwidth
    shape = (d_in, d_out, dtype_bytes, peak, bandwidth, ridge)
    return {
        "ridge": ridge,
        "prefill": _phase(batch * seq_len, *shape),
        "decode": _phase(batch, *shape),
    }
