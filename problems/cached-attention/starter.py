"""One attention layer with a KV cache; see the statement for the exact contract.
带 KV cache 的一层注意力；确切的约定见题面。"""


def attention_forward(x, weights, cache_k, cache_v, config):
    """x (B, T, D) after `start` cached tokens -> (out (B, T, D), keys, values (B, nkv, S, hd)).
    x (B, T, D) 接在 `start` 个已缓存 token 之后
    -> (out (B, T, D), keys, values (B, nkv, S, hd))。"""
    # start = cache_k.shape[2]: the tokens already cached, so the chunk's first position.
    # 1. project q, k, v (each weight is (out, in): y = x @ W.T) and split the heads
    # 2. RMSNorm over each q and k head when weights has "q_norm" (Qwen3), before RoPE
    # 3. RoPE at positions start .. start + T - 1
    # 4. append k, v to the cache; 5. causal attention with GQA; 6. the output projection
    # start = cache_k.shape[2]：已缓存的 token 数，也就是这一块第一个 token 的位置。
    # 1. 投影出 q、k、v（每个权重形状为 (out, in)：y = x @ W.T），再拆分成多个头
    # 2. weights 含 "q_norm"（Qwen3）时，在 RoPE 之前对每个 q 头和 k 头做 RMSNorm
    # 3. 在位置 start .. start + T - 1 上做 RoPE
    # 4. 把 k、v 追加到 cache；5. 带 GQA 的因果注意力；6. 输出投影
    raise NotImplementedError("attention_forward")
