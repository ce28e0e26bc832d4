"""mini_llm: a small, readable Qwen3 / Llama inference library in PyTorch.

from mini_llm import KVCache, Transformer
model = Transformer.from_pretrained("models/SmolLM2-135M-Instruct")
cache = KVCache(model.cfg.num_hidden_layers)
logits = model(ids, cache)      # ids (B, T) -> logits (B, T, vocab); appends T tokens
"""

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
from mini_llm.generate import generate
from mini_llm.kv_cache import KVCache
from mini_llm.model import Transformer
from mini_llm.paged_cache import PagedKVCache
from mini_llm.sampling import sample

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
]
