def roofline(
    d_in: int,
    d_out: int,
    batch: int,
    seq_len: int,
    dtype_bytes: int,
    peak_tflops: float,
    bandwidth_tb_s: float,
) -> dict:
    """Ridge point and, for prefill and decode, FLOPs, bytes, intensity, bound and time."""
    raise NotImplementedError("compute the roofline of one linear layer")
