# expect: TLE at case cpu-rule-eight-rows
# differs: 3 lines
# Decodes each prompt alone: right tokens, but a model call per token per row: over the CPU rule.
"""Reference: left padding, an attention mask over cached + new tokens, one forward per step."""

import torch

from mini_llm.kv_cache import KVCache


def _batched(model, prompts, max_new_tokens, stop_tokens):
    """Greedy continuations of every prompt, decoded as one batch (stop tokens kept)."""
    stops = set(stop_tokens)
    batch, width = len(prompts), max(len(p) for p in prompts)
    # Right-align the prompts so every row's next token lands in the same column.
    ids = torch.zeros(batch, width, dtype=torch.long)  # (B, L)
    mask = torch.zeros(batch, width, dtype=torch.long)  # (B, L): 1 real token, 0 padding
    for b, prompt in enumerate(prompts):
        ids[b, width - len(prompt) :] = torch.tensor(prompt)
        mask[b, width - len(prompt) :] = 1
    cache = KVCache(model.cfg.num_hidden_layers)
    logits = model(ids, cache, mask, last_only=True)[:, -1]  # (B, V)
    out = [[] for _ in prompts]
    done = [False] * batch
    for step in range(max_new_tokens):
        nxt = logits.argmax(-1)  # (B,)
        for b, token in enumerate(nxt.tolist()):
            if not done[b]:
                out[b].append(token)
                done[b] = token in stops
        if all(done) or step == max_new_tokens - 1:
            break
        mask = torch.cat([mask, mask.new_ones(batch, 1)], dim=1)  # (B, S): the new token is real
        # Finished rows keep stepping (nothing of theirs is recorded): the batch stays whole.
        logits = model(nxt[:, None], cache, mask)[:, -1]  # (B, V)
    return out


def batched_greedy(model, prompts, max_new_tokens, stop_tokens):
    return [_batched(model, [p], max_new_tokens, stop_tokens)[0] for p in prompts]
