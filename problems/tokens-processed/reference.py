def tokens_processed(prompt_len: int, new_tokens: int) -> dict:
    # Without a cache, step i re-runs the prompt plus the i - 1 tokens generated so far:
    # sum over i = 1..n of (P + i - 1) = n * P + n * (n - 1) / 2.
    without_cache = new_tokens * prompt_len + new_tokens * (new_tokens - 1) // 2
    # With a cache: one prefill of P tokens, then each generated token except the last
    # is fed back once (the last one is never an input).
    with_cache = prompt_len + new_tokens - 1
    return {"without_cache": without_cache, "with_cache": with_cache}
