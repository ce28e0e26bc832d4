import torch

from mini_llm import KVCache


@torch.inference_mode()
def generate(model, prompt, max_new_tokens, stop_tokens):
    """Greedy continuation of `prompt` (a list of token ids) with a KV cache."""
    out = []
    if max_new_tokens == 0:
        return out
    cache = KVCache(model.cfg.num_hidden_layers, max_len=len(prompt) + max_new_tokens)
    ids = torch.tensor([prompt])
    logits = model(ids, cache, last_only=True)  # prefill: the whole prompt, once
    while True:
        token = int(logits[0, -1].argmax())
        out.append(token)
        if token in stop_tokens or len(out) == max_new_tokens:
            return out
        logits = model(torch.tensor([[token]]), cache)  # decode: the new token only
