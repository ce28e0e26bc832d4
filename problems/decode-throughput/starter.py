import torch

from mini_llm import KVCache


@torch.inference_mode()
def decode_batch(model, prompts, max_new_tokens):
    """prompts: list of token-id lists (different lengths); returns, for each prompt, its
    next max_new_tokens greedy tokens. Correct first, then fast: the judge times it."""
    out = []
    for prompt in prompts:  # one row at a time: right, and slow (no batching at all)
        cache = KVCache(model.cfg.num_hidden_layers)
        logits = model(torch.tensor([prompt]), cache, last_only=True)
        tokens = []
        for _ in range(max_new_tokens):
            token = int(logits[0, -1].argmax())
            tokens.append(token)
            logits = model(torch.tensor([[token]]), cache)
        out.append(tokens[:-1])  # Your code here: this drops a token, and it could batch
    return out
