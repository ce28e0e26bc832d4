# expect: WA at case chapter-p100-n1000
# differs: 2 lines
# Feeds the last generated token through the model too, although nothing reads its output.
def tokens_processed(prompt_len: int, new_tokens: int) -> dict:
    without_cache = new_tokens * prompt_len + new_tokens * (new_tokens - 1) // 2
    return {"without_cache": without_cache, "with_cache": prompt_len + new_tokens}
