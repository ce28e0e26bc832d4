def tokens_processed(prompt_len: int, new_tokens: int) -> dict:
    """Return {"without_cache": int, "with_cache": int}: forward tokens for the whole generation."""
    without_cache = 0  # TODO: every step re-runs the whole sequence so far
    with_cache = 0  # TODO: one prefill, then one token per decode step
    return {"without_cache": without_cache, "with_cache": with_cache}
