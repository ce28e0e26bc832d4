def decode_attention(q, k_cache, v_cache):
    """q: (B, Hq, D); k_cache, v_cache: (B, Hkv, T, D). Returns (B, Hq, D).
    q：(B, Hq, D)；k_cache、v_cache：(B, Hkv, T, D)。返回 (B, Hq, D)。"""
    # Your code here: map each query head to its KV head, scale the scores, softmax over T.
    # 在这里写代码：把每个查询头对应到它的 KV 头，缩放分数，在 T 上做 softmax。
    raise NotImplementedError
