import torch

from mini_llm import KVCache


@torch.inference_mode()
def generate(model, prompt, max_new_tokens, stop_tokens):
    """prompt: list[int]; returns the new token ids (a stop token ends it and is kept).

    model(ids, cache) takes ids of shape (1, T), appends those T tokens to `cache` and
    returns logits of shape (1, T, vocab); model(ids, cache, last_only=True) returns only
    the last position's, (1, 1, vocab).
    """
    cache = KVCache(model.cfg.num_hidden_layers)
    logits = model(torch.tensor([prompt]), cache, last_only=True)  # prefill: once
    out = []
    # Your code here: the next token is logits[0, -1].argmax(); keep it, stop when it is a
    # stop token or max_new_tokens are done, else feed only that token:
    #     logits = model(torch.tensor([[token]]), cache)
    del logits
    return out
