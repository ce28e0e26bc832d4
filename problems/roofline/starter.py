def roofline(
    d_in: int,
    d_out: int,
    batch: int,
    seq_len: int,
    dtype_bytes: int,
    peak_tflops: float,
    bandwidth_tb_s: float,
) -> dict:
    """Ridge point and, for prefill and decode, FLOPs, bytes, intensity, bound and time.
    拐点，以及 prefill 和 decode 各自的 FLOPs、字节数、算术强度、瓶颈和时间。"""
    raise NotImplementedError("compute the roofline of one linear layer")
