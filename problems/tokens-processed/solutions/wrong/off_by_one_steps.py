# expect: WA at case chapter-p100-n1000
# differs: 3 lines
# Step i is taken to process P + i tokens (counting the token it is about to produce).
def tokens_processed(prompt_len: int, new_tokens: int) -> dict:
    without_cache = new_tokens * prompt_len + new_tokens * (new_tokens + 1) // 2
    return {"without_cache": without_cache, "with_cache": prompt_len + new_tokens - 1}
