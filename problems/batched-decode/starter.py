def batched_greedy(model, prompts, max_new_tokens, stop_tokens):
    """Decode every prompt greedily in one batch; return each prompt's new tokens.

    model(ids, cache, attention_mask) -> logits (B, T, V); build the cache with
    mini_llm.KVCache(model.cfg.num_hidden_layers). A row ends after it emits a stop token
    (which it keeps) or after max_new_tokens tokens.
    """
    # Your code here: pad the prompts into one (B, L) tensor with an attention mask,
    # prefill, then one model call per step for the whole batch.
    raise NotImplementedError
