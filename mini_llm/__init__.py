"""mini_llm: a small, readable Qwen3 / Llama inference library in PyTorch.

from mini_llm import KVCache, Transformer
model = Transformer.from_pretrained("models/SmolLM2-135M-Instruct")
cache = KVCache(model.cfg.num_hidden_layers)
logits = model(ids, cache)      # ids (B, T) -> logits (B, T, vocab); appends T tokens

The names below are imported when first used, not with the package: a torch-tier problem
that asks the learner to write one of these parts (the KV cache, the attention layer, the
decoding loop, the paged cache) runs its jobs without that part's module, and importing the
package must still work there.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# name -> the module that defines it
_EXPORTS = {
    "ModelConfig": "mini_llm.config",
    "CacheError": "mini_llm.errors",
    "CheckpointNotFoundError": "mini_llm.errors",
    "ConfigError": "mini_llm.errors",
    "GenerationArgumentError": "mini_llm.errors",
    "MiniLLMError": "mini_llm.errors",
    "MissingWeightError": "mini_llm.errors",
    "PackingError": "mini_llm.errors",
    "UnexpectedWeightError": "mini_llm.errors",
    "UnsupportedModelError": "mini_llm.errors",
    "WeightError": "mini_llm.errors",
    "WeightShapeError": "mini_llm.errors",
    "generate": "mini_llm.generation",
    "KVCache": "mini_llm.kv_cache",
    "Transformer": "mini_llm.model",
    "PagedKVCache": "mini_llm.paged_cache",
    "sample": "mini_llm.sampling",
}

__all__ = [
    "CacheError",
    "CheckpointNotFoundError",
    "ConfigError",
    "GenerationArgumentError",
    "KVCache",
    "MiniLLMError",
    "MissingWeightError",
    "ModelConfig",
    "PackingError",
    "PagedKVCache",
    "Transformer",
    "UnexpectedWeightError",
    "UnsupportedModelError",
    "WeightError",
    "WeightShapeError",
    "generate",
    "sample",
]  # the keys of _EXPORTS (a test keeps them equal)

if TYPE_CHECKING:
    from mini_llm.config import ModelConfig
    from mini_llm.errors import (
        CacheError,
        CheckpointNotFoundError,
        ConfigError,
        GenerationArgumentError,
        MiniLLMError,
        MissingWeightError,
        PackingError,
        UnexpectedWeightError,
        UnsupportedModelError,
        WeightError,
        WeightShapeError,
    )
    from mini_llm.generation import generate
    from mini_llm.kv_cache import KVCache
    from mini_llm.model import Transformer
    from mini_llm.paged_cache import PagedKVCache
    from mini_llm.sampling import sample


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'mini_llm' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next lookup is an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
