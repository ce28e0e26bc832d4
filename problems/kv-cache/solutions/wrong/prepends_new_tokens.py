# expect: WA at case qwen3-chunks-5-1-7-3 step 2 (chunk 7 after 6)
# differs: 2 lines
# Mistake: puts the new keys and values in front of the cached ones. One decode token
# attends to every key, so the order does not matter there; a chunk of several tokens is
# masked by position, and then it does.
"""A KV cache for mini_llm's Transformer: keys and values of every layer, appended per token."""

import torch


class KVCache:
    """Per layer, the keys and values of every token seen so far, (B, n_kv, length, d_h)."""

    def __init__(self, num_layers: int) -> None:
        self.num_layers = num_layers
        self.length = 0  # tokens cached per sequence, the same in every layer
        self.k: list[torch.Tensor | None] = [None] * num_layers  # k[layer]: (B, n_kv, length, d_h)
        self.v: list[torch.Tensor | None] = [None] * num_layers

    def past_lengths(self, batch: int) -> list[int]:
        """Tokens already cached for each of the batch's sequences (all equal here)."""
        return [self.length] * batch

    def update(self, layer: int, k: torch.Tensor, v: torch.Tensor):
        """Append k, v (B, n_kv, T, d_h) to `layer`; return all of that layer's keys and values."""
        past_k, past_v = self.k[layer], self.v[layer]
        self.k[layer] = k if past_k is None else torch.cat([k, past_k], dim=2)  # (B, n_kv, S, d_h)
        self.v[layer] = v if past_v is None else torch.cat([v, past_v], dim=2)
        # Every layer of one forward pass must see the same past length: advance after the last.
        if layer == self.num_layers - 1:
            self.length += k.shape[2]
        return self.k[layer], self.v[layer]
