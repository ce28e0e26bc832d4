"""Write the KV cache mini_llm's Transformer calls; see the statement for the contract."""

import torch


class KVCache:
    def __init__(self, num_layers: int) -> None:
        self.num_layers = num_layers
        self.length = 0  # tokens cached per sequence
        self.k: list[torch.Tensor | None] = [None] * num_layers  # k[layer]: (B, n_kv, length, d_h)
        self.v: list[torch.Tensor | None] = [None] * num_layers

    def past_lengths(self, batch: int) -> list[int]:
        """How many tokens each of the batch's sequences already has in the cache."""
        raise NotImplementedError("past_lengths")

    def update(self, layer: int, k: torch.Tensor, v: torch.Tensor):
        """Append k, v (B, n_kv, T, d_h) to `layer`; return (all keys, all values) of it."""
        raise NotImplementedError("update")
