def batched_greedy(model, prompts, max_new_tokens, stop_tokens):
    """Decode every prompt greedily in one batch; return each prompt's new tokens.

    model(ids, cache, attention_mask) -> logits (B, T, V); build the cache with
    mini_llm.KVCache(model.cfg.num_hidden_layers). A row ends after it emits a stop token
    (which it keeps) or after max_new_tokens tokens.

    在一个批次里对每个 prompt 做贪心解码；返回每个 prompt 新生成的 token。
    model(ids, cache, attention_mask) -> logits (B, T, V)；用
    mini_llm.KVCache(model.cfg.num_hidden_layers) 建 cache。一行在输出停止 token（保留它）
    或生成 max_new_tokens 个 token 之后结束。
    """
    # Your code here: pad the prompts into one (B, L) tensor with an attention mask,
    # prefill, then one model call per step for the whole batch.
    # 在这里写代码：把 prompt 填充成一个 (B, L) 张量并配上 attention mask，
    # 先 prefill，然后每步对整个批次调用一次模型。
    raise NotImplementedError
