# expect: WA at case chapter-p100-n1000
# differs: 3 lines
# Uses the textbook estimate n^2 / 2 in floating point instead of the exact count.
def tokens_processed(prompt_len: int, new_tokens: int) -> dict:
    without_cache = new_tokens * prompt_len + new_tokens**2 / 2
    return {"without_cache": without_cache, "with_cache": prompt_len + new_tokens - 1}
