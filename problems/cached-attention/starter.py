"""One attention layer with a KV cache; see the statement for the exact contract."""


def attention_forward(x, weights, cache_k, cache_v, config):
    """x (B, T, D) after `start` cached tokens -> (out (B, T, D), keys, values (B, nkv, S, hd))."""
    # start = cache_k.shape[2]: the tokens already cached, so the chunk's first position.
    # 1. project q, k, v (each weight is (out, in): y = x @ W.T) and split the heads
    # 2. RMSNorm over each q and k head when weights has "q_norm" (Qwen3), before RoPE
    # 3. RoPE at positions start .. start + T - 1
    # 4. append k, v to the cache; 5. causal attention with GQA; 6. the output projection
    raise NotImplementedError("attention_forward")
