"""Write the KV cache mini_llm's Transformer calls; see the statement for the contract.
实现 mini_llm 的 Transformer 所调用的 KV cache；约定见题面。"""

import torch


class KVCache:
    def __init__(self, num_layers: int) -> None:
        self.num_layers = num_layers
        # tokens cached per sequence
        # 每个序列已缓存的 token 数
        self.length = 0
        # k[layer]: (B, n_kv, length, d_h)
        # k[layer]：第 layer 层的 keys，形状为 (B, n_kv, length, d_h)
        self.k: list[torch.Tensor | None] = [None] * num_layers
        self.v: list[torch.Tensor | None] = [None] * num_layers

    def past_lengths(self, batch: int) -> list[int]:
        """How many tokens each of the batch's sequences already has in the cache.
        批次中每个序列在 cache 里已有多少个 token。"""
        raise NotImplementedError("past_lengths")

    def update(self, layer: int, k: torch.Tensor, v: torch.Tensor):
        """Append k, v (B, n_kv, T, d_h) to `layer`; return (all keys, all values) of it.
        把 k、v (B, n_kv, T, d_h) 追加到 `layer`；返回该层的（全部 keys，全部 values）。"""
        raise NotImplementedError("update")
