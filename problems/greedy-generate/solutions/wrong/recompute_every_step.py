# expect: TLE at case long-160
# differs: 6 lines
# Mistake: feeds the whole sequence to the model at every step instead of the new token
# with the cache. The tokens are right; the work is about n^2/2 tokens instead of n.
import torch

from mini_llm import KVCache  # noqa: F401  (imported, never used: no cache at all)


@torch.inference_mode()
def generate(model, prompt, max_new_tokens, stop_tokens):
    """Greedy continuation of `prompt` (a list of token ids) with a KV cache."""
    out = []
    if max_new_tokens == 0:
        return out
    seq = list(prompt)
    logits = model(torch.tensor([seq]), last_only=True)  # the whole sequence, every time
    while True:
        token = int(logits[0, -1].argmax())
        out.append(token)
        if token in stop_tokens or len(out) == max_new_tokens:
            return out
        seq.append(token)
        logits = model(torch.tensor([seq]), last_only=True)
