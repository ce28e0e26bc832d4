"""ModelConfig: the handful of numbers that define a Qwen3 or Llama model, read from config.json."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mini_llm.errors import CheckpointNotFoundError, ConfigError, UnsupportedModelError

SUPPORTED_MODEL_TYPES = ("qwen3", "llama")


@dataclass(frozen=True, slots=True)
class ModelConfig:
    """Architecture hyper-parameters, named as in Hugging Face config.json files."""

    model_type: str
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    rms_norm_eps: float
    rope_theta: float
    max_position_embeddings: int
    tie_word_embeddings: bool
    eos_token_ids: tuple[int, ...] = ()

    @property
    def qk_norm(self) -> bool:
        """Qwen3 normalises each query and key head before RoPE; Llama does not."""
        return self.model_type == "qwen3"

    @property
    def q_size(self) -> int:
        return self.num_attention_heads * self.head_dim

    @property
    def kv_size(self) -> int:
        return self.num_key_value_heads * self.head_dim

    def __post_init__(self) -> None:
        positive = (
            "vocab_size",
            "hidden_size",
            "intermediate_size",
            "num_hidden_layers",
            "num_attention_heads",
            "num_key_value_heads",
            "head_dim",
            "max_position_embeddings",
        )
        for name in positive:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ConfigError(f"config field {name} must be a positive integer, got {value!r}")
        if self.num_attention_heads % self.num_key_value_heads:
            raise ConfigError(
                f"num_attention_heads ({self.num_attention_heads}) must be a multiple of "
                f"num_key_value_heads ({self.num_key_value_heads}) for grouped-query attention"
            )
        if self.head_dim % 2:
            raise ConfigError(f"head_dim must be even for RoPE, got {self.head_dim}")
        if not self.rope_theta > 0 or not self.rms_norm_eps > 0:
            raise ConfigError("rope_theta and rms_norm_eps must be positive")

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> ModelConfig:
        """Validate a parsed config.json and keep the fields mini_llm uses."""
        model_type = raw.get("model_type")
        if model_type not in SUPPORTED_MODEL_TYPES:
            raise UnsupportedModelError(
                f"model_type {model_type!r} is not supported; mini_llm runs {SUPPORTED_MODEL_TYPES}"
            )
        _reject_unsupported_features(raw)
        try:
            heads = raw["num_attention_heads"]
            return cls(
                model_type=model_type,
                vocab_size=raw["vocab_size"],
                hidden_size=raw["hidden_size"],
                intermediate_size=raw["intermediate_size"],
                num_hidden_layers=raw["num_hidden_layers"],
                num_attention_heads=heads,
                num_key_value_heads=raw.get("num_key_value_heads") or heads,
                # head_dim is explicit in Qwen3 (128 while hidden/heads is 64 in Qwen3-0.6B)
                head_dim=raw.get("head_dim") or raw["hidden_size"] // heads,
                rms_norm_eps=float(raw.get("rms_norm_eps", 1e-6)),
                rope_theta=_rope_theta(raw),
                max_position_embeddings=raw.get("max_position_embeddings", 2048),
                tie_word_embeddings=bool(raw.get("tie_word_embeddings", False)),
                eos_token_ids=_as_id_tuple(raw.get("eos_token_id")),
            )
        except KeyError as err:
            raise ConfigError(f"config.json lacks the required field {err.args[0]!r}") from None

    @classmethod
    def from_file(cls, path: str | Path) -> ModelConfig:
        """Read and validate a config.json file."""
        path = Path(path)
        if not path.is_file():
            raise CheckpointNotFoundError(f"no config.json at {path}")
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise ConfigError(f"{path} is not valid JSON: {err}") from None
        if not isinstance(raw, dict):
            raise ConfigError(f"{path} must hold a JSON object")
        return cls.from_dict(raw)


def _rope_parameters(raw: dict[str, Any]) -> dict[str, Any]:
    # transformers >= 5 writes `rope_parameters`; older files use `rope_scaling` + `rope_theta`.
    params = raw.get("rope_parameters") or raw.get("rope_scaling") or {}
    if not isinstance(params, dict):
        raise ConfigError(f"rope_parameters must be an object, got {params!r}")
    return params


def _rope_theta(raw: dict[str, Any]) -> float:
    theta = raw.get("rope_theta", _rope_parameters(raw).get("rope_theta", 10000.0))
    if not isinstance(theta, int | float) or isinstance(theta, bool):
        raise ConfigError(f"rope_theta must be a number, got {theta!r}")
    return float(theta)


def _reject_unsupported_features(raw: dict[str, Any]) -> None:
    rope_type = _rope_parameters(raw).get("rope_type", _rope_parameters(raw).get("type"))
    if rope_type not in (None, "default"):
        raise UnsupportedModelError(f"rope_type {rope_type!r} is not supported (only 'default')")
    if raw.get("hidden_act", "silu") != "silu":
        raise UnsupportedModelError(f"hidden_act {raw['hidden_act']!r} is not supported")
    for flag in ("attention_bias", "mlp_bias", "use_sliding_window"):
        if raw.get(flag):
            raise UnsupportedModelError(f"{flag}=true is not supported")


def _as_id_tuple(value: Any) -> tuple[int, ...]:
    if value is None:
        return ()
    if isinstance(value, int):
        return (value,)
    return tuple(int(v) for v in value)


@dataclass(frozen=True, slots=True)
class TinyConfig:
    """A small generated checkpoint's settings (mini_llm.testing writes one; the zoo names
    its own): the knobs tests vary, everything else fixed small."""

    model_type: str = "qwen3"
    hidden_size: int = 64
    intermediate_size: int = 128
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    head_dim: int = 32  # != hidden/heads (16) on purpose, as in Qwen3
    tie_word_embeddings: bool = False
    vocab_size: int = 384
    rope_theta: float = 10000.0
    init_std: float = 0.2
    seed: int = 0
