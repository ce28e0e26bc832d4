# expect: WA at case llama-3-8b-up-h100-b1-s512
# differs: 1 line
# Adds compute time and memory time as if they could not overlap.
TERA = 1e12


def _phase(tokens, d_in, d_out, dtype_bytes, peak, bandwidth, ridge):
    flops = 2 * tokens * d_in * d_out  # one multiply and one add per weight per token
    moved = dtype_bytes * (d_in * d_out + tokens * d_in + tokens * d_out)
    intensity = flops / moved
    return {
        "tokens": tokens,
        "flops": flops,
        "bytes": moved,
        "intensity": intensity,
        "bound": "compute" if intensity >= ridge else "memory",
        "time_us": (flops / peak + moved / bandwidth) * 1e6,
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
