"""Accepted: preallocated buffers that double when full, a slice write per update, the
filled part returned as a view (what mini_llm's own cache does, written again)."""

import torch


class KVCache:
    def __init__(self, num_layers):
        self.num_layers = num_layers
        self.length = 0
        self._k = [None] * num_layers  # (B, n_kv, capacity, d_h) each, allocated on first use
        self._v = [None] * num_layers

    @property
    def k(self):
        return [None if b is None else b[:, :, : self.length] for b in self._k]

    @property
    def v(self):
        return [None if b is None else b[:, :, : self.length] for b in self._v]

    def past_lengths(self, batch):
        return [self.length] * batch

    def update(self, layer, k, v):
        end = self.length + k.shape[2]
        for store, new in ((self._k, k), (self._v, v)):
            buf = store[layer]
            if buf is None or buf.shape[2] < end:
                grown = torch.empty(
                    *new.shape[:2],
                    max(end, 2 * (0 if buf is None else buf.shape[2]), 16),
                    new.shape[3],
                    dtype=new.dtype,
                )
                if buf is not None:
                    grown[:, :, : self.length] = buf[:, :, : self.length]
                store[layer] = buf = grown
            buf[:, :, self.length : end] = new
        if layer == self.num_layers - 1:
            self.length = end
        return self._k[layer][:, :, :end], self._v[layer][:, :, :end]
