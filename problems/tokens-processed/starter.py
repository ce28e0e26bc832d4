def tokens_processed(prompt_len: int, new_tokens: int) -> dict:
    """Return {"without_cache": int, "with_cache": int}: forward tokens for the whole generation.
    返回 {"without_cache": int, "with_cache": int}：整个生成过程中前向计算的 token 数。"""
    # TODO: every step re-runs the whole sequence so far
    # TODO：每一步都把目前为止的整个序列重新算一遍
    without_cache = 0
    # TODO: one prefill, then one token per decode step
    # TODO：一次 prefill，之后每个 decode 步一个 token
    with_cache = 0
    return {"without_cache": without_cache, "with_cache": with_cache}
