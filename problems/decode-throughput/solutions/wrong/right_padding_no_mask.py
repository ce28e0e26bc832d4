# expect: WA at case two-rows
# differs: 14 lines
# Mistake: pads the shorter prompts on the right and passes no attention mask: the padding
# is attended to and the short rows read their next token at the wrong position.
import torch

from mini_llm import KVCache


@torch.inference_mode()
def decode_batch(model, prompts, max_new_tokens):
    """Greedy continuations of every prompt, decoded together as one batch."""
    width = max(len(p) for p in prompts)
    ids = torch.tensor([p + [0] * (width - len(p)) for p in prompts])
    cache = KVCache(model.cfg.num_hidden_layers, max_len=width + max_new_tokens)
    logits = model(ids, cache)
    last = torch.tensor([len(p) - 1 for p in prompts])
    nxt = logits[torch.arange(len(prompts)), last].argmax(-1)
    out = [[] for _ in prompts]
    for step in range(max_new_tokens):
        for row, token in zip(out, nxt.tolist(), strict=True):
            row.append(token)
        if step + 1 < max_new_tokens:
            nxt = model(nxt[:, None], cache)[:, -1].argmax(-1)
    return out
