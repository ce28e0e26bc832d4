"""The typed exceptions mini_llm raises for anything a caller can get wrong.

Every class derives from MiniLLMError so a caller can catch them all at once; each also
derives from the built-in exception a Python programmer would expect (FileNotFoundError,
ValueError), so code that predates mini_llm keeps working.
"""

from __future__ import annotations


class MiniLLMError(Exception):
    """Base class of every error mini_llm raises on purpose."""


class CheckpointNotFoundError(MiniLLMError, FileNotFoundError):
    """The checkpoint folder, its config.json or its weight files do not exist."""


class ConfigError(MiniLLMError, ValueError):
    """config.json is malformed or describes a model mini_llm cannot run."""


class UnsupportedModelError(ConfigError):
    """config.json names a model_type (or a feature) that mini_llm does not implement."""


class WeightError(MiniLLMError, ValueError):
    """The tensors in the checkpoint do not match what the config says they should be."""


class MissingWeightError(WeightError):
    """A tensor the model needs is absent from every weight file."""


class UnexpectedWeightError(WeightError):
    """A weight file holds a tensor the model has no place for."""


class WeightShapeError(WeightError):
    """A tensor exists but its shape differs from the one the config implies."""


class GenerationArgumentError(MiniLLMError, ValueError):
    """generate() or sample() got an argument outside its valid range."""


class CacheError(MiniLLMError, RuntimeError):
    """A KV cache is used in a way it cannot support (batch change, pool exhausted)."""


class PackingError(MiniLLMError, RuntimeError):
    """Weights cannot be repacked for this build of PyTorch, device or dtype."""
