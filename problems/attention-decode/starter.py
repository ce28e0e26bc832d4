def decode_attention(q, k_cache, v_cache):
    """q: (B, Hq, D); k_cache, v_cache: (B, Hkv, T, D). Returns (B, Hq, D)."""
    # Your code here: map each query head to its KV head, scale the scores, softmax over T.
    raise NotImplementedError
